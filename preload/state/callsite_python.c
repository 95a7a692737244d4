#include "state/callsite_python.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "state/python_interps.h"

/* Where CPython keeps what is read, 64-bit, per version: offsets read
 * with offsetof from each version's headers (Include/cpython/pystate.h,
 * Include/internal/pycore_frame.h, Include/cpython/code.h,
 * Include/cpython/unicodeobject.h). The location table's format is the
 * same in both. 3.10 (Include/cpython/frameobject.h) keeps its frames as
 * objects linked from the thread state (ts_frame >= 0): frame_code and
 * frame_previous are PyFrameObject's f_code and f_back, frame_prev_instr
 * is f_lasti (an int, in code units, -1 before the first instruction),
 * code_qualname is co_name (3.10 has no co_qualname), and the line table
 * is 3.10's (line_of_310). Its CFrame (ts_cframe) has no current frame:
 * cframe_current is its `previous`, which each evaluation sets; the
 * thread state's own root CFrame (ts_root_cframe) leaves it unset (3.10's
 * init_threadstate: malloc'ed memory, not NULL), so python_interps.c
 * tells a thread state that runs nothing by its cframe being its root, in
 * every version. 3.13 (Include/internal/pycore_frame.h) has no CFrame: the
 * thread state points at its innermost frame (ts_current_frame), whose
 * f_executable (frame_code) is its code object, None in a C call's entry
 * frame (OWNED_BY_CSTACK), and whose instr_ptr (frame_prev_instr) is the
 * instruction running, the call, as 3.12's prev_instr is. 3.12 and later
 * make the thread state they swap in the thread's own
 * (PyGILState_GetThisThreadState answers it: pystate.c's tstate_activate),
 * and 3.13's list of interpreters is under a lock of another kind
 * (PyMutex): 3.13 reads that state, never the list (rt_* unused). */
struct layout {
    unsigned version;            /* (major << 8) | minor */
    int ts_frame;                /* 3.10: PyThreadState.frame; -1 in 3.11+ */
    int ts_cframe;               /* PyThreadState.cframe */
    int cframe_current;          /* _PyCFrame.current_frame */
    int frame_code, frame_previous, frame_prev_instr, frame_owner; /* _PyInterpreterFrame */
    int code_firstlineno, code_filename, code_qualname, code_linetable, code_firsttraceable;
    int code_adaptive;           /* PyCodeObject.co_code_adaptive: the instructions */
    int str_ascii_data;          /* sizeof(PyASCIIObject) */
    int str_utf8_length, str_utf8; /* PyCompactUnicodeObject */
    int str_compact_data;        /* sizeof(PyCompactUnicodeObject): a non-ASCII str's characters */
    /* Sub-interpreters (subinterpreters.c): _PyRuntimeState.interpreters
     * (.mutex, .head, .main), PyInterpreterState.next and .threads.head,
     * PyThreadState.next and .thread_id (Include/internal/pycore_runtime.h,
     * pycore_interp.h). */
    int rt_mutex, rt_head, rt_main, interp_next, interp_threads, ts_next, ts_thread_id;
    int ts_root_cframe;          /* PyThreadState.root_cframe */
    int ts_current_frame;        /* 3.13: PyThreadState.current_frame; -1 before */
};
static const struct layout layouts[] = {
    {0x030a, 24, 48, 8, 32, 24, 96, -1, 40, 104, 112, 120, 0, 0, 48, 48, 56, 72, 24, 32, 40, 0, 8, 8, 176, 264, -1},
    {0x030b, -1, 56, 8, 32, 48, 56, 69, 72, 112, 128, 136, 168, 184, 48, 48, 56, 72, 32, 40, 48, 0, 16, 8, 152, 336, -1},
    {0x030c, -1, 56, 0, 0, 8, 56, 70, 68, 112, 128, 136, 176, 192, 40, 40, 48, 56, 32, 40, 48, 0, 72, 8, 136, 272, -1},
    {0x030d, -1, -1, -1, 0, 8, 56, 70, 68, 112, 128, 136, 184, 200, 40, 40, 48, 56, -1, -1, -1, -1, -1, -1, -1, -1,
     72},
};
enum {
    OWNED_BY_GENERATOR = 1,
    OWNED_BY_CSTACK = 3,         /* 3.12: a C call's shim frame, no code of its own */
    BYTES_SIZE = 16,             /* PyVarObject.ob_size */
    BYTES_DATA = 32,             /* PyBytesObject.ob_sval */
    STR_LENGTH = 16,             /* PyASCIIObject.length */
    STR_STATE = 32,
};
#define MAX_WALK 64 /* frames looked at, innermost first */

