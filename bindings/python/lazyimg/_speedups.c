/* lazyimg._speedups: the calls a list makes every frame (request, lookup,
 * set_visible_range, set_scroll_state, frame_at, frame) and the Image handle, in C, so that a
 * memory hit from Python costs a C call and one allocation instead of the
 * argument conversions of ctypes. lazyimg/_pure.py is the same in Python and
 * is used when this module was not built (make check-python tests that one,
 * check-python-wheel this one).
 *
 * The library is not linked: lazyimg/_library.py has found and loaded it
 * (a wheel's own copy, LAZYIMG_LIBRARY, or the system's), and configure()
 * hands over the addresses of the functions used here, so both paths always
 * use the same library. The function types below are the header's;
 * tests/test_header_match.py compiles this file with -DLAZYIMG_CHECK_HEADER
 * against include/lazyimg.h to prove it.
 *
 * These calls keep the GIL: the header promises they never block, the
 * library holds its locks only briefly and never while it runs a callback
 * (so no thread it waits for needs the GIL), and releasing the GIL would
 * cost more than the call and hand it to any other Python thread that wants
 * it, for up to its switch interval (5 ms), on every call of a frame. Every
 * call that can wait (wait, dispatch, close, the disk cache's) goes through
 * ctypes and releases it. `make bench-python` measures both.
 *
 * Limited API (3.11): one build serves every later CPython (an abi3 wheel). */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lazyimg_loader lazyimg_loader;
typedef struct lazyimg_image lazyimg_image;

typedef int (*request_fn)(lazyimg_loader *, size_t, lazyimg_image **, uint64_t *);
typedef int (*lookup_fn)(lazyimg_loader *, size_t, lazyimg_image **);
typedef int (*visible_range_fn)(lazyimg_loader *, size_t, size_t);
/* lazyimg_scroll_state has no negative constant: its C type is unsigned. */
typedef int (*scroll_state_fn)(lazyimg_loader *, unsigned int, double);
typedef int (*frame_at_fn)(lazyimg_loader *, size_t, uint64_t, lazyimg_image **, uint32_t *, uint64_t *);
typedef int (*frame_fn)(lazyimg_loader *, size_t, uint32_t, lazyimg_image **);
typedef void (*release_fn)(lazyimg_image *);
typedef uint32_t (*image_u32_fn)(const lazyimg_image *);
typedef size_t (*image_size_fn)(const lazyimg_image *);
typedef int (*image_int_fn)(const lazyimg_image *);
/* lazyimg_pixel_format and lazyimg_codec: unsigned for the same reason. */
typedef unsigned int (*image_enum_fn)(const lazyimg_image *);

#ifdef LAZYIMG_CHECK_HEADER
#include "lazyimg.h"
/* Compiled with -Werror by the test: each initialiser is an incompatible
 * pointer type if the header's function differs from the type used here. */
static void check_header_types(void) {
    request_fn request = lazyimg_request;
    lookup_fn lookup = lazyimg_lookup;
    visible_range_fn visible = lazyimg_set_visible_range;
    visible_range_fn target = lazyimg_set_scroll_target;
    scroll_state_fn scroll = lazyimg_set_scroll_state;
    frame_at_fn frame_at = lazyimg_frame_at;
    frame_fn frame = lazyimg_frame;
    release_fn release = lazyimg_image_release;
    image_u32_fn width = lazyimg_image_width;
    image_size_fn stride = lazyimg_image_stride;
    image_int_fn animated = lazyimg_image_is_animated;
    image_enum_fn format = lazyimg_image_pixel_format;
    image_enum_fn codec = lazyimg_image_codec;
    (void)request, (void)lookup, (void)visible, (void)target, (void)scroll, (void)release;
    (void)frame_at, (void)frame;
    (void)width, (void)stride, (void)animated, (void)format, (void)codec;
}
#endif

