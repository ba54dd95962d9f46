/* Decoding of the event that dominates every logdir, one step's `simple_value` scalars (see scalar_kernel.py).

   The loops run without the GIL; results come back as bytes of int64, float64 or uint8 that
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

typedef struct {
    uint64_t hash;
    int64_t id; /* -1: a free slot */
} Slot;

/* Slots a tag may be looked for in before its values are left to the general path: tags made to collide must not
   make the numbering quadratic. */
#define MAX_PROBES 64
#define TOO_MANY_COLLISIONS (-2)

/* A hash's first slot in a table of 2**bits (Fibonacci hashing: every bit of the hash counts). */
static inline int64_t home_slot(uint64_t hash, int bits) {
    return (int64_t)((hash * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
}

/* `table` (2**bits slots) in a table twice as large; NULL when memory runs out (`table` is freed either way). */
static Slot *doubled(Slot *table, int bits) {
    const int64_t capacity = (int64_t)1 << bits;
    Slot *larger = malloc(2 * capacity * sizeof(Slot));
    if (larger != NULL) {
        for (int64_t slot = 0; slot < 2 * capacity; slot++) larger[slot].id = -1;
        for (int64_t slot = 0; slot < capacity; slot++) {
            if (table[slot].id < 0) continue;
            int64_t moved = home_slot(table[slot].hash, bits + 1);
            while (larger[moved].id >= 0) moved = (moved + 1) & (2 * capacity - 1);
            larger[moved] = table[slot];
        }
    }
    free(table);
    return larger;
}

/* Each value's tag numbered in order of first appearance (ids[i]), and the first value of each tag (firsts[id]):
   a table keyed by the tag's bytes, found through their FNV-1a hash, so that tags whose hashes collide stay apart.
   Returns the number of tags; -1 when memory runs out, TOO_MANY_COLLISIONS when a tag was not found within
   MAX_PROBES slots. */
static int64_t number_tags(const uint8_t *data, const int64_t *tag_starts, const int64_t *tag_lengths, int64_t count,
                           int64_t *ids, int64_t *firsts) {
    int bits = 6;
    int64_t tags = 0;
    Slot *table = malloc(((int64_t)1 << bits) * sizeof(Slot));
    if (table == NULL) return -1;
    for (int64_t slot = 0; slot < (int64_t)1 << bits; slot++) table[slot].id = -1;
    for (int64_t index = 0; index < count; index++) {
        const uint8_t *tag = data + tag_starts[index];
        const int64_t length = tag_lengths[index];
        const uint64_t hash = fnv1a(tag, length);
        const int64_t mask = ((int64_t)1 << bits) - 1;
        int64_t slot = home_slot(hash, bits), probes = 0;
        while (table[slot].id >= 0) {
            const int64_t first = firsts[table[slot].id];
            if (table[slot].hash == hash && tag_lengths[first] == length &&
                memcmp(data + tag_starts[first], tag, (size_t)length) == 0)
                break;
            if (++probes == MAX_PROBES) {
                free(table);
                return TOO_MANY_COLLISIONS;
            }
            slot = (slot + 1) & mask;
        }
        if (table[slot].id >= 0) {
            ids[index] = table[slot].id;
            continue;
        }
        table[slot].hash = hash;
        table[slot].id = tags;
        firsts[tags] = index;
        ids[index] = tags++;
        if (2 * tags > mask + 1) { /* at most half full: probes stay short */
            table = doubled(table, bits++);
            if (table == NULL) return -1;
        }
    }
    free(table);
    return tags;
}

PyDoc_STRVAR(decode_doc,
             "decode(data, starts, lengths) -> (simple, wall_times, steps, records, tag_starts, tag_lengths,\n"
             "tag_ids, values, firsts)\n\n"
             "For each record (payload at starts[i], lengths[i], int64): whether it is a simple scalar event (uint8),\n"
             "its wall time (float64) and step (int64); for each value of those events: its record, tag position\n"
             "and length, tag number (tags numbered by first appearance) (int64), value (float64); for each tag\n"
             "number, the first value with that tag (int64). Each as bytes.");

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
    int64_t *ids = NULL, *firsts = NULL, tags = 0;
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
        ids = malloc((found.used ? found.used : 1) * sizeof(int64_t));
        firsts = malloc((found.used ? found.used : 1) * sizeof(int64_t));
        tags = ids && firsts ? number_tags(bytes, found.tag_starts, found.tag_lengths, found.used, ids, firsts) : -1;
        if (tags == TOO_MANY_COLLISIONS) { /* every event to the general path */
            memset(simple, 0, count ? count : 1);
            found.used = tags = 0;
        }
        if (tags < 0) out_of_memory = 1;
    }
    Py_END_ALLOW_THREADS;
    if (out_of_memory) {
        PyErr_NoMemory();
        goto done;
    }
    const Py_ssize_t wide = (Py_ssize_t)sizeof(int64_t);
    result = Py_BuildValue("(y#y#y#y#y#y#y#y#y#)", (const char *)simple, count, (const char *)wall_times, count * wide,
                           (const char *)steps, count * wide, (const char *)found.records, found.used * wide,
                           (const char *)found.tag_starts, found.used * wide, (const char *)found.tag_lengths,
                           found.used * wide, (const char *)ids, found.used * wide, (const char *)found.values,
                           found.used * wide, (const char *)firsts, tags * wide);
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
    free(ids);
    free(firsts);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS, decode_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "trainboard.normaliser._scalars", "Simple scalar events (see scalar_kernel.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scalars(void) { return PyModule_Create(&module_definition); }