typedef const char *(*get_tstate_fn)(void);
static get_tstate_fn get_tstate; /* PyGILState_GetThisThreadState */
static const struct layout *py;   /* the running CPython's */
static struct tap_py_frame *table; /* TAP_PY_CAPACITY entries; id 1 is entry 0 */
static _Atomic uint16_t slots[2 * TAP_PY_CAPACITY];
static _Atomic unsigned nframes;
static _Atomic uint64_t unread;
static bool on;

/* Finalization. CPython's Py_FinalizeEx frees the thread state of every
 * thread but its own (daemon threads, C threads that took a thread state)
 * while those threads may still be inside NCCL, reading their frames here:
 * a use after free, and a crash once the memory is reused or unmapped. So
 * a walk of another thread's frames happens only while a guard says the
 * interpreter is not finalizing: an `atexit` function of nccltap's, which
 * CPython calls before it frees any thread state, marks it finalizing and
 * waits for the walks under way (`walkers`) to end; a walk counts itself
 * in first, then looks at the mark (both sequentially consistent, so that
 * one of the two sees the other). The function is registered from the
 * interpreter's main thread, holding the GIL, by a pending call
 * (Py_AddPendingCall: any thread, no GIL) at the first NCCL call. Until it
 * is, only the main thread walks: the interpreter finalizes on it, so its
 * own frames live while it is in NCCL. */
enum { GUARD_NONE, GUARD_ARMED, GUARD_FINALIZING };
static _Atomic int guard;
static _Atomic unsigned walkers;
static __thread signed char main_thread __attribute__((tls_model("initial-exec"))); /* 0: not known yet */

typedef void *pyobj;
struct py_method_def { const char *name; pyobj (*fn)(pyobj, pyobj); int flags; const char *doc; };
enum { METH_NOARGS = 0x0004 };
static struct {
    int (*add_pending_call)(int (*)(void *), void *);
    pyobj (*import_module)(const char *);
    pyobj (*get_attr)(pyobj, const char *);
    pyobj (*new_cfunction)(struct py_method_def *, pyobj, pyobj);
    pyobj (*call)(pyobj, ...);
    void (*incref)(pyobj), (*decref)(pyobj), (*clear_error)(void);
    pyobj none;
} capi;

static pyobj on_finalize(pyobj self, pyobj unused)
{
    (void)self, (void)unused;
    atomic_store(&guard, GUARD_FINALIZING);
    while (atomic_load(&walkers))
        sched_yield();
    capi.incref(capi.none);
    return capi.none;
}

static struct py_method_def finalize_def = {"nccltap_python_finalizing", on_finalize, METH_NOARGS, NULL};

static void drop(pyobj o)
{
    if (o)
        capi.decref(o);
}

/* The pending call: atexit.register(on_finalize), in the main thread with
 * the GIL. An error leaves the guard unarmed (the main thread's own walks
 * only), never an exception behind. */
static int arm_guard(void *unused)
{
    (void)unused;
    pyobj atexit = capi.import_module("atexit");
    pyobj reg = atexit ? capi.get_attr(atexit, "register") : NULL;
    pyobj fn = reg ? capi.new_cfunction(&finalize_def, NULL, NULL) : NULL;
    pyobj r = fn ? capi.call(reg, fn, NULL) : NULL;
    if (r)
        atomic_store(&guard, GUARD_ARMED);
    else
        capi.clear_error();
    drop(r), drop(fn), drop(reg), drop(atexit);
    return 0;
}

