/* The generic reader of codec.py, compiled: one walker over a program built from
 * the layout tables (layouts.py), never a routine per record.
 *
 * codec.py turns a (layout, version) into a nested tuple "program" and hands it to
 * compile(); the resulting capsule is walked by walk(program, buf, pos), which
 * returns (fields, pos) exactly as the pure-Python reader does: same values, same
 * key order, an error on exactly the same inputs (the message may be shorter: the
 * caller diagnoses errors with the Python reader). A differential test runs both
 * readers on every layout and version over random and corrupted bytes.
 *
 * Program of a struct: (flexible, names, ops, tagged, refused_tags) where
 *   names  tuple[str]                       field names in order
 *   ops    tuple[op]                        how each field is read (or defaulted)
 *   tagged tuple[(tag, index, op)]          fields read from the tagged section
 *   refused_tags tuple[int]                 tags valid only in other versions
 * and op = (kind, nullable, arg): see the K_* kinds below.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum {
    K_CONST = 0,   /* a default: arg, shared (immutable) */
    K_NEWLIST = 1, /* a default: a fresh empty list */
    K_COPY = 2,    /* a default: deepcopy(arg) */
    K_INT8 = 10, K_INT16 = 11, K_UINT16 = 12, K_INT32 = 13, K_INT64 = 14, K_FLOAT64 = 15,
    K_BOOL = 16, K_UUID = 17,
    K_STRING = 20, K_BYTES = 21,
    K_STRUCT = 22,        /* nullable: an int8 presence marker */
    K_TAGGED_STRUCT = 23, /* nullable: a varint presence marker (a tagged field) */
    K_ARRAY_FIXED = 30,   /* arg: the element kind (10..16) */
    K_ARRAY_STRING = 31, K_ARRAY_BYTES = 32, K_ARRAY_UUID = 33,
    K_ARRAY_STRUCT = 34,  /* arg: the element program */
};

typedef struct Spec Spec;

typedef struct {
    int kind;
    int nullable;
    int elem;        /* K_ARRAY_FIXED: element kind */
    PyObject *value; /* defaults */
    Spec *sub;       /* structs */
} Op;

struct Spec {
    int flexible;
    Py_ssize_t n;
    PyObject **names;
    Op *ops;
    Py_ssize_t ntagged;
    int32_t *tags;
    Py_ssize_t *tag_index;
    Op *tag_ops;
    Py_ssize_t nrefused;
    int32_t *refused;
};

static PyObject *DecodeError = NULL;
static PyObject *java_utf8 = NULL;
static PyObject *deepcopy = NULL;

typedef struct {
    const unsigned char *buf;
    Py_ssize_t len;
    Py_ssize_t pos;
} Cursor;

static void fail(const char *what) { PyErr_SetString(DecodeError ? DecodeError : PyExc_ValueError, what); }

/* -- program compilation ------------------------------------------------------ */

static void free_spec(Spec *s);

static void clear_op(Op *op) {
    Py_CLEAR(op->value);
    if (op->sub) {
        free_spec(op->sub);
        op->sub = NULL;
    }
}

static void free_spec(Spec *s) {
    if (!s)
        return;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        if (s->names)
            Py_XDECREF(s->names[i]);
        if (s->ops)
            clear_op(&s->ops[i]);
    }
    for (Py_ssize_t i = 0; i < s->ntagged; i++)
        if (s->tag_ops)
            clear_op(&s->tag_ops[i]);
    PyMem_Free(s->names);
    PyMem_Free(s->ops);
    PyMem_Free(s->tags);
    PyMem_Free(s->tag_index);
    PyMem_Free(s->tag_ops);
    PyMem_Free(s->refused);
    PyMem_Free(s);
}

static Spec *build_spec(PyObject *prog);

