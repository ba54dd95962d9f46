/* Scalar rows as TensorBoard answers them, [[wall_time, step, value], ...], from three JSON arrays of numbers that
   orjson wrote from numpy columns (see rows.py): the numbers are copied, not formatted again, without the GIL. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

enum { COLUMNS = 3 };

/* The numbers of the flat JSON array in `column` ("[a,b,c]", or "[]"): 0 when it is not one (no brackets, quotes
   or spaces inside, no empty number). */
static int flat_array(const Py_buffer *column, Py_ssize_t *count) {
    const char *text = column->buf;
    const Py_ssize_t length = column->len;
    if (length < 2 || text[0] != '[' || text[length - 1] != ']') return 0;
    *count = length == 2 ? 0 : 1;
    char previous = '[';
    for (Py_ssize_t index = 1; index < length - 1; index++) {
        const char byte = text[index];
        if (byte == '[' || byte == ']' || byte == '"' || byte == ' ') return 0;
        if (byte == ',') {
            if (previous == ',' || previous == '[') return 0;
            (*count)++;
        }
        previous = byte;
    }
    return length == 2 || previous != ',';
}

PyDoc_STRVAR(rows_doc,
             "rows(wall_times, steps, values) -> bytes\n\n"
             "[[w0,s0,v0],[w1,s1,v1],...] from three flat JSON arrays of as many numbers each; ValueError when\n"
             "they are not.");

static PyObject *rows(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer columns[COLUMNS];
    if (!PyArg_ParseTuple(args, "y*y*y*", &columns[0], &columns[1], &columns[2])) return NULL;
    PyObject *result = NULL;
    Py_ssize_t counts[COLUMNS], numbers = 0;
    for (int column = 0; column < COLUMNS; column++) {
        if (!flat_array(&columns[column], &counts[column]) || counts[column] != counts[0]) {
            PyErr_SetString(PyExc_ValueError, "rows() takes three flat JSON arrays of as many numbers each");
            goto done;
        }
        numbers += columns[column].len - 2 - (counts[column] ? counts[column] - 1 : 0);
    }
    const Py_ssize_t count = counts[0];
    /* The outer brackets; per row its brackets and two commas; a comma between rows. */
    const Py_ssize_t size = 2 + numbers + 4 * count + (count ? count - 1 : 0);
    result = PyBytes_FromStringAndSize(NULL, size);
    if (result == NULL) goto done;
    char *out = PyBytes_AS_STRING(result);
    const char *next[COLUMNS];
    for (int column = 0; column < COLUMNS; column++) next[column] = (const char *)columns[column].buf + 1;
    Py_BEGIN_ALLOW_THREADS;
    *out++ = '[';
    for (Py_ssize_t row = 0; row < count; row++) {
        if (row) *out++ = ',';
        *out++ = '[';
        for (int column = 0; column < COLUMNS; column++) {
            if (column) *out++ = ',';
            const char *start = next[column];
            const char *end = start;
            while (*end != ',' && *end != ']') end++;
            memcpy(out, start, (size_t)(end - start));
            out += end - start;
            next[column] = end + 1;
        }
        *out++ = ']';
    }
    *out++ = ']';
    Py_END_ALLOW_THREADS;
done:
    for (int column = 0; column < COLUMNS; column++) PyBuffer_Release(&columns[column]);
    return result;
}

static PyMethodDef methods[] = {
    {"rows", rows, METH_VARARGS, rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "trainboard.http._rows", "Scalar rows as JSON (see rows.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__rows(void) { return PyModule_Create(&module_definition); }