static void ask_for_guard(void)
{
    void **fns[] = {(void **)&capi.add_pending_call, (void **)&capi.import_module, (void **)&capi.get_attr,
                    (void **)&capi.new_cfunction, (void **)&capi.call, (void **)&capi.incref,
                    (void **)&capi.decref, (void **)&capi.clear_error, &capi.none};
    static const char *const names[] = {"Py_AddPendingCall", "PyImport_ImportModule", "PyObject_GetAttrString",
                                        "PyCFunction_NewEx", "PyObject_CallFunctionObjArgs", "Py_IncRef",
                                        "Py_DecRef", "PyErr_Clear", "_Py_NoneStruct"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(*fns[i] = dlsym(RTLD_DEFAULT, names[i])))
            return;
    capi.add_pending_call(arm_guard, NULL);
}

/* Whether the calling thread is the process's first, where the
 * interpreter runs its main thread (once per thread: a syscall). */
static bool on_main_thread(void)
{
    if (!main_thread)
        main_thread = syscall(SYS_gettid) == getpid() ? 1 : -1;
    return main_thread > 0;
}

static struct tap_py_interp_layout interp_layout; /* the running CPython's, for python_interps.c */

/* The running CPython's (major << 8) | minor: Py_Version (3.11+), else
 * Py_GetVersion's "3.10.13 (main, ...)"; 0 where there is no CPython. */
static unsigned running_version(void)
{
    const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
    if (version)
        return (unsigned)(*version >> 16);
    const char *(*get_version)(void) = NULL;
    *(void **)&get_version = dlsym(RTLD_DEFAULT, "Py_GetVersion");
    const char *s = get_version ? get_version() : NULL;
    unsigned major = 0, minor = 0;
    for (; s && *s >= '0' && *s <= '9'; s++)
        major = major * 10 + (unsigned)(*s - '0');
    if (!s || *s++ != '.')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++)
        minor = minor * 10 + (unsigned)(*s - '0');
    return major < 256 && minor < 256 ? major << 8 | minor : 0;
}

/* Whether the running CPython is a free-threaded build (3.13t), whose
 * objects are laid out apart: its version string says so. */
static bool free_threaded(void)
{
    const char *(*get_version)(void) = NULL;
    *(void **)&get_version = dlsym(RTLD_DEFAULT, "Py_GetVersion");
    const char *s = get_version ? get_version() : NULL;
    return s && strstr(s, "free-threading") != NULL;
}

static void look(void)
{
    *(void **)&get_tstate = dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    unsigned version = get_tstate ? running_version() : 0;
    if (!version)
        return; /* no CPython */
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0] && sizeof(void *) == 8; i++)
        if (layouts[i].version == version)
            py = &layouts[i];
    if (py && free_threaded())
        py = NULL;
    if (!py) {
        tap_log("CPython %u.%u%s: call sites stay native (nccltap reads the frames of CPython 3.10 to 3.13, "
                "with the GIL)", version >> 8, version & 0xff, free_threaded() ? " (free-threaded)" : "");
        return;
    }
    struct tap_py_interp_layout *l = &interp_layout;
    *l = (struct tap_py_interp_layout){py->rt_mutex, py->rt_head, py->rt_main, py->interp_next, py->interp_threads,
                                       py->ts_next, py->ts_thread_id, py->ts_cframe, py->ts_root_cframe,
                                       py->cframe_current};
    if (py->ts_current_frame < 0)
        tap_py_interps_init(l);
    table = calloc(TAP_PY_CAPACITY, sizeof *table);
    if (!table)
        tap_log("no memory for the Python call-site table: call sites stay native");
    on = table != NULL;
    if (on)
        ask_for_guard();
}

bool tap_python_on(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, look);
    return on;
}

#define AT(p, off, type) (*(type const *)((const char *)(p) + (off)))

/* Code point `c` as UTF-8 at out[*n], if it fits before `cap` - 1. */
static bool put_utf8(char *out, size_t *n, size_t cap, uint32_t c)
{
    char b[4];
    size_t len = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (*n + len >= cap)
        return false;
    if (len == 1) {
        b[0] = (char)c;
    } else {
        for (size_t i = len - 1; i > 0; i--, c >>= 6)
            b[i] = (char)(0x80 | (c & 63));
        b[0] = (char)((0xf00u >> len) | c); /* 110xxxxx, 1110xxxx, 11110xxx */
    }
    memcpy(out + *n, b, len);
    *n += len;
    return true;
}

