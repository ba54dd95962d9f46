/* TFRecord framing of a whole byte window in one call: record boundaries and both checksums (see frames.py).

   The format: uint64 length, masked CRC-32C of those 8 bytes, payload, masked CRC-32C of the payload. The loops run
   without the GIL; results come back as bytes of int64 (or uint8) that frames.py views as numpy arrays. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 12
#define FOOTER_SIZE 4
#define MAX_RECORD_SIZE (2ULL * 1024 * 1024 * 1024)
#define STOPPED_AT_END 0
#define STOPPED_AT_CORRUPT_HEADER 1

static uint32_t crc_table[256];

static uint32_t crc32c_bytes(uint32_t crc, const uint8_t *data, size_t size) {
    while (size--) crc = crc_table[(crc ^ *data++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_HARDWARE_CRC 1
__attribute__((target("sse4.2"))) static uint32_t crc32c_hardware(uint32_t crc, const uint8_t *data, size_t size) {
    uint64_t wide = crc;
    while (size >= 8) {
        uint64_t word;
        memcpy(&word, data, 8);
        wide = __builtin_ia32_crc32di(wide, word);
        data += 8;
        size -= 8;
    }
    crc = (uint32_t)wide;
    while (size--) crc = __builtin_ia32_crc32qi(crc, *data++);
    return crc;
}
#endif

static uint32_t (*crc32c)(uint32_t, const uint8_t *, size_t) = crc32c_bytes;

static uint32_t masked_crc32c(const uint8_t *data, size_t size) {
    uint32_t crc = ~crc32c(0xFFFFFFFFu, data, size);
    return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}

static uint64_t little_endian(const uint8_t *data, int size) {
    uint64_t value = 0;
    for (int index = size - 1; index >= 0; index--) value = (value << 8) | data[index];
    return value;
}

static int valid_header(const uint8_t *data) {
    return little_endian(data, 8) <= MAX_RECORD_SIZE && little_endian(data + 8, 4) == masked_crc32c(data, 8);
}

typedef struct {
    int64_t *starts;
    int64_t *lengths;
    uint8_t *intact;
    Py_ssize_t count, capacity;
} Found;

static int grow(Found *found) {
    Py_ssize_t capacity = found->capacity ? found->capacity * 2 : 1024;
    int64_t *starts = realloc(found->starts, capacity * sizeof(int64_t));
    if (starts) found->starts = starts;
    int64_t *lengths = realloc(found->lengths, capacity * sizeof(int64_t));
    if (lengths) found->lengths = lengths;
    uint8_t *intact = realloc(found->intact, capacity);
    if (intact) found->intact = intact;
    if (!starts || !lengths || !intact) return 0;
    found->capacity = capacity;
    return 1;
}

/* Py_BuildValue's "y#" makes None of NULL: no record found is empty bytes. */
static const char *bytes_of(const void *pointer) { return pointer ? (const char *)pointer : ""; }

PyDoc_STRVAR(frame_doc,
             "frame(data, position) -> (starts, lengths, intact, stop, reason)\n\n"
             "Every complete record from `position` on: payload starts and lengths (bytes of int64), whether each\n"
             "payload's checksum holds (bytes of uint8), where framing stopped (after the last complete record) and\n"
             "why (STOPPED_AT_*).");

static PyObject *frame(PyObject *module, PyObject *args) {
    Py_buffer buffer;
    Py_ssize_t position;
    if (!PyArg_ParseTuple(args, "y*n", &buffer, &position)) return NULL;
    const uint8_t *data = buffer.buf;
    const Py_ssize_t size = buffer.len;
    Found found = {0};
    int reason = STOPPED_AT_END, out_of_memory = 0;
    if (position < 0) position = 0;
    Py_BEGIN_ALLOW_THREADS;
    while (position + HEADER_SIZE <= size) {
        if (!valid_header(data + position)) {
            reason = STOPPED_AT_CORRUPT_HEADER;
            break;
        }
        const uint64_t length = little_endian(data + position, 8);
        const Py_ssize_t body = position + HEADER_SIZE;
        if ((uint64_t)(size - body) < length + FOOTER_SIZE) break;
        if (found.count == found.capacity && !grow(&found)) {
            out_of_memory = 1;
            break;
        }
        found.starts[found.count] = body;
        found.lengths[found.count] = (int64_t)length;
        found.intact[found.count] =
            little_endian(data + body + length, 4) == masked_crc32c(data + body, (size_t)length);
        found.count++;
        position = body + (Py_ssize_t)length + FOOTER_SIZE;
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&buffer);
    PyObject *result = NULL;
    if (out_of_memory)
        PyErr_NoMemory();
    else
        result = Py_BuildValue("(y#y#y#ni)", bytes_of(found.starts), found.count * (Py_ssize_t)sizeof(int64_t),
                               bytes_of(found.lengths), found.count * (Py_ssize_t)sizeof(int64_t),
                               bytes_of(found.intact), found.count, position, reason);
    free(found.starts);
    free(found.lengths);
    free(found.intact);
    return result;
}

PyDoc_STRVAR(find_header_doc,
             "find_header(data, position) -> int\n\n"
             "The first position at or after `position` where a valid header (a sane length and its checksum)\n"
             "begins, or -1 when none does in `data`.");

static PyObject *find_header(PyObject *module, PyObject *args) {
    Py_buffer buffer;
    Py_ssize_t position, found = -1;
    if (!PyArg_ParseTuple(args, "y*n", &buffer, &position)) return NULL;
    const uint8_t *data = buffer.buf;
    if (position < 0) position = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (; position + HEADER_SIZE <= buffer.len; position++) {
        if (valid_header(data + position)) {
            found = position;
            break;
        }
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&buffer);
    return PyLong_FromSsize_t(found);
}

PyDoc_STRVAR(masked_crc_doc, "masked_crc(data) -> int\n\nThe masked CRC-32C of `data`, as TFRecord files store it.");

static PyObject *masked_crc(PyObject *module, PyObject *args) {
    Py_buffer buffer;
    if (!PyArg_ParseTuple(args, "y*", &buffer)) return NULL;
    uint32_t crc = masked_crc32c(buffer.buf, (size_t)buffer.len);
    PyBuffer_Release(&buffer);
    return PyLong_FromUnsignedLong(crc);
}

static PyMethodDef methods[] = {
    {"frame", frame, METH_VARARGS, frame_doc},
    {"find_header", find_header, METH_VARARGS, find_header_doc},
    {"masked_crc", masked_crc, METH_VARARGS, masked_crc_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "trainboard.reader._framing", "TFRecord framing (see trainboard/reader/frames.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__framing(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        crc_table[byte] = crc;
    }
#ifdef HAVE_HARDWARE_CRC
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) crc32c = crc32c_hardware;
#endif
    PyObject *module = PyModule_Create(&module_definition);
    if (module == NULL) return NULL;
    if (PyModule_AddIntConstant(module, "STOPPED_AT_END", STOPPED_AT_END) < 0 ||
        PyModule_AddIntConstant(module, "STOPPED_AT_CORRUPT_HEADER", STOPPED_AT_CORRUPT_HEADER) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