/* What configure() set; NULL functions until then. */
static struct {
    request_fn request;
    lookup_fn lookup;
    visible_range_fn set_visible_range;
    scroll_state_fn set_scroll_state;
    frame_at_fn frame_at;
    frame_fn frame;
    release_fn release;
    image_u32_fn width, height, source_width, source_height;
    image_size_fn stride;
    image_int_fn is_animated;
    image_enum_fn pixel_format, codec;
    PyTypeObject *image_type; /* lazyimg.Image, a subclass of ImageBase */
    allocfunc image_alloc;
    PyObject *error_for;      /* status -> the LazyImgError to raise */
    PyObject *statuses;       /* tuple: Status members for 0, 1, 2, ... */
} api;

static PyTypeObject *request_result_type;
static PyTypeObject *frame_result_type;

/* ------------------------------------------------------------- errors */

static PyObject *raise_status(int status) {
    PyObject *error = PyObject_CallFunction(api.error_for, "i", status);
    if (error != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(error), error);
        Py_DECREF(error);
    }
    return NULL;
}

/* TypeError: "`name` must be `what`, not `type of value`". */
static void wrong_type(const char *name, const char *what, PyObject *value) {
    PyObject *type_name = PyType_GetName(Py_TYPE(value));
    if (type_name != NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be %s, not %U", name, what, type_name);
        Py_DECREF(type_name);
    }
}

/* An int for an unsigned C parameter, at most `max`: not negative, named in
 * the error. */
static int as_whole(PyObject *value, const char *name, unsigned long long max, unsigned long long *out) {
    if (PyLong_CheckExact(value)) {  /* the usual case, without a new reference */
        *out = PyLong_AsUnsignedLongLong(value);
        if ((*out != (unsigned long long)-1 || !PyErr_Occurred()) && *out <= max)
            return 0;
        PyErr_Clear();
    }
    PyObject *number = PyNumber_Index(value);
    if (number == NULL) {
        wrong_type(name, "an int", value);
        return -1;
    }
    *out = PyLong_AsUnsignedLongLong(number);
    int overflow = *out == (unsigned long long)-1 && PyErr_Occurred();
    if (overflow && !PyErr_ExceptionMatches(PyExc_OverflowError)) {
        Py_DECREF(number);
        return -1;
    }
    if (overflow || *out > max) {
        PyErr_Clear();
        PyObject *zero = PyLong_FromLong(0);
        int negative = zero == NULL ? -1 : PyObject_RichCompareBool(number, zero, Py_LT);
        Py_XDECREF(zero);
        if (negative == 1)
            PyErr_Format(PyExc_ValueError, "%s must not be negative, got %R", name, number);
        else if (negative == 0)
            PyErr_Format(PyExc_ValueError, "%s is too large: %R", name, number);
        Py_DECREF(number);
        return -1;
    }
    Py_DECREF(number);
    return 0;
}

/* A row or count as size_t. */
static int as_rows(PyObject *value, const char *name, size_t *out) {
    unsigned long long number;
    if (as_whole(value, name, SIZE_MAX, &number) < 0)
        return -1;
    *out = (size_t)number;
    return 0;
}

/* ------------------------------------------------------------ ImageBase */

typedef struct {
    PyObject_HEAD
    lazyimg_image *pointer; /* one reference, released with the object */
    PyObject *weakrefs;
} ImageBase;

static PyObject *wrap_image(lazyimg_image *image) {
    ImageBase *object = (ImageBase *)api.image_alloc(api.image_type, 0);
    if (object == NULL) {
        api.release(image);
        return NULL;
    }
    object->pointer = image;
    return (PyObject *)object;
}

static void image_dealloc(ImageBase *self) {
    PyTypeObject *type = Py_TYPE((PyObject *)self);
    if (self->weakrefs != NULL)
        PyObject_ClearWeakRefs((PyObject *)self);
    if (self->pointer != NULL) {
        lazyimg_image *pointer = self->pointer;
        self->pointer = NULL;
        api.release(pointer);
    }
    freefunc free_object = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_object(self);
    Py_DECREF(type);
}

#define IMAGE_GETTER(name, convert)                                        \
    static PyObject *image_##name(ImageBase *self, void *closure) {        \
        (void)closure;                                                     \
        return convert(api.name(self->pointer));                           \
    }
