/* Python call sites: the line of Python that made an NCCL call, when the
 * calling thread runs a CPython interpreter. CPython is found at run time
 * in the process (Py_Version, PyGILState_GetThisThreadState), never
 * linked; CPython 3.10 to 3.13 with the GIL are read (their frame and code
 * layouts are compiled in), any other version or build leaves call sites
 * native (said once).
 *
 * The calling thread reads its own frames: it is inside the NCCL call, so
 * they cannot change while it reads (ctypes and PyTorch release the GIL
 * around the call; nccltap never takes it). The innermost frame that has
 * started running and is not in a skipped framework (a file under a
 * "torch" directory) is the site's, with the frames above it as deep as
 * the site's native frames. Each (code object, instruction) is
 * interned once, its file, line and function copied then, into a table
 * of fixed size allocated at the first call: later calls from the same
 * line cost a walk of the frames to it and a table lookup, no allocation,
 * no lock. A frame that cannot be read (the table full, a str of a kind
 * CPython 3.10 to 3.13 do not make) leaves the call at its native site,
 * counted. */
#ifndef NCCLTAP_CALLSITE_PYTHON_H
#define NCCLTAP_CALLSITE_PYTHON_H

#include <stdbool.h>
#include <stdint.h>

#define TAP_PY_CAPACITY 4096

struct tap_py_frame {
    const void *code;      /* the code object and instruction: the key ... */
    int lasti;
    /* ... with what tells the code object from one freed before it at the
     * same address (exec, a module's top level after import): its function
     * name's object, first line, line table's length and file name's text
     * (its length as CPython keeps it). */
    const void *qualname_obj;
    int firstlineno;
    int64_t linetable_len, file_len;
    int line;              /* 0 when the code has no line there */
    bool skipped;          /* in a framework: the frame above is looked at */
    bool unreadable;       /* its text could not be read: its calls stay native, counted */
    char file[256];        /* co_filename, cut to fit */
    char function[128];    /* co_qualname, cut to fit */
};

/* Whether a CPython it reads runs in this process; looks once, at the
 * first NCCL call (thread-safe). */
bool tap_python_on(void);

/* The ids (1.. TAP_PY_CAPACITY) of the calling thread's Python frames
 * outside the frameworks, innermost first, at most `max`, into out;
 * returns how many: 0 when it has none (a thread with no interpreter
 * frame: the site is native). Any thread; lock-free; no allocation; only
 * after tap_python_on() said true. */
unsigned tap_python_sites(uint16_t *out, unsigned max);

/* Frame `id`, any thread, once tap_python_sites returned it. */
const struct tap_py_frame *tap_python_frame(uint16_t id);

/* Calls whose Python frame could not be read (their site is native). */
uint64_t tap_python_unread(void);

#endif
