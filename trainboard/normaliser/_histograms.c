/* Decoding of legacy histogram events straight into the tensors TensorBoard migrates them to (see
   histogram_kernel.py): one call for a read's records, no protobuf object per event.

   An event qualifies when it holds only wall_time (1), step (2) and a summary (5) whose values each hold only a tag
   (1) and a histo (5), and each histo only min, max, num, sum, sum_squares (1-5, doubles) and at most one packed
   bucket_limit (6) and bucket (7) each. Each value becomes the serialized TensorProto of legacy._histogram: float32
   [k, 3] rows (left, right, count) from the first to the last non-empty bucket, the outer edges min and max. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

typedef struct {
    int64_t record, tag_start, tag_length;
    double min, max;
    int64_t limits_start, limits_count, counts_start, counts_count;
} Histogram;

typedef struct {
    Histogram *items;
    Py_ssize_t used, capacity;
} Histograms;

/* A HistogramProto in data[position:end] of only the fields above: 1 when it is one. */
static int histo(const uint8_t *data, int64_t position, int64_t end, Histogram *found) {
    found->min = found->max = 0.0;
    found->limits_start = found->counts_start = -1;
    found->limits_count = found->counts_count = 0;
    while (position < end) {
        const int64_t key = varint(data, &position, end);
        if (position < 0) return 0;
        if ((key & 7) == WIRE_FIXED64 && key >> 3 >= 1 && key >> 3 <= 5 && position + 8 <= end) {
            if (key >> 3 == 1) found->min = fixed_double(data + position);
            if (key >> 3 == 2) found->max = fixed_double(data + position);
            position += 8;
        } else if (key == KEY(6, WIRE_LENGTH) || key == KEY(7, WIRE_LENGTH)) {
            const int64_t length = varint(data, &position, end);
            if (position < 0 || length < 0 || length > end - position || length % 8) return 0;
            int64_t *start = key == KEY(6, WIRE_LENGTH) ? &found->limits_start : &found->counts_start;
            int64_t *count = key == KEY(6, WIRE_LENGTH) ? &found->limits_count : &found->counts_count;
            if (*start >= 0) return 0; /* a second packed run: protobuf joins them, left to it */
            *start = position;
            *count = length / 8;
            position += length;
        } else {
            return 0;
        }
    }
    return 1;
}

/* A Summary.Value of exactly a tag and a histo in data[position:end]: 1 when it is one. */
static int histogram_value(const uint8_t *data, int64_t position, int64_t end, Histogram *found) {
    int has_histo = 0;
    found->tag_start = -1;
    while (position < end) {
        const int64_t key = varint(data, &position, end);
        if (position < 0) return 0;
        if (key != KEY(1, WIRE_LENGTH) && key != KEY(5, WIRE_LENGTH)) return 0;
        const int64_t length = varint(data, &position, end);
        if (position < 0 || length < 0 || length > end - position) return 0;
        if (key == KEY(1, WIRE_LENGTH)) {
            found->tag_start = position;
            found->tag_length = length;
        } else {
            if (has_histo || !histo(data, position, position + length, found)) return 0; /* protobuf would merge */
            has_histo = 1;
        }
        position += length;
    }
    return has_histo && found->tag_start >= 0;
}