static int build_op(PyObject *t, Op *op) {
    int kind, nullable;
    PyObject *arg;
    if (!PyArg_ParseTuple(t, "iiO", &kind, &nullable, &arg))
        return -1;
    op->kind = kind;
    op->nullable = nullable;
    if (kind == K_CONST || kind == K_COPY) {
        Py_INCREF(arg);
        op->value = arg;
    } else if (kind == K_STRUCT || kind == K_TAGGED_STRUCT || kind == K_ARRAY_STRUCT) {
        op->sub = build_spec(arg);
        if (!op->sub)
            return -1;
    } else if (kind == K_ARRAY_FIXED) {
        op->elem = (int)PyLong_AsLong(arg);
        if (op->elem == -1 && PyErr_Occurred())
            return -1;
        if (op->elem < K_INT8 || op->elem > K_BOOL) {
            PyErr_SetString(PyExc_ValueError, "bad fixed element kind");
            return -1;
        }
    } else if (!(kind == K_NEWLIST || (kind >= K_INT8 && kind <= K_UUID) || kind == K_STRING || kind == K_BYTES ||
                 kind == K_ARRAY_STRING || kind == K_ARRAY_BYTES || kind == K_ARRAY_UUID)) {
        PyErr_Format(PyExc_ValueError, "unknown op kind %d", kind);
        return -1;
    }
    return 0;
}

static Spec *build_spec(PyObject *prog) {
    int flexible;
    PyObject *names, *ops, *tagged, *refused;
    if (!PyArg_ParseTuple(prog, "pO!O!O!O!", &flexible, &PyTuple_Type, &names, &PyTuple_Type, &ops,
                          &PyTuple_Type, &tagged, &PyTuple_Type, &refused))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    if (PyTuple_GET_SIZE(ops) != n) {
        PyErr_SetString(PyExc_ValueError, "names and ops differ in length");
        return NULL;
    }
    Spec *s = PyMem_Calloc(1, sizeof(Spec));
    if (!s)
        return (Spec *)PyErr_NoMemory();
    s->flexible = flexible;
    s->names = PyMem_Calloc(n ? n : 1, sizeof(PyObject *));
    s->ops = PyMem_Calloc(n ? n : 1, sizeof(Op));
    if (!s->names || !s->ops)
        goto nomem;
    s->n = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "field names must be str");
            goto error;
        }
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        s->names[i] = name;
        if (build_op(PyTuple_GET_ITEM(ops, i), &s->ops[i]) < 0)
            goto error;
    }
    Py_ssize_t nt = PyTuple_GET_SIZE(tagged);
    s->tags = PyMem_Calloc(nt ? nt : 1, sizeof(int32_t));
    s->tag_index = PyMem_Calloc(nt ? nt : 1, sizeof(Py_ssize_t));
    s->tag_ops = PyMem_Calloc(nt ? nt : 1, sizeof(Op));
    if (!s->tags || !s->tag_index || !s->tag_ops)
        goto nomem;
    s->ntagged = nt;
    for (Py_ssize_t i = 0; i < nt; i++) {
        int tag;
        Py_ssize_t index;
        PyObject *op;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(tagged, i), "inO", &tag, &index, &op))
            goto error;
        if (index < 0 || index >= n) {
            PyErr_SetString(PyExc_ValueError, "tagged field index out of range");
            goto error;
        }
        s->tags[i] = tag;
        s->tag_index[i] = index;
        if (build_op(op, &s->tag_ops[i]) < 0)
            goto error;
    }
    Py_ssize_t nr = PyTuple_GET_SIZE(refused);
    s->refused = PyMem_Calloc(nr ? nr : 1, sizeof(int32_t));
    if (!s->refused)
        goto nomem;
    s->nrefused = nr;
    for (Py_ssize_t i = 0; i < nr; i++) {
        long tag = PyLong_AsLong(PyTuple_GET_ITEM(refused, i));
        if (tag == -1 && PyErr_Occurred())
            goto error;
        s->refused[i] = (int32_t)tag;
    }
    return s;
nomem:
    PyErr_NoMemory();
error:
    free_spec(s);
    return NULL;
}

static void capsule_free(PyObject *capsule) { free_spec((Spec *)PyCapsule_GetPointer(capsule, "kgroup.walk")); }

static PyObject *walk_compile(PyObject *self, PyObject *prog) {
    Spec *s = build_spec(prog);
    if (!s)
        return NULL;
    PyObject *cap = PyCapsule_New(s, "kgroup.walk", capsule_free);
    if (!cap)
        free_spec(s);
    return cap;
}

/* -- primitives ----------------------------------------------------------------- */

