/* Scalar rows as TensorBoard answers them, [[wall_time, step, value], ...], from three JSON arrays of numbers that
   orjson wrote from numpy columns (see rows.py): the numbers are copied, not formatted again, without the GIL. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

enum { COLUMNS = 3 };

/* Whether text[:length] is a flat JSON array of numbers ("[a,b,c]", or "[]": no brackets, quotes or spaces inside,
   no empty number), and how many. */
static int flat_array(const char *text, Py_ssize_t length, Py_ssize_t *count) {
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

PyDoc_STRVAR(interleave_doc,
             "interleave(wall_times, steps, values) -> bytes\n\n"
             "[[w0,s0,v0],[w1,s1,v1],...] from three flat JSON arrays (bytes) of as many numbers each; ValueError\n"
             "when they are not.");

static PyObject *interleave(PyObject *module, PyObject *args) {
    PyObject *columns[COLUMNS];
    if (!PyArg_ParseTuple(args, "SSS", &columns[0], &columns[1], &columns[2])) return NULL;
    /* bytes do not change, and the arguments hold them: read without the GIL. */
    const char *texts[COLUMNS];
    Py_ssize_t lengths[COLUMNS], counts[COLUMNS], numbers = 0;
    int flat = 1;
    for (int column = 0; column < COLUMNS; column++) {
        texts[column] = PyBytes_AsString(columns[column]);
        lengths[column] = PyBytes_Size(columns[column]);
    }
    Py_BEGIN_ALLOW_THREADS;
    for (int column = 0; column < COLUMNS && flat; column++) {
        flat = flat_array(texts[column], lengths[column], &counts[column]) && counts[column] == counts[0];
        numbers += lengths[column] - 2 - (flat && counts[column] ? counts[column] - 1 : 0);
    }
    Py_END_ALLOW_THREADS;
    if (!flat) {
        PyErr_SetString(PyExc_ValueError, "interleave() takes three flat JSON arrays of as many numbers each");
        return NULL;
    }
    const Py_ssize_t count = counts[0];
    /* The outer brackets; per row its brackets and two commas; a comma between rows. */
    const Py_ssize_t size = 2 + numbers + 4 * count + (count ? count - 1 : 0);
    PyObject *result = PyBytes_FromStringAndSize(NULL, size);
    if (result == NULL) return NULL;
    char *out = PyBytes_AsString(result);
    Py_BEGIN_ALLOW_THREADS;
    const char *next[COLUMNS];
    for (int column = 0; column < COLUMNS; column++) next[column] = texts[column] + 1;
    *out++ = '[';
    for (Py_ssize_t row = 0; row < count; row++) {
        if (row) *out++ = ',';
        *out++ = '[';
        for (int column = 0; column < COLUMNS; column++) {
            if (column) *out++ = ',';
            const char *end = next[column];
            while (*end != ',' && *end != ']') end++; /* every number ends so: flat_array checked it */
            memcpy(out, next[column], (size_t)(end - next[column]));
            out += end - next[column];
            next[column] = end + 1;
        }
        *out++ = ']';
    }
    *out++ = ']';
    Py_END_ALLOW_THREADS;
    return result;
}

static PyMethodDef methods[] = {
    {"interleave", interleave, METH_VARARGS, interleave_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "trainboard.http._rows", "Scalar rows as JSON (see rows.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__rows(void) { return PyModule_Create(&module_definition); }