/* A str's text as UTF-8 where CPython has it (an ASCII str's own bytes,
 * else the UTF-8 it may keep), with its length in bytes; NULL if none. */
static const char *str_utf8(const char *s, size_t *n)
{
    if (AT(s, STR_STATE, uint32_t) >> 6 & 1) { /* ascii */
        *n = (size_t)AT(s, STR_LENGTH, int64_t);
        return s + py->str_ascii_data;
    }
    const char *utf8 = AT(s, py->str_utf8, const char *);
    *n = utf8 ? (size_t)AT(s, py->str_utf8_length, int64_t) : 0;
    return utf8;
}

/* A str object's text as UTF-8, cut to `cap` on a character boundary:
 * ASCII as it is, else CPython's UTF-8 of it where it keeps one, else its
 * characters (1, 2 or 4 bytes each) encoded here. False for a str that is
 * not compact (none that code objects hold). */
static bool copy_str(const char *s, char *out, size_t cap)
{
    uint32_t state = AT(s, STR_STATE, uint32_t);
    unsigned kind = state >> 2 & 7;
    bool compact = state >> 5 & 1;
    size_t length = (size_t)AT(s, STR_LENGTH, int64_t), n = 0;
    if (!compact)
        return false;
    const char *utf8 = str_utf8(s, &n);
    if (utf8) {
        if (n >= cap) {
            n = cap - 1;
            while (n > 0 && ((unsigned char)utf8[n] & 0xc0) == 0x80)
                n--;
        }
        memcpy(out, utf8, n);
    } else {
        const char *data = s + py->str_compact_data;
        if (kind != 1 && kind != 2 && kind != 4)
            return false;
        for (size_t i = 0; i < length; i++) {
            uint32_t c = kind == 1 ? ((const uint8_t *)data)[i]
                       : kind == 2 ? ((const uint16_t *)data)[i] : ((const uint32_t *)data)[i];
            if (!put_utf8(out, &n, cap, c))
                break;
        }
    }
    out[n] = '\0';
    return true;
}

static unsigned varint(const unsigned char **p, const unsigned char *end)
{
    unsigned b = *p < end ? *(*p)++ : 0, v = b & 63, shift = 0;
    while (b & 64 && *p < end && shift < 28) {
        b = *(*p)++;
        shift += 6;
        v |= (b & 63) << shift;
    }
    return v;
}

/* The line of instruction `lasti` (code units) from the location table
 * (Objects/locations.md): entries of (1 byte: 1, code:4, length-1:3) and
 * their data; codes 13 and 14 start with the line's delta (signed varint),
 * 10-12 are deltas 0-2, 15 no location. */
static int line_of(const char *code, int lasti)
{
    const char *bytes = AT(code, py->code_linetable, const char *);
    const unsigned char *p = (const unsigned char *)bytes + BYTES_DATA;
    const unsigned char *end = p + AT(bytes, BYTES_SIZE, int64_t);
    int line = AT(code, py->code_firstlineno, int), at = 0;
    while (p < end) {
        unsigned first = *p++, kind = first >> 3 & 15;
        int delta = 0;
        if (kind == 13 || kind == 14) {
            unsigned u = varint(&p, end);
            delta = u & 1 ? -(int)(u >> 1) : (int)(u >> 1);
        } else if (kind >= 10 && kind <= 12) {
            delta = (int)kind - 10;
        }
        line += delta;
        at += (int)(first & 7) + 1;
        if (lasti < at)
            return kind == 15 ? 0 : line;
        while (p < end && !(*p & 128))
            p++;
    }
    return 0;
}

/* 3.10's line of instruction `lasti` (code units; Objects/lnotab_notes.txt
 * and PyCode_Addr2Line of 3.10): the table is pairs of (bytes of code,
 * unsigned; line delta, signed, -128 for none), ranges of no code
 * skipped; before the first instruction, the first line. */
