/* Decoding of the event that dominates every logdir, one step's `simple_value` scalars (see scalar_kernel.py).

   The loops run without the GIL; results come back as bytes of int64, float64, uint64 or uint8 that
   scalar_kernel.py views as numpy arrays. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#define FNV_OFFSET 0xCBF29CE484222325ULL
#define FNV_PRIME 0x100000001B3ULL

/* A Summary.Value of exactly a tag and a simple_value, in data[position:end]: 1 when it is one. */
static int summary_value(const uint8_t *data, int64_t position, int64_t end, int64_t *tag_start, int64_t *tag_length,
                         double *value) {
    int has_value = 0;
    *tag_start = -1;
    while (position < end) {
        const int64_t key = varint(data, &position, end);
        if (position < 0) return 0;
        if (key == (1 << 3 | WIRE_LENGTH)) {
            const int64_t length = varint(data, &position, end);
            if (position < 0 || length < 0 || length > end - position) return 0;
            *tag_start = position;
            *tag_length = length;
            position += length;
        } else if (key == (2 << 3 | WIRE_FIXED32) && position + 4 <= end) {
            const uint32_t bits = (uint32_t)little_endian(data + position, 4);
            float single;
            memcpy(&single, &bits, 4);
            *value = (double)single;
            has_value = 1;
            position += 4;
        } else {
            return 0;
        }
    }
    return has_value && *tag_start >= 0 && position == end;
}

typedef struct {
    int64_t *records, *tag_starts, *tag_lengths;
    double *values;
    Py_ssize_t used, capacity;
} Values;

static int grow(Values *found) {
    const Py_ssize_t capacity = found->capacity * 2;
    int64_t *records = realloc(found->records, capacity * sizeof(int64_t));
    if (records) found->records = records;
    int64_t *tag_starts = realloc(found->tag_starts, capacity * sizeof(int64_t));
    if (tag_starts) found->tag_starts = tag_starts;
    int64_t *tag_lengths = realloc(found->tag_lengths, capacity * sizeof(int64_t));
    if (tag_lengths) found->tag_lengths = tag_lengths;
    double *values = realloc(found->values, capacity * sizeof(double));
    if (values) found->values = values;
    if (!records || !tag_starts || !tag_lengths || !values) return 0;
    found->capacity = capacity;
    return 1;
}

/* Record `record`'s payload data[position:end]: 1 when it is a simple scalar event, its values appended to `found`
   (none kept when it is not); 0 also when memory runs out (then *out_of_memory is set). */
static int decode_record(const uint8_t *data, int64_t position, int64_t end, int64_t record, double *wall_time,
                         int64_t *step, Values *found, int *out_of_memory) {
    const Py_ssize_t first_value = found->used;
    int has_summary = 0;
    while (position < end) {
        const int64_t key = varint(data, &position, end);
        if (position < 0) goto not_simple;
        if (key == (1 << 3 | WIRE_FIXED64) && position + 8 <= end) {
            *wall_time = fixed_double(data + position);
            position += 8;
        } else if (key == (2 << 3 | WIRE_VARINT)) {
            *step = varint(data, &position, end);
            if (position < 0) goto not_simple;
        } else if (key == (5 << 3 | WIRE_LENGTH)) {
            const int64_t length = varint(data, &position, end);
            if (position < 0 || length < 0 || length > end - position) goto not_simple;
            const int64_t summary_end = position + length;
            has_summary = 1;
            while (position < summary_end) {
                if (varint(data, &position, summary_end) != (1 << 3 | WIRE_LENGTH) || position < 0) goto not_simple;
                const int64_t value_length = varint(data, &position, summary_end);
                if (position < 0 || value_length < 0 || value_length > summary_end - position) goto not_simple;
                int64_t tag_start, tag_length = 0;
                double value = 0.0;
                if (!summary_value(data, position, position + value_length, &tag_start, &tag_length, &value))
                    goto not_simple;
                position += value_length;
                if (found->used == found->capacity && !grow(found)) {
                    *out_of_memory = 1;
                    goto not_simple;
                }
                found->records[found->used] = record;
                found->tag_starts[found->used] = tag_start;
                found->tag_lengths[found->used] = tag_length;
                found->values[found->used] = value;
                found->used++;
            }
        } else {
            goto not_simple;
        }
    }
    if (has_summary) return 1;
not_simple:
    found->used = first_value; /* the event goes to the general path whole */
    return 0;
}

static uint64_t fnv1a(const uint8_t *data, int64_t length) {
    uint64_t digest = FNV_OFFSET;
    for (int64_t index = 0; index < length; index++) digest = (digest ^ data[index]) * FNV_PRIME;
    return digest;
}

PyDoc_STRVAR(decode_doc,
             "decode(data, starts, lengths) -> (simple, wall_times, steps, records, tag_starts, tag_lengths,\n"
             "hashes, values)\n\n"
             "For each record (payload at starts[i], lengths[i], int64): whether it is a simple scalar event (uint8),\n"
             "its wall time (float64) and step (int64); for each value of those events: its record, tag position\n"
             "and length (int64), FNV-1a hash of the tag (uint64), value (float64). Each as bytes.");