/* Kafka's unsigned varint as Java reads it into an int (at most 5 bytes, wraps). */
static int read_uvarint(Cursor *c, int32_t *out) {
    uint64_t value = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
        if (c->pos >= c->len) {
            fail("truncated varint");
            return -1;
        }
        unsigned char b = c->buf[c->pos++];
        value |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *out = (int32_t)(uint32_t)(value & 0xFFFFFFFFu);
            return 0;
        }
    }
    fail("varint is too long");
    return -1;
}

static inline int need(Cursor *c, Py_ssize_t n) {
    if (n < 0 || c->len - c->pos < n) {
        fail("truncated");
        return -1;
    }
    return 0;
}

static inline uint16_t be16(const unsigned char *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t be32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint64_t be64(const unsigned char *p) { return ((uint64_t)be32(p) << 32) | be32(p + 4); }

/* A length: compact (varint - 1) when flexible, else int16 (strings) or int32. */
static int read_length(Cursor *c, int flexible, int wide, int32_t *n) {
    if (flexible) {
        int32_t v;
        if (read_uvarint(c, &v) < 0)
            return -1;
        *n = (int32_t)((uint32_t)v - 1u);
        return 0;
    }
    if (wide) {
        if (need(c, 4) < 0)
            return -1;
        *n = (int32_t)be32(c->buf + c->pos);
        c->pos += 4;
    } else {
        if (need(c, 2) < 0)
            return -1;
        *n = (int16_t)be16(c->buf + c->pos);
        c->pos += 2;
    }
    return 0;
}

static PyObject *fixed(Cursor *c, int kind) {
    const unsigned char *p;
    switch (kind) {
    case K_INT8:
    case K_BOOL:
        if (need(c, 1) < 0)
            return NULL;
        p = c->buf + c->pos;
        c->pos += 1;
        if (kind == K_BOOL)
            return PyBool_FromLong(p[0] != 0);
        return PyLong_FromLong((int8_t)p[0]);
    case K_INT16:
    case K_UINT16:
        if (need(c, 2) < 0)
            return NULL;
        p = c->buf + c->pos;
        c->pos += 2;
        return PyLong_FromLong(kind == K_INT16 ? (long)(int16_t)be16(p) : (long)be16(p));
    case K_INT32:
        if (need(c, 4) < 0)
            return NULL;
        p = c->buf + c->pos;
        c->pos += 4;
        return PyLong_FromLong((int32_t)be32(p));
    case K_INT64:
        if (need(c, 8) < 0)
            return NULL;
        p = c->buf + c->pos;
        c->pos += 8;
        return PyLong_FromLongLong((int64_t)be64(p));
    case K_FLOAT64: {
        if (need(c, 8) < 0)
            return NULL;
        p = c->buf + c->pos;
        c->pos += 8;
        uint64_t bits = be64(p);
        double d;
        memcpy(&d, &bits, sizeof d);
        return PyFloat_FromDouble(d);
    }
    }
    PyErr_SetString(PyExc_SystemError, "not a fixed kind");
    return NULL;
}

/* Kafka's Uuid.toString(): URL-safe base64 of the 16 bytes, unpadded (22 characters). */
static PyObject *uuid(Cursor *c) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    if (need(c, 16) < 0)
        return NULL;
    const unsigned char *p = c->buf + c->pos;
    c->pos += 16;
    char out[24];
    int o = 0;
    for (int i = 0; i < 15; i += 3) {
        uint32_t v = ((uint32_t)p[i] << 16) | ((uint32_t)p[i + 1] << 8) | p[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = alphabet[(v >> 6) & 63];
        out[o++] = alphabet[v & 63];
    }
    uint32_t v = (uint32_t)p[15] << 16;
    out[o++] = alphabet[(v >> 18) & 63];
    out[o++] = alphabet[(v >> 12) & 63];
    return PyUnicode_FromStringAndSize(out, o);
}

static inline int is_ascii(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w & 0x8080808080808080ull)
            return 0;
    }
    for (; i < n; i++)
        if (p[i] & 0x80)
            return 0;
    return 1;
}