static int line_of_310(const char *code, int lasti)
{
    int line = AT(code, py->code_firstlineno, int);
    if (lasti < 0)
        return line;
    const char *bytes = AT(code, py->code_linetable, const char *);
    const unsigned char *p = (const unsigned char *)bytes + BYTES_DATA;
    const unsigned char *end = p + AT(bytes, BYTES_SIZE, int64_t);
    int addr = lasti * 2, start = 0, stop = 0, at_line = -1;
    while (stop <= addr) {
        do {
            if (end - p < 2)
                return 0;
            start = stop;
            stop += p[0];
            int delta = (signed char)p[1];
            p += 2;
            at_line = delta == -128 ? -1 : (line += delta);
        } while (start == stop);
    }
    return at_line < 0 ? 0 : at_line;
}

/* Whether `file` holds one of NCCLTAP_CALLSITE_PYTHON_SKIP's parts. */
static bool skipped_file(const char *file)
{
    for (const char *p = tap_config.python_skip; *p;) {
        size_t n = strcspn(p, ",");
        char part[256];
        if (n && n < sizeof part) {
            memcpy(part, p, n);
            part[n] = '\0';
            if (strstr(file, part))
                return true;
        }
        p += n + (p[n] == ',');
    }
    return false;
}

/* A code object's file name's length, as its str keeps it (characters). */
static int64_t file_len(const char *code)
{
    return AT(AT(code, py->code_filename, const char *), STR_LENGTH, int64_t);
}

/* Whether the str `s` still reads as the text copied into `copy` (ASCII:
 * byte for byte, up to what was kept; other text: by its UTF-8, where
 * CPython keeps one, else by length alone). */
static bool same_text(const char *s, const char *copy)
{
    size_t n, kept = strlen(copy);
    const char *utf8 = str_utf8(s, &n);
    return !utf8 || (n >= kept && memcmp(utf8, copy, kept) == 0);
}

/* Whether entry f is (code, lasti) of this code object, not of one freed
 * before it at the same address. */
static bool same_frame(const struct tap_py_frame *f, const char *code, int lasti)
{
    return f->code == code && f->lasti == lasti && f->qualname_obj == AT(code, py->code_qualname, const void *) &&
           f->firstlineno == AT(code, py->code_firstlineno, int) &&
           f->linetable_len == AT(AT(code, py->code_linetable, const char *), BYTES_SIZE, int64_t) &&
           f->file_len == file_len(code) && (f->unreadable || same_text(AT(code, py->code_filename, const char *), f->file));
}

static void fill(struct tap_py_frame *f, const char *code, int lasti)
{
    f->code = code;
    f->lasti = lasti;
    f->qualname_obj = AT(code, py->code_qualname, const void *);
    f->firstlineno = AT(code, py->code_firstlineno, int);
    f->linetable_len = AT(AT(code, py->code_linetable, const char *), BYTES_SIZE, int64_t);
    f->file_len = file_len(code);
    f->line = py->ts_frame >= 0 ? line_of_310(code, lasti) : line_of(code, lasti);
    f->unreadable = !copy_str(AT(code, py->code_filename, const char *), f->file, sizeof f->file) ||
                    !copy_str(AT(code, py->code_qualname, const char *), f->function, sizeof f->function);
    f->skipped = !f->unreadable && skipped_file(f->file);
}