IMAGE_GETTER(width, PyLong_FromUnsignedLong)
IMAGE_GETTER(height, PyLong_FromUnsignedLong)
IMAGE_GETTER(source_width, PyLong_FromUnsignedLong)
IMAGE_GETTER(source_height, PyLong_FromUnsignedLong)
IMAGE_GETTER(stride, PyLong_FromSize_t)
IMAGE_GETTER(is_animated, PyBool_FromLong)
IMAGE_GETTER(pixel_format, PyLong_FromUnsignedLong)
IMAGE_GETTER(codec, PyLong_FromUnsignedLong)

static PyObject *image_pointer(ImageBase *self, void *closure) {
    (void)closure;
    return PyLong_FromVoidPtr(self->pointer);
}

static PyGetSetDef image_getset[] = {
    {"width", (getter)image_width, NULL, "Width in pixels after downsampling (0 for an encoded image).", NULL},
    {"height", (getter)image_height, NULL, "Height in pixels after downsampling (0 for an encoded image).", NULL},
    {"source_width", (getter)image_source_width, NULL, "Width in the file, upright (0 for an encoded image).", NULL},
    {"source_height", (getter)image_source_height, NULL, "Height in the file, upright (0 for an encoded image).", NULL},
    {"stride", (getter)image_stride, NULL, "Bytes from one row to the next (0 for an encoded image).", NULL},
    {"is_animated", (getter)image_is_animated, NULL, "True when the file holds more frames (these pixels are the first).", NULL},
    {"_pixel_format", (getter)image_pixel_format, NULL, NULL, NULL},
    {"_codec", (getter)image_codec, NULL, NULL, NULL},
    {"_pointer", (getter)image_pointer, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef image_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(ImageBase, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot image_slots[] = {
    {Py_tp_doc, "The lazyimg_image reference under lazyimg.Image (made only by the library's answers)."},
    {Py_tp_dealloc, image_dealloc},
    {Py_tp_getset, image_getset},
    {Py_tp_members, image_members},
    {0, NULL},
};

/* No tp_new: an Image cannot be made from Python, only from the library's
 * answers, so no Python code can hand it a pointer. */
static PyType_Spec image_spec = {
    "lazyimg._speedups.ImageBase", sizeof(ImageBase), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, image_slots,
};

/* ------------------------------------------------------------- results */

/* What RequestResult and FrameResult begin with. */
typedef struct {
    PyObject_HEAD
    PyObject *status; /* a Status */
    PyObject *image;  /* an Image or None */
} ResultHead;

typedef struct {
    ResultHead head;
    unsigned long long ticket;
} RequestResult;

typedef struct {
    ResultHead head;
    unsigned int index;
    PyObject *next_ms; /* an int or None */
} FrameResult;

/* The Status member (statuses[0] is Status.OK; Status(n) makes one for a
 * code newer than the binding). */
static PyObject *status_object(int status) {
    PyObject *ok = PyTuple_GetItem(api.statuses, 0);
    if (ok == NULL)
        return NULL;
    if (status >= 0 && status < PyTuple_Size(api.statuses)) {
        PyObject *member = PyTuple_GetItem(api.statuses, status);
        Py_XINCREF(member);
        return member;
    }
    return PyObject_CallFunction((PyObject *)Py_TYPE(ok), "i", status);
}

/* A new result of `type` with its status and `image` (taken over, also on
 * failure); the caller sets the rest. */
static ResultHead *alloc_result(PyTypeObject *type, int status, PyObject *image) {
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    ResultHead *result = (ResultHead *)alloc(type, 0);
    if (result == NULL) {
        Py_DECREF(image);
        return NULL;
    }
    result->image = image;
    result->status = status_object(status);
    if (result->status == NULL) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

static void free_result(ResultHead *self) {
    PyTypeObject *type = Py_TYPE((PyObject *)self);
    Py_XDECREF(self->status);
    Py_XDECREF(self->image);
    freefunc free_object = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_object(self);
    Py_DECREF(type);
}

/* The status's name for a repr (new reference). */
static PyObject *status_name(ResultHead *self) {
    PyObject *name = PyObject_GetAttrString(self->status, "name");
    if (name == NULL) {
        PyErr_Clear();
        name = PyObject_Str(self->status);
    }
    return name;
}

static PyObject *make_result(int status, PyObject *image, uint64_t ticket) {
    RequestResult *result = (RequestResult *)alloc_result(request_result_type, status, image);
    if (result != NULL)
        result->ticket = ticket;
    return (PyObject *)result;
}

static void result_dealloc(RequestResult *self) {
    free_result(&self->head);
}

static PyObject *result_repr(RequestResult *self) {
    PyObject *name = status_name(&self->head);
    if (name == NULL)
        return NULL;
    PyObject *text = PyUnicode_FromFormat("<lazyimg.RequestResult %U image=%R ticket=%llu>", name,
                                          self->head.image, self->ticket);
    Py_DECREF(name);
    return text;
}

static PyMemberDef result_members[] = {
    {"status", T_OBJECT_EX, offsetof(RequestResult, head.status), READONLY,
     "Status.OK (image set), PENDING or DEFERRED (ticket set), or PLACEHOLDER\n"
     "(both: the drawn placeholder, and the ticket that brings the image)."},
    {"image", T_OBJECT_EX, offsetof(RequestResult, head.image), READONLY, "The Image for OK, the placeholder for PLACEHOLDER, else None."},
    {"ticket", T_ULONGLONG, offsetof(RequestResult, ticket), READONLY,
     "The ticket whose one event follows PENDING, DEFERRED or PLACEHOLDER, else 0."},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot result_slots[] = {
    {Py_tp_doc, "What Loader.request answered: OK with image, or PENDING / DEFERRED\n"
                "with the ticket whose one event follows, or PLACEHOLDER with both."},
    {Py_tp_dealloc, result_dealloc},
    {Py_tp_repr, result_repr},
    {Py_tp_members, result_members},
    {0, NULL},
};

static PyType_Spec result_spec = {
    "lazyimg.RequestResult", sizeof(RequestResult), 0, Py_TPFLAGS_DEFAULT, result_slots,
};

/* ---------------------------------------------------------- FrameResult */

/* Takes over `image` (an Image or None); next_ms None unless `has_next` and
 * not UINT64_MAX. */
static PyObject *make_frame_result(int status, PyObject *image, uint32_t index, uint64_t next_ms, int has_next) {
    FrameResult *result = (FrameResult *)alloc_result(frame_result_type, status, image);
    if (result == NULL)
        return NULL;
    result->index = index;
    if (has_next && next_ms != UINT64_MAX) {
        result->next_ms = PyLong_FromUnsignedLongLong(next_ms);
    } else {
        Py_INCREF(Py_None);
        result->next_ms = Py_None;
    }
    if (result->next_ms == NULL) {
        Py_DECREF(result);
        return NULL;
    }
    return (PyObject *)result;
}

static void frame_result_dealloc(FrameResult *self) {
    Py_XDECREF(self->next_ms);
    free_result(&self->head);
}

static PyObject *frame_result_repr(FrameResult *self) {
    PyObject *name = status_name(&self->head);
    if (name == NULL)
        return NULL;
    PyObject *text = PyUnicode_FromFormat("<lazyimg.FrameResult %U image=%R index=%u next_ms=%R>", name,
                                          self->head.image, self->index, self->next_ms);
    Py_DECREF(name);
    return text;
}

static PyMemberDef frame_result_members[] = {
    {"status", T_OBJECT_EX, offsetof(FrameResult, head.status), READONLY, "Status.OK (image set), NOT_YET or MISS."},
    {"image", T_OBJECT_EX, offsetof(FrameResult, head.image), READONLY, "The frame's Image for OK, else None."},
    {"index", T_UINT, offsetof(FrameResult, index), READONLY,
     "The frame's index (0 is the first), also for NOT_YET."},
    {"next_ms", T_OBJECT_EX, offsetof(FrameResult, next_ms), READONLY,
     "frame_at: when the next frame is due, on the caller's clock; None\n"
     "for a still, once the last play has ended, and for frame()."},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot frame_result_slots[] = {
    {Py_tp_doc, "What Loader.frame_at or Loader.frame answered: OK with the frame's\n"
                "image, NOT_YET while a decode thread makes it (keep showing the last\n"
                "frame, ask again), or MISS when the row's image is not in memory\n"
                "(request it again)."},
    {Py_tp_dealloc, frame_result_dealloc},
    {Py_tp_repr, frame_result_repr},
    {Py_tp_members, frame_result_members},
    {0, NULL},
};

static PyType_Spec frame_result_spec = {
    "lazyimg.FrameResult", sizeof(FrameResult), 0, Py_TPFLAGS_DEFAULT, frame_result_slots,
};

/* ----------------------------------------------------------- LoaderBase */

typedef struct {
    PyObject_HEAD
    unsigned long long handle; /* the lazyimg_loader *; 0 once closed or inherited by fork */
} LoaderBase;

static lazyimg_loader *loader_handle(LoaderBase *self) {
    if (self->handle == 0) {
        /* Loader._closed_error says closed or inherited across fork(). */
        PyObject *error = PyObject_CallMethod((PyObject *)self, "_closed_error", NULL);
        if (error != NULL) {
            PyErr_SetObject((PyObject *)Py_TYPE(error), error);
            Py_DECREF(error);
        }
        return NULL;
    }
    return (lazyimg_loader *)(uintptr_t)self->handle;
}

/* An Image for `image`, or None for NULL. */
static PyObject *image_or_none(lazyimg_image *image) {
    if (image == NULL) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    return wrap_image(image);
}

static PyObject *loader_request(LoaderBase *self, PyObject *arg) {
    lazyimg_loader *loader = loader_handle(self);
    size_t row;
    if (loader == NULL || as_rows(arg, "row", &row) < 0)
        return NULL;
    lazyimg_image *image = NULL;
    uint64_t ticket = 0;
    int status = api.request(loader, row, &image, &ticket);
    if (status < 0)
        return raise_status(status);
    PyObject *wrapped = image_or_none(image);
    return wrapped == NULL ? NULL : make_result(status, wrapped, ticket);
}

static PyObject *loader_lookup(LoaderBase *self, PyObject *arg) {
    lazyimg_loader *loader = loader_handle(self);
    size_t row;
    if (loader == NULL || as_rows(arg, "row", &row) < 0)
        return NULL;
    lazyimg_image *image = NULL;
    int status = api.lookup(loader, row, &image);
    if (status < 0)
        return raise_status(status);
    if (image == NULL)
        Py_RETURN_NONE;
    return wrap_image(image);
}

/* Positional or keyword arguments of a fast call, by name: args[i] for the
 * i-th name, NULL when not given. */
static int parse_arguments(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *function,
                           const char *const *names, Py_ssize_t count, Py_ssize_t required, PyObject **out) {
    if (nargs > count) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd arguments (%zd given)", function, count, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        out[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t keywords = kwnames == NULL ? 0 : PyTuple_Size(kwnames);
    for (Py_ssize_t k = 0; k < keywords; k++) {
        PyObject *key = PyTuple_GetItem(kwnames, k);
        Py_ssize_t i = 0;
        while (i < count && PyUnicode_CompareWithASCIIString(key, names[i]) != 0)
            i++;
        if (i == count || out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, i == count ? "%s() got an unexpected keyword argument %R"
                                                     : "%s() got multiple values for argument %R",
                         function, key);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (Py_ssize_t i = 0; i < required; i++) {
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", function, names[i]);
            return -1;
        }
    }
    return 0;
}

static PyObject *loader_set_visible_range(LoaderBase *self, PyObject *const *args, Py_ssize_t nargs,
                                          PyObject *kwnames) {
    static const char *const names[] = {"first", "count"};
    PyObject *given[2];
    size_t first, count;
    lazyimg_loader *loader = loader_handle(self);
    if (loader == NULL || parse_arguments(args, nargs, kwnames, "set_visible_range", names, 2, 2, given) < 0 ||
        as_rows(given[0], "first", &first) < 0 || as_rows(given[1], "count", &count) < 0)
        return NULL;
    int status = api.set_visible_range(loader, first, count);
    if (status < 0)
        return raise_status(status);
    Py_RETURN_NONE;
}

static PyObject *loader_set_scroll_state(LoaderBase *self, PyObject *const *args, Py_ssize_t nargs,
                                         PyObject *kwnames) {
    static const char *const names[] = {"state", "velocity_rows_per_second"};
    PyObject *given[2];
    lazyimg_loader *loader = loader_handle(self);
    if (loader == NULL || parse_arguments(args, nargs, kwnames, "set_scroll_state", names, 2, 1, given) < 0)
        return NULL;
    long state = PyLong_Check(given[0]) ? PyLong_AsLong(given[0]) : -1;
    if (PyErr_Occurred())
        PyErr_Clear();
    if (state < 0 || state > 2) {
        PyErr_Format(PyExc_ValueError, "state must be a ScrollState (IDLE, DRAGGING or DECELERATING), got %R",
                     given[0]);
        return NULL;
    }
    double velocity = 0.0;
    if (given[1] != NULL) {
        velocity = PyFloat_AsDouble(given[1]);
        if (velocity == -1.0 && PyErr_Occurred()) {
            wrong_type("velocity_rows_per_second", "a number", given[1]);
            return NULL;
        }
        if (velocity != velocity) {
            PyErr_SetString(PyExc_ValueError, "velocity_rows_per_second must be a number, got nan");
            return NULL;
        }
    }
    int status = api.set_scroll_state(loader, (unsigned int)state, velocity);
    if (status < 0)
        return raise_status(status);
    Py_RETURN_NONE;
}

static PyObject *loader_frame_at(LoaderBase *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"row", "time_ms"};
    PyObject *given[2];
    size_t row;
    unsigned long long time_ms;
    lazyimg_loader *loader = loader_handle(self);
    if (loader == NULL || parse_arguments(args, nargs, kwnames, "frame_at", names, 2, 2, given) < 0 ||
        as_rows(given[0], "row", &row) < 0 || as_whole(given[1], "time_ms", UINT64_MAX, &time_ms) < 0)
        return NULL;
    lazyimg_image *image = NULL;
    uint32_t index = 0;
    uint64_t next_ms = UINT64_MAX;
    int status = api.frame_at(loader, row, time_ms, &image, &index, &next_ms);
    if (status < 0)
        return raise_status(status);
    PyObject *wrapped = image_or_none(image);
    return wrapped == NULL ? NULL : make_frame_result(status, wrapped, index, next_ms, 1);
}

static PyObject *loader_frame(LoaderBase *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"row", "index"};
    PyObject *given[2];
    size_t row;
    unsigned long long index;
    lazyimg_loader *loader = loader_handle(self);
    if (loader == NULL || parse_arguments(args, nargs, kwnames, "frame", names, 2, 2, given) < 0 ||
        as_rows(given[0], "row", &row) < 0 || as_whole(given[1], "index", UINT64_MAX, &index) < 0)
        return NULL;
    if (index > UINT32_MAX) /* past any animation's last frame (at most 65,536) */
        return raise_status(-2);
    lazyimg_image *image = NULL;
    int status = api.frame(loader, row, (uint32_t)index, &image);
    if (status < 0)
        return raise_status(status);
    PyObject *wrapped = image_or_none(image);
    return wrapped == NULL ? NULL : make_frame_result(status, wrapped, (uint32_t)index, 0, 0);
}

PyDoc_STRVAR(request_doc,
    "request($self, row, /)\n"
    "--\n"
    "\n"
    "lazyimg_request, the cellForRow call; never blocks. A RequestResult:\n"
    "status OK with its Image from memory, or PENDING / DEFERRED (held back\n"
    "while the list moves fast) with the ticket whose one event (IMAGE or\n"
    "FAILED) follows; PLACEHOLDER when the row has a placeholder hash (see\n"
    "set_placeholders): the drawn placeholder as image, and the ticket.\n"
    "Raises OutOfRangeError, NoImageError (a None row),\n"
    "BadURLError, or the error of a URL that failed less than retry_after_ms\n"
    "ago.");

PyDoc_STRVAR(lookup_doc,
    "lookup($self, row, /)\n"
    "--\n"
    "\n"
    "lazyimg_lookup: the Image in memory for `row`, or None. Never\n"
    "schedules anything.");

PyDoc_STRVAR(set_visible_range_doc,
    "set_visible_range($self, first, count)\n"
    "--\n"
    "\n"
    "lazyimg_set_visible_range: rows first .. first+count-1 are on screen\n"
    "(clamped to the list). Work for rows that left the visible range, the\n"
    "landing zone and the prefetch window is cancelled (their tickets end\n"
    "CANCELLED). Call it when the range changes.");

PyDoc_STRVAR(set_scroll_state_doc,
    "set_scroll_state($self, state, velocity_rows_per_second=0.0)\n"
    "--\n"
    "\n"
    "lazyimg_set_scroll_state: the list's scroll state (a ScrollState) and\n"
    "speed in rows per second (positive = towards higher rows); call it every\n"
    "frame while the list moves. Moving faster than\n"
    "slow_scroll_rows_per_second, new rows answer DEFERRED; IDLE loads.");

PyDoc_STRVAR(frame_at_doc,
    "frame_at($self, row, time_ms)\n"
    "--\n"
    "\n"
    "lazyimg_frame_at: the frame of the row's animation shown `time_ms`\n"
    "milliseconds after the caller started playing it (its own clock);\n"
    "never blocks. A FrameResult: OK with the frame (a still image is its\n"
    "own frame at any time), NOT_YET while it is decoded (no event\n"
    "follows: ask again on the next frame), or MISS when the row's image\n"
    "is not in memory; with the frame's index and when the next is due.\n"
    "Raises OutOfRangeError, NoImageError (a None row), ValueError for a\n"
    "negative time_ms.");

PyDoc_STRVAR(frame_doc,
    "frame($self, row, index)\n"
    "--\n"
    "\n"
    "lazyimg_frame: frame `index` of the row's animation (0 is the\n"
    "first, also of a still image), as frame_at answers it; next_ms is\n"
    "None. Raises OutOfRangeError for a row past the list or a frame past\n"
    "the last, NoImageError (a None row).");

static PyMethodDef loader_methods[] = {
    {"request", (PyCFunction)(void (*)(void))loader_request, METH_O, request_doc},
    {"lookup", (PyCFunction)(void (*)(void))loader_lookup, METH_O, lookup_doc},
    {"set_visible_range", (PyCFunction)(void (*)(void))loader_set_visible_range, METH_FASTCALL | METH_KEYWORDS, set_visible_range_doc},
    {"set_scroll_state", (PyCFunction)(void (*)(void))loader_set_scroll_state, METH_FASTCALL | METH_KEYWORDS, set_scroll_state_doc},
    {"frame_at", (PyCFunction)(void (*)(void))loader_frame_at, METH_FASTCALL | METH_KEYWORDS, frame_at_doc},
    {"frame", (PyCFunction)(void (*)(void))loader_frame, METH_FASTCALL | METH_KEYWORDS, frame_doc},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef loader_members[] = {
    {"_handle", T_ULONGLONG, offsetof(LoaderBase, handle), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot loader_slots[] = {
    {Py_tp_doc, "The per-frame calls of lazyimg.Loader, in C."},
    {Py_tp_methods, loader_methods},
    {Py_tp_members, loader_members},
    {Py_tp_new, PyType_GenericNew},
    {0, NULL},
};

static PyType_Spec loader_spec = {
    "lazyimg._speedups.LoaderBase", sizeof(LoaderBase), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    loader_slots,
};

/* --------------------------------------------------------------- module */

static int function_address(PyObject *functions, const char *name, void **out) {
    PyObject *address = PyMapping_GetItemString(functions, name);
    if (address == NULL)
        return -1;
    *out = PyLong_AsVoidPtr(address);
    Py_DECREF(address);
    if (*out == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "configure: no address for %s", name);
        return -1;
    }
    return 0;
}

static PyObject *configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4 || !PyType_Check(args[1]) || !PyTuple_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "configure(functions, image_type, error_for, statuses)");
        return NULL;
    }
    struct {
        const char *name;
        void **slot;
    } functions[] = {
        {"lazyimg_request", (void **)&api.request},
        {"lazyimg_lookup", (void **)&api.lookup},
        {"lazyimg_set_visible_range", (void **)&api.set_visible_range},
        {"lazyimg_set_scroll_state", (void **)&api.set_scroll_state},
        {"lazyimg_frame_at", (void **)&api.frame_at},
        {"lazyimg_frame", (void **)&api.frame},
        {"lazyimg_image_release", (void **)&api.release},
        {"lazyimg_image_width", (void **)&api.width},
        {"lazyimg_image_height", (void **)&api.height},
        {"lazyimg_image_source_width", (void **)&api.source_width},
        {"lazyimg_image_source_height", (void **)&api.source_height},
        {"lazyimg_image_stride", (void **)&api.stride},
        {"lazyimg_image_is_animated", (void **)&api.is_animated},
        {"lazyimg_image_pixel_format", (void **)&api.pixel_format},
        {"lazyimg_image_codec", (void **)&api.codec},
    };
    for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
        if (function_address(args[0], functions[i].name, functions[i].slot) < 0)
            return NULL;
    }
    Py_INCREF(args[1]);
    Py_INCREF(args[2]);
    Py_INCREF(args[3]);
    Py_XDECREF((PyObject *)api.image_type);
    Py_XDECREF(api.error_for);
    Py_XDECREF(api.statuses);
    api.image_type = (PyTypeObject *)args[1];
    api.error_for = args[2];
    api.statuses = args[3];
    api.image_alloc = (allocfunc)PyType_GetSlot(api.image_type, Py_tp_alloc);
    Py_RETURN_NONE;
}

static PyObject *wrap(PyObject *module, PyObject *arg) {
    (void)module;
    lazyimg_image *pointer = PyLong_AsVoidPtr(arg);
    if (pointer == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "NULL lazyimg_image");
        return NULL;
    }
    return wrap_image(pointer);
}

static PyMethodDef module_methods[] = {
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "configure(functions, image_type, error_for, statuses): the library's function addresses by name, "
     "the Image class to make, the callable turning a status into its exception, and the Status members "
     "by value."},
    {"wrap", wrap, METH_O, "wrap(pointer): an Image taking over one lazyimg_image reference."},
    {NULL, NULL, 0, NULL},
};

static int add_type(PyObject *module, PyType_Spec *spec, const char *name, PyTypeObject **out) {
    PyObject *type = PyType_FromSpec(spec);
    if (type == NULL)
        return -1;
    if (out != NULL) {
        Py_INCREF(type);
        *out = (PyTypeObject *)type;
    }
    return PyModule_AddObject(module, name, type) < 0 ? (Py_DECREF(type), -1) : 0;
}

static int module_exec(PyObject *module) {
    if (add_type(module, &image_spec, "ImageBase", NULL) < 0 ||
        add_type(module, &loader_spec, "LoaderBase", NULL) < 0 ||
        add_type(module, &result_spec, "RequestResult", &request_result_type) < 0 ||
        add_type(module, &frame_result_spec, "FrameResult", &frame_result_type) < 0)
        return -1;
    return 0;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "lazyimg._speedups",
    "The per-frame calls and the Image handle in C (see lazyimg/_pure.py for the same in Python).", 0,
    module_methods, module_slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    return PyModuleDef_Init(&module_def);
}