/* A string (text) or bytes field. */
static PyObject *variable(Cursor *c, int flexible, int nullable, int text) {
    int32_t n;
    if (read_length(c, flexible, !text, &n) < 0)
        return NULL;
    if (n < 0) {
        if (nullable)
            Py_RETURN_NONE;
        fail("non-nullable field was serialized as null");
        return NULL;
    }
    if (text && n > 0x7FFF) {
        fail("string field had an invalid length");
        return NULL;
    }
    if (need(c, n) < 0)
        return NULL;
    const char *start = (const char *)c->buf + c->pos;
    c->pos += n;
    if (!text)
        return PyBytes_FromStringAndSize(start, n);
    PyObject *s;
    if (is_ascii((const unsigned char *)start, n)) {
        s = PyUnicode_New(n, 127);
        if (s)
            memcpy(PyUnicode_DATA(s), start, n);
        return s;
    }
    s = PyUnicode_DecodeUTF8(start, n, NULL);
    if (s || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
        return s;
    PyErr_Clear(); /* malformed: as Java's new String(bytes, UTF_8) */
    PyObject *raw = PyBytes_FromStringAndSize(start, n);
    if (!raw)
        return NULL;
    s = PyObject_CallOneArg(java_utf8, raw);
    Py_DECREF(raw);
    return s;
}

static PyObject *read_struct(Cursor *c, Spec *s);

static PyObject *array_length_or_null(Cursor *c, int flexible, int nullable, int32_t *n) {
    if (read_length(c, flexible, 1, n) < 0)
        return NULL;
    if (*n < 0) {
        if (nullable)
            Py_RETURN_NONE;
        fail("non-nullable array was serialized as null");
        return NULL;
    }
    if (*n > c->len - c->pos) {
        fail("array claims more elements than bytes remain");
        return NULL;
    }
    return Py_NewRef(Py_True); /* "go on" */
}

static PyObject *read_op(Cursor *c, Op *op, int flexible) {
    switch (op->kind) {
    case K_CONST:
        return Py_NewRef(op->value);
    case K_NEWLIST:
        return PyList_New(0);
    case K_COPY:
        return PyObject_CallOneArg(deepcopy, op->value);
    case K_INT8:
    case K_INT16:
    case K_UINT16:
    case K_INT32:
    case K_INT64:
    case K_FLOAT64:
    case K_BOOL:
        return fixed(c, op->kind);
    case K_UUID:
        return uuid(c);
    case K_STRING:
        return variable(c, flexible, op->nullable, 1);
    case K_BYTES:
        return variable(c, flexible, op->nullable, 0);
    case K_STRUCT:
        if (op->nullable) {
            if (need(c, 1) < 0)
                return NULL;
            int8_t marker = (int8_t)c->buf[c->pos++];
            if (marker < 0)
                Py_RETURN_NONE;
        }
        return read_struct(c, op->sub);
    case K_TAGGED_STRUCT:
        if (op->nullable) {
            int32_t marker;
            if (read_uvarint(c, &marker) < 0)
                return NULL;
            if (marker <= 0)
                Py_RETURN_NONE;
        }
        return read_struct(c, op->sub);
    case K_ARRAY_FIXED:
    case K_ARRAY_STRING:
    case K_ARRAY_BYTES:
    case K_ARRAY_UUID:
    case K_ARRAY_STRUCT: {
        int32_t n;
        PyObject *go = array_length_or_null(c, flexible, op->nullable, &n);
        if (go != Py_True)
            return go; /* None (null) or NULL (error) */
        Py_DECREF(go);
        PyObject *list = PyList_New(n);
        if (!list)
            return NULL;
        for (int32_t i = 0; i < n; i++) {
            PyObject *e;
            switch (op->kind) {
            case K_ARRAY_FIXED:
                e = fixed(c, op->elem);
                break;
            case K_ARRAY_STRING:
                e = variable(c, flexible, 0, 1);
                break;
            case K_ARRAY_BYTES:
                e = variable(c, flexible, 0, 0);
                break;
            case K_ARRAY_UUID:
                e = uuid(c);
                break;
            default:
                e = read_struct(c, op->sub);
            }
            if (!e) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, i, e);
        }
        return list;
    }
    }
    PyErr_Format(PyExc_SystemError, "unknown op kind %d", op->kind);
    return NULL;
}

#define SMALL 32