static int decode_record(const uint8_t *data, int64_t position, int64_t end, int64_t record, double *wall_time,
                         int64_t *step, Histograms *found, int *out_of_memory) {
    const Py_ssize_t first = found->used;
    int has_value = 0;
    while (position < end) {
        const int64_t key = varint(data, &position, end);
        if (position < 0) goto not_histograms;
        if (key == KEY(1, WIRE_FIXED64) && position + 8 <= end) {
            *wall_time = fixed_double(data + position);
            position += 8;
        } else if (key == KEY(2, WIRE_VARINT)) {
            *step = varint(data, &position, end);
            if (position < 0) goto not_histograms;
        } else if (key == KEY(5, WIRE_LENGTH)) {
            const int64_t length = varint(data, &position, end);
            if (position < 0 || length < 0 || length > end - position) goto not_histograms;
            const int64_t summary_end = position + length;
            while (position < summary_end) {
                if (varint(data, &position, summary_end) != KEY(1, WIRE_LENGTH) || position < 0) goto not_histograms;
                const int64_t value_length = varint(data, &position, summary_end);
                if (position < 0 || value_length < 0 || value_length > summary_end - position) goto not_histograms;
                if (found->used == found->capacity) {
                    const Py_ssize_t capacity = found->capacity ? found->capacity * 2 : 64;
                    Histogram *items = realloc(found->items, capacity * sizeof(Histogram));
                    if (items == NULL) {
                        *out_of_memory = 1;
                        goto not_histograms;
                    }
                    found->items = items;
                    found->capacity = capacity;
                }
                Histogram *value = &found->items[found->used];
                if (!histogram_value(data, position, position + value_length, value)) goto not_histograms;
                value->record = record;
                found->used++;
                has_value = 1;
                position += value_length;
            }
        } else {
            goto not_histograms;
        }
    }
    if (has_value) return 1;
not_histograms:
    found->used = first;
    return 0;
}

static size_t varint_size(uint64_t value) {
    size_t size = 1;
    while (value >= 0x80) {
        value >>= 7;
        size++;
    }
    return size;
}