static PyObject *decode(PyObject *module, PyObject *args) {
    Py_buffer data, starts, lengths;
    if (!PyArg_ParseTuple(args, "y*y*y*", &data, &starts, &lengths)) return NULL;
    PyObject *result = NULL;
    const Py_ssize_t count = starts.len / (Py_ssize_t)sizeof(int64_t);
    uint8_t *simple = calloc(count ? count : 1, 1);
    double *wall_times = calloc(count ? count : 1, sizeof(double));
    int64_t *steps = calloc(count ? count : 1, sizeof(int64_t));
    Values found = {0};
    found.capacity = count > 8 ? count : 8;
    found.records = malloc(found.capacity * sizeof(int64_t));
    found.tag_starts = malloc(found.capacity * sizeof(int64_t));
    found.tag_lengths = malloc(found.capacity * sizeof(int64_t));
    found.values = malloc(found.capacity * sizeof(double));
    uint64_t *hashes = NULL;
    int out_of_memory = !simple || !wall_times || !steps || !found.records || !found.tag_starts ||
                        !found.tag_lengths || !found.values;
    if (starts.len != lengths.len || starts.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "starts and lengths must be int64 arrays of one length");
        goto done;
    }
    if (!inside(starts.buf, lengths.buf, count, data.len)) {
        PyErr_SetString(PyExc_ValueError, "a record lies outside the data");
        goto done;
    }
    const uint8_t *bytes = data.buf;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t record = 0; record < count && !out_of_memory; record++) {
        const int64_t start = ((const int64_t *)starts.buf)[record];
        const int64_t end = start + ((const int64_t *)lengths.buf)[record];
        simple[record] = (uint8_t)decode_record(bytes, start, end, record, &wall_times[record], &steps[record], &found,
                                                &out_of_memory);
    }
    if (!out_of_memory) {
        hashes = malloc((found.used ? found.used : 1) * sizeof(uint64_t));
        if (hashes == NULL) out_of_memory = 1;
        for (Py_ssize_t index = 0; hashes && index < found.used; index++)
            hashes[index] = fnv1a(bytes + found.tag_starts[index], found.tag_lengths[index]);
    }
    Py_END_ALLOW_THREADS;
    if (out_of_memory) {
        PyErr_NoMemory();
        goto done;
    }
    const Py_ssize_t wide = (Py_ssize_t)sizeof(int64_t);
    result = Py_BuildValue("(y#y#y#y#y#y#y#y#)", (const char *)simple, count, (const char *)wall_times, count * wide,
                           (const char *)steps, count * wide, (const char *)found.records, found.used * wide,
                           (const char *)found.tag_starts, found.used * wide, (const char *)found.tag_lengths,
                           found.used * wide, (const char *)hashes, found.used * wide, (const char *)found.values,
                           found.used * wide);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&lengths);
    free(simple);
    free(wall_times);
    free(steps);
    free(found.records);
    free(found.tag_starts);
    free(found.tag_lengths);
    free(found.values);
    free(hashes);
    return result;
}

PyDoc_STRVAR(same_tags_doc,
             "same_tags(data, tag_starts, tag_lengths, groups, representatives) -> bool\n\n"
             "Whether every value's tag equals its group representative's byte for byte (no hash collision); all\n"
             "but `data` int64 arrays, each value's tag at tag_starts[i] of tag_lengths[i] bytes.");

static PyObject *same_tags(PyObject *module, PyObject *args) {
    Py_buffer data, tag_starts, tag_lengths, groups, representatives;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*", &data, &tag_starts, &tag_lengths, &groups, &representatives))
        return NULL;
    const int64_t *starts = tag_starts.buf, *lengths = tag_lengths.buf, *group = groups.buf,
                  *representative = representatives.buf;
    const Py_ssize_t count = tag_starts.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t group_count = representatives.len / (Py_ssize_t)sizeof(int64_t);
    int same = tag_lengths.len == tag_starts.len && groups.len == tag_starts.len &&
               inside(starts, lengths, count, data.len);
    for (Py_ssize_t index = 0; same && index < count; index++) {
        same = group[index] >= 0 && group[index] < group_count && representative[group[index]] >= 0 &&
               representative[group[index]] < count;
        if (!same) break;
        const int64_t other = representative[group[index]];
        same = lengths[index] == lengths[other] &&
               memcmp((const uint8_t *)data.buf + starts[index], (const uint8_t *)data.buf + starts[other],
                      (size_t)lengths[index]) == 0;
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&tag_starts);
    PyBuffer_Release(&tag_lengths);
    PyBuffer_Release(&groups);
    PyBuffer_Release(&representatives);
    return PyBool_FromLong(same);
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS, decode_doc},
    {"same_tags", same_tags, METH_VARARGS, same_tags_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "trainboard.normaliser._scalars", "Simple scalar events (see scalar_kernel.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scalars(void) { return PyModule_Create(&module_definition); }