static PyObject *read_struct(Cursor *c, Spec *s) {
    PyObject *small[SMALL];
    PyObject **values = s->n <= SMALL ? small : PyMem_Calloc(s->n, sizeof(PyObject *));
    PyObject *result = NULL;
    Py_ssize_t filled = 0;
    if (!values)
        return PyErr_NoMemory();
    for (; filled < s->n; filled++) {
        PyObject *v = read_op(c, &s->ops[filled], s->flexible);
        if (!v)
            goto done;
        values[filled] = v;
    }
    if (s->flexible) {
        int32_t count;
        if (read_uvarint(c, &count) < 0)
            goto done;
        for (int32_t t = 0; t < count; t++) {
            int32_t tag, size;
            if (read_uvarint(c, &tag) < 0 || read_uvarint(c, &size) < 0)
                goto done;
            Py_ssize_t k;
            for (k = 0; k < s->ntagged; k++)
                if (s->tags[k] == tag)
                    break;
            if (k < s->ntagged) {
                PyObject *v = read_op(c, &s->tag_ops[k], 1);
                if (!v)
                    goto done;
                Py_SETREF(values[s->tag_index[k]], v);
                continue;
            }
            for (k = 0; k < s->nrefused; k++)
                if (s->refused[k] == tag) {
                    fail("tag is not valid for this version");
                    goto done;
                }
            if (size < 0 || c->len - c->pos < size) {
                fail("truncated in an unknown tagged field");
                goto done;
            }
            c->pos += size;
        }
    }
    result = _PyDict_NewPresized(s->n);
    if (!result)
        goto done;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        if (PyDict_SetItem(result, s->names[i], values[i]) < 0) {
            Py_CLEAR(result);
            goto done;
        }
    }
done:
    for (Py_ssize_t i = 0; i < filled; i++)
        Py_DECREF(values[i]);
    if (values != small)
        PyMem_Free(values);
    return result;
}

static PyObject *walk(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "walk(program, buf, pos)");
        return NULL;
    }
    Spec *s = PyCapsule_GetPointer(args[0], "kgroup.walk");
    if (!s)
        return NULL;
    Py_ssize_t pos = PyLong_AsSsize_t(args[2]);
    if (pos == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Cursor c = {(const unsigned char *)view.buf, view.len, pos};
    PyObject *out = NULL;
    if (pos < 0 || pos > view.len) {
        fail("truncated");
    } else {
        PyObject *fields = read_struct(&c, s);
        if (fields) {
            out = Py_BuildValue("(Nn)", fields, c.pos);
        }
    }
    PyBuffer_Release(&view);
    return out;
}

/* -- whole records: the key's type picks the key program, (type, version) the value's --- */

#define TYPES 64
#define VERSIONS 32
static PyObject *record_class = NULL; /* a tuple subclass: (type, key, version, value) */
static PyObject *resolver = NULL;     /* resolver(type, version or -1) -> program or None */
static PyObject *programs[TYPES][VERSIONS + 1]; /* [type][0]: key; [type][v + 1]: value v */

static Spec *program_for(int type, int version) {
    PyObject *prog = NULL;
    int cacheable = type >= 0 && type < TYPES && version >= -1 && version < VERSIONS;
    if (cacheable)
        prog = programs[type][version + 1];
    if (!prog) {
        prog = PyObject_CallFunction(resolver, "ii", type, version);
        if (!prog)
            return NULL;
        if (prog == Py_None) {
            Py_DECREF(prog);
            fail(version < 0 ? "unknown record type" : "unknown version of the record type");
            return NULL;
        }
        if (cacheable)
            programs[type][version + 1] = prog; /* kept for the life of the process */
        else
            Py_DECREF(prog); /* the resolver keeps its programs alive */
    }
    return PyCapsule_GetPointer(prog, "kgroup.walk");
}

static PyObject *read_part(Spec *s, PyObject *obj, Py_ssize_t *len, int16_t *head) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *out = NULL;
    if (view.len < 2) {
        fail("too short");
    } else {
        const unsigned char *p = view.buf;
        *head = (int16_t)be16(p);
        if (s) {
            Cursor c = {p, view.len, 2};
            out = read_struct(&c, s);
        } else {
            out = Py_NewRef(Py_None);
        }
    }
    *len = view.len;
    PyBuffer_Release(&view);
    return out;
}

