/* Which CPython thread state runs on the calling thread, in a process
 * with sub-interpreters. PyGILState_GetThisThreadState answers the first
 * thread state made on a thread: in CPython 3.11 the outer interpreter's
 * while the thread runs a sub-interpreter (_xxsubinterpreters.run_string
 * swaps the sub-interpreter's in, on the thread of the caller, made on
 * the thread that created the sub-interpreter), so its frames would
 * credit the call to the line that ran the sub-interpreter (3.10 too). 3.12
 * binds the state it swaps in, but the rule below holds for 3.10 to 3.12;
 * 3.13, which has no CFrame, is not searched (callsite_python.c).
 *
 * The rule: the thread state that runs on this thread now is the one
 * whose innermost evaluation is deepest on this thread's C stack. Each
 * evaluation of Python code keeps its _PyCFrame on the C stack and points
 * the running thread state's `cframe` at it; one nested in another (a
 * sub-interpreter run from Python) is below it. So among every
 * interpreter's thread states with a frame running, those whose cframe
 * lies on this thread's stack above the caller (between its own stack
 * address and the first state's running cframe, or, when the first state
 * runs nothing, made on this thread) are this thread's, and the lowest is
 * the innermost. CPython's list of interpreters and thread states is read
 * under its own lock (interpreters.mutex, HEAD_LOCK in CPython), tried,
 * never waited for: a thread state or interpreter freed meanwhile is
 * unlinked under that lock first. The state found runs on this thread,
 * inside the NCCL call, so it lives while the caller reads its frames.
 *
 * Any thread; no allocation; the hot path's cost is tap_py_one_interpreter
 * (two loads and a compare) while the process has one interpreter. */
#ifndef NCCLTAP_PYTHON_INTERPS_H
#define NCCLTAP_PYTHON_INTERPS_H

#include <stdbool.h>

/* Offsets in the running CPython's structures (callsite_python.c's layouts). */
struct tap_py_interp_layout {
    int rt_mutex, rt_head, rt_main;       /* _PyRuntimeState.interpreters */
    int interp_next, interp_threads;      /* PyInterpreterState */
    int ts_next, ts_thread_id, ts_cframe, ts_root_cframe; /* PyThreadState */
    int cframe_current;                   /* _PyCFrame.current_frame */
};

/* Finds CPython's runtime state and lock functions; once, from
 * callsite_python.c's look (pthread_once). When they are missing (not a
 * CPython that exports them), every thread state is taken for the one
 * that runs (said once). */
void tap_py_interps_init(const struct tap_py_interp_layout *l);

extern void *const *tap_py_interp_head, *const *tap_py_interp_main;

/* Whether the process has its main interpreter alone: then the first
 * thread state of a thread is the one that runs. After init. */
static inline bool tap_py_one_interpreter(void)
{
    return *tap_py_interp_head == *tap_py_interp_main;
}

/* The thread state that runs on the calling thread, `first` being the
 * thread's first (PyGILState_GetThisThreadState, not NULL): `first`
 * itself, another interpreter's, or NULL when CPython's lock was held
 * (not known: the caller leaves the call at its native site, counted). */
const char *tap_py_running_state(const char *first);

#endif