static uint8_t *put_varint(uint8_t *out, uint64_t value) {
    while (value >= 0x80) {
        *out++ = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    *out++ = (uint8_t)value;
    return out;
}

/* The first and last bucket with a count > 0 (NaN is not), among the first `count`; 0 when there is none. */
static int nonempty(const uint8_t *counts, int64_t count, int64_t *first, int64_t *last) {
    *first = -1;
    for (int64_t index = 0; index < count; index++) {
        if (fixed_double(counts + 8 * index) > 0) {
            if (*first < 0) *first = index;
            *last = index;
        }
    }
    return *first >= 0;
}

/* The serialized TensorProto {dtype: DT_FLOAT, tensor_shape: [rows, 3], tensor_content} of a histogram, as protobuf
   writes it (fields in order, empty content left out), at `out` (NULL: only its size). */
static size_t tensor(const uint8_t *data, const Histogram *histogram, uint8_t *out) {
    int64_t first = 0, last = -1;
    const int64_t counts = histogram->counts_count < histogram->limits_count + 1 ? histogram->counts_count
                                                                                 : histogram->limits_count + 1;
    const int has_rows = counts > 0 && nonempty(data + histogram->counts_start, counts, &first, &last);
    const uint64_t rows = has_rows ? (uint64_t)(last - first + 1) : 0;
    const size_t rows_dim = rows ? 1 + varint_size(rows) : 0; /* Dim{size}: a zero size is left out */
    const size_t shape = 2 + rows_dim + 4;
    const size_t content = rows * 3 * sizeof(float);
    const size_t size = 2 + 2 + shape + (content ? 1 + varint_size(content) + content : 0);
    if (out == NULL) return size;
    *out++ = KEY(1, WIRE_VARINT);
    *out++ = 1; /* DT_FLOAT */
    *out++ = KEY(2, WIRE_LENGTH);
    *out++ = (uint8_t)shape;
    *out++ = KEY(2, WIRE_LENGTH);
    *out++ = (uint8_t)rows_dim;
    if (rows) {
        *out++ = KEY(1, WIRE_VARINT);
        out = put_varint(out, rows);
    }
    *out++ = KEY(2, WIRE_LENGTH);
    *out++ = 2;
    *out++ = KEY(1, WIRE_VARINT);
    *out++ = 3;
    if (!content) return size;
    *out++ = KEY(4, WIRE_LENGTH);
    out = put_varint(out, content);
    const uint8_t *limits = data + histogram->limits_start, *counts_data = data + histogram->counts_start;
    for (uint64_t row = 0; row < rows; row++) {
        const int64_t bucket = first + (int64_t)row;
        const float cells[3] = {
            (float)(row == 0 ? histogram->min : fixed_double(limits + 8 * (bucket - 1))),
            (float)(row == rows - 1 ? histogram->max : fixed_double(limits + 8 * bucket)),
            (float)fixed_double(counts_data + 8 * bucket),
        };
        memcpy(out, cells, sizeof(cells));
        out += sizeof(cells);
    }
    return size;
}

PyDoc_STRVAR(decode_doc,
             "decode(data, starts, lengths) -> (histograms, wall_times, steps, records, tag_starts, tag_lengths,\n"
             "tensors, tensor_ends)\n\n"
             "For each record (payload at starts[i], lengths[i], int64): whether it is an event of histogram values\n"
             "only (uint8), its wall time (float64) and step (int64); for each value of those events: its record,\n"
             "tag position and length (int64), and its TensorProto, tensors[tensor_ends[i-1]:tensor_ends[i]].\n"
             "Each as bytes.");

static PyObject *decode(PyObject *module, PyObject *args) {
    Py_buffer data, starts, lengths;
    if (!PyArg_ParseTuple(args, "y*y*y*", &data, &starts, &lengths)) return NULL;
    PyObject *result = NULL;
    const Py_ssize_t count = starts.len / (Py_ssize_t)sizeof(int64_t);
    uint8_t *histograms = calloc(count ? count : 1, 1);
    double *wall_times = calloc(count ? count : 1, sizeof(double));
    int64_t *steps = calloc(count ? count : 1, sizeof(int64_t));
    Histograms found = {0};
    int64_t *columns = NULL, *tensor_ends = NULL;
    uint8_t *tensors = NULL;
    int out_of_memory = !histograms || !wall_times || !steps;
    if (starts.len != lengths.len || starts.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "starts and lengths must be int64 arrays of one length");
        goto done;
    }
    if (!inside(starts.buf, lengths.buf, count, data.len)) {
        PyErr_SetString(PyExc_ValueError, "a record lies outside the data");
        goto done;
    }
    const uint8_t *bytes = data.buf;
    Py_ssize_t used = 0, total = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t record = 0; record < count && !out_of_memory; record++) {
        const int64_t start = ((const int64_t *)starts.buf)[record];
        const int64_t end = start + ((const int64_t *)lengths.buf)[record];
        histograms[record] = (uint8_t)decode_record(bytes, start, end, record, &wall_times[record], &steps[record],
                                                    &found, &out_of_memory);
    }
    used = found.used;
    columns = malloc((used ? used : 1) * 3 * sizeof(int64_t));
    tensor_ends = malloc((used ? used : 1) * sizeof(int64_t));
    out_of_memory = out_of_memory || !columns || !tensor_ends;
    for (Py_ssize_t index = 0; !out_of_memory && index < used; index++) {
        total += (Py_ssize_t)tensor(bytes, &found.items[index], NULL);
        tensor_ends[index] = total;
        columns[index] = found.items[index].record;
        columns[used + index] = found.items[index].tag_start;
        columns[2 * used + index] = found.items[index].tag_length;
    }
    if (!out_of_memory) tensors = malloc(total ? total : 1);
    out_of_memory = out_of_memory || !tensors;
    for (Py_ssize_t index = 0; !out_of_memory && index < used; index++)
        tensor(bytes, &found.items[index], tensors + (index ? tensor_ends[index - 1] : 0));
    Py_END_ALLOW_THREADS;
    if (out_of_memory) {
        PyErr_NoMemory();
        goto done;
    }
    const Py_ssize_t wide = (Py_ssize_t)sizeof(int64_t);
    result = Py_BuildValue("(y#y#y#y#y#y#y#y#)", (const char *)histograms, count, (const char *)wall_times,
                           count * wide, (const char *)steps, count * wide, (const char *)columns, used * wide,
                           (const char *)(columns + used), used * wide, (const char *)(columns + 2 * used),
                           used * wide, (const char *)tensors, total, (const char *)tensor_ends, used * wide);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&lengths);
    free(histograms);
    free(wall_times);
    free(steps);
    free(found.items);
    free(columns);
    free(tensor_ends);
    free(tensors);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS, decode_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "trainboard.normaliser._histograms", "Legacy histogram events (see histogram_kernel.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__histograms(void) { return PyModule_Create(&module_definition); }