static uint64_t hash(const void *code, int lasti)
{
    uint64_t h = ((uint64_t)(uintptr_t)code ^ (uint64_t)lasti * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    return h ^ h >> 32;
}

/* The id of (code, lasti), interned at its first sight (also when its
 * text cannot be read: then looked at once); 0 when the table is full.
 * As state/callsite.c's table. */
static uint16_t intern(const char *code, int lasti)
{
    unsigned mine = 0;
    for (unsigned i = (unsigned)hash(code, lasti) & (2 * TAP_PY_CAPACITY - 1), n = 0; n < 2 * TAP_PY_CAPACITY;
         i = (i + 1) & (2 * TAP_PY_CAPACITY - 1), n++) {
        uint16_t id = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (id == 0) {
            if (!mine) {
                mine = atomic_fetch_add_explicit(&nframes, 1, memory_order_relaxed) + 1;
                if (mine > TAP_PY_CAPACITY)
                    return 0;
                fill(&table[mine - 1], code, lasti);
            }
            if (atomic_compare_exchange_strong_explicit(&slots[i], &id, (uint16_t)mine, memory_order_release,
                                                        memory_order_acquire))
                return (uint16_t)mine;
        }
        if (same_frame(&table[id - 1], code, lasti))
            return id;
    }
    return 0;
}

/* Adds the frame (code, lasti) to out[*n], unless its file is skipped.
 * False where the walk ends: a frame that cannot be read. */
static bool take(const char *code, int lasti, uint16_t *out, unsigned *n)
{
    uint16_t id = intern(code, lasti);
    if (!id || table[id - 1].unreadable) {
        /* The innermost: the call stays native, counted; further out:
         * the site ends there. */
        if (*n == 0)
            atomic_fetch_add_explicit(&unread, 1, memory_order_relaxed);
        return false;
    }
    if (!table[id - 1].skipped)
        out[(*n)++] = id;
    return true;
}

/* 3.10's walk: the frame objects from the thread state's, outward. */
static unsigned walk_310(const char *ts, uint16_t *out, unsigned max)
{
    const char *frame = AT(ts, py->ts_frame, const char *);
    unsigned n = 0;
    for (int walked = 0; frame && n < max && walked < MAX_WALK;
         walked++, frame = AT(frame, py->frame_previous, const char *)) {
        int lasti = AT(frame, py->frame_prev_instr, int);
        if (lasti < 0)
            continue; /* not started yet: no line of its own */
        if (!take(AT(frame, py->frame_code, const char *), lasti, out, &n))
            return n;
    }
    return n;
}

/* The walk proper: the guard lets it read `ts`. */
static unsigned walk(const char *ts, uint16_t *out, unsigned max)
{
    if (py->ts_frame >= 0)
        return walk_310(ts, out, max);
    unsigned n = 0;
    const char *frame;
    if (py->ts_current_frame >= 0) {
        frame = AT(ts, py->ts_current_frame, const char *);
    } else {
        const char *cframe = AT(ts, py->ts_cframe, const char *);
        frame = cframe ? AT(cframe, py->cframe_current, const char *) : NULL;
    }
    for (int walked = 0; frame && n < max && walked < MAX_WALK;
         walked++, frame = AT(frame, py->frame_previous, const char *)) {
        char owner = AT(frame, py->frame_owner, char);
        if (owner == OWNED_BY_CSTACK)
            continue;
        const char *code = AT(frame, py->frame_code, const char *);
        const uint16_t *first = (const uint16_t *)(code + py->code_adaptive);
        const uint16_t *instr = AT(frame, py->frame_prev_instr, const uint16_t *);
        /* Not started yet (_PyFrame_IsIncomplete): no line of its own. */
        if (owner != OWNED_BY_GENERATOR && instr < first + AT(code, py->code_firsttraceable, int))
            continue;
        if (!take(code, (int)(instr - first), out, &n))
            return n;
    }
    return n;
}

/* The walk of the thread state that runs on this thread: its first one,
 * unless the process has sub-interpreters (python_interps.h); not known
 * (CPython's lock held): the call stays native, counted. */
static unsigned walk_running(const char *ts, uint16_t *out, unsigned max)
{
    if (!tap_py_one_interpreter() && !(ts = tap_py_running_state(ts))) {
        atomic_fetch_add_explicit(&unread, 1, memory_order_relaxed);
        return 0;
    }
    return walk(ts, out, max);
}

unsigned tap_python_sites(uint16_t *out, unsigned max)
{
    const char *ts = get_tstate();
    if (!ts)
        return 0; /* no interpreter on this thread */
    int g = atomic_load(&guard);
    if (g == GUARD_NONE && on_main_thread())
        return walk_running(ts, out, max);
    unsigned n = 0;
    atomic_fetch_add(&walkers, 1);
    if (atomic_load(&guard) == GUARD_ARMED)
        n = walk_running(ts, out, max);
    else
        atomic_fetch_add_explicit(&unread, 1, memory_order_relaxed); /* not yet guarded, or finalizing */
    atomic_fetch_sub_explicit(&walkers, 1, memory_order_release);
    return n;
}

const struct tap_py_frame *tap_python_frame(uint16_t id) { return &table[id - 1]; }

uint64_t tap_python_unread(void) { return atomic_load_explicit(&unread, memory_order_relaxed); }