static int16_t peek16(PyObject *obj, int *ok) {
    Py_buffer view;
    *ok = 0;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return 0;
    int16_t v = 0;
    if (view.len >= 2) {
        v = (int16_t)be16(view.buf);
        *ok = 1;
    } else {
        fail("too short");
    }
    PyBuffer_Release(&view);
    return v;
}

/* decode_record(key, value) -> record_class(type, key fields, version, value fields);
 * a tombstone (value None) has version and value None. */
static PyObject *decode_record(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "decode_record(key, value)");
        return NULL;
    }
    if (!record_class || !resolver) {
        PyErr_SetString(PyExc_RuntimeError, "the walker is not configured for records");
        return NULL;
    }
    PyObject *key = args[0], *value = args[1];
    if (key == Py_None) {
        fail("record without a key");
        return NULL;
    }
    int ok;
    int16_t type = peek16(key, &ok);
    if (!ok)
        return NULL;
    Spec *ks = program_for(type, -1);
    if (!ks)
        return NULL;
    Py_ssize_t len;
    int16_t head;
    PyObject *key_fields = read_part(ks, key, &len, &head);
    if (!key_fields)
        return NULL;
    PyObject *version = Py_None, *value_fields = Py_None;
    Py_INCREF(version);
    Py_INCREF(value_fields);
    if (value != Py_None) {
        int16_t v = peek16(value, &ok);
        if (ok && v < 0) {
            fail("unknown version of the record type");
            ok = 0;
        }
        Spec *vs = ok ? program_for(type, v) : NULL;
        PyObject *fields = vs ? read_part(vs, value, &len, &head) : NULL;
        if (!fields) {
            Py_DECREF(key_fields);
            Py_DECREF(version);
            Py_DECREF(value_fields);
            return NULL;
        }
        Py_SETREF(value_fields, fields);
        Py_SETREF(version, PyLong_FromLong(v));
    }
    PyTypeObject *cls = (PyTypeObject *)record_class;
    PyObject *rec = cls->tp_alloc(cls, 4);
    PyObject *t = PyLong_FromLong(type);
    if (!rec || !t || !version) {
        Py_XDECREF(rec);
        Py_XDECREF(t);
        Py_DECREF(key_fields);
        Py_XDECREF(version);
        Py_DECREF(value_fields);
        return NULL;
    }
    PyTuple_SET_ITEM(rec, 0, t);
    PyTuple_SET_ITEM(rec, 1, key_fields);
    PyTuple_SET_ITEM(rec, 2, version);
    PyTuple_SET_ITEM(rec, 3, value_fields);
    return rec;
}

static PyObject *configure_records(PyObject *self, PyObject *args) {
    PyObject *cls, *resolve;
    if (!PyArg_ParseTuple(args, "O!O", &PyType_Type, &cls, &resolve))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)cls, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "the record class must be a tuple subclass");
        return NULL;
    }
    Py_XSETREF(record_class, Py_NewRef(cls));
    Py_XSETREF(resolver, Py_NewRef(resolve));
    Py_RETURN_NONE;
}

static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *err, *utf8, *copy;
    if (!PyArg_ParseTuple(args, "OOO", &err, &utf8, &copy))
        return NULL;
    Py_XSETREF(DecodeError, Py_NewRef(err));
    Py_XSETREF(java_utf8, Py_NewRef(utf8));
    Py_XSETREF(deepcopy, Py_NewRef(copy));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS, "configure(DecodeError, java_utf8, deepcopy)"},
    {"compile", walk_compile, METH_O, "compile(program) -> a compiled program"},
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL, "walk(program, buf, pos) -> (fields, pos)"},
    {"configure_records", configure_records, METH_VARARGS, "configure_records(record_class, resolver)"},
    {"decode_record", (PyCFunction)(void (*)(void))decode_record, METH_FASTCALL,
     "decode_record(key, value) -> record_class(type, key, version, value)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_walk", "kgroup's compiled layout walker", -1, methods};

PyMODINIT_FUNC PyInit__walk(void) { return PyModule_Create(&module); }
