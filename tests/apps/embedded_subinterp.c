/* For tests/apps/subinterp_nccl.py: Python code run the way an embedding
 * program runs it, in a new sub-interpreter on a thread of C. The thread
 * first takes a thread state of the main interpreter (PyGILState_Ensure:
 * it is the thread's first, the one PyGILState_GetThisThreadState
 * answers), then makes a sub-interpreter (Py_NewInterpreter swaps its own
 * state in) and runs the code there. So the thread's first state runs
 * nothing while the sub-interpreter's calls NCCL: their site is the
 * sub-interpreter's line. CPython's functions are the running
 * interpreter's, bound when Python loads this library (never linked). */
#include <pthread.h>
#include <stddef.h>

typedef struct py_thread_state py_thread_state; /* opaque: PyThreadState */
extern int PyGILState_Ensure(void);
extern void PyGILState_Release(int state);
extern py_thread_state *Py_NewInterpreter(void);
extern void Py_EndInterpreter(py_thread_state *sub);
extern py_thread_state *PyThreadState_Get(void);
extern py_thread_state *PyThreadState_Swap(py_thread_state *ts);
extern int PyRun_SimpleString(const char *code);

struct job {
    const char *code;
    int failed;
};

static void *run_in_new_interpreter(void *arg)
{
    struct job *j = arg;
    int gil = PyGILState_Ensure();
    py_thread_state *outer = PyThreadState_Get();
    py_thread_state *sub = Py_NewInterpreter();
    if (!sub) {
        j->failed = 1;
    } else {
        j->failed = PyRun_SimpleString(j->code) != 0;
        Py_EndInterpreter(sub);
    }
    PyThreadState_Swap(outer);
    PyGILState_Release(gil);
    return NULL;
}

int embedded_subinterp_run(const char *code);

/* Runs `code` in a new sub-interpreter on a new thread of C (called
 * through ctypes, which releases the GIL); 0 when it ran without error. */
int embedded_subinterp_run(const char *code)
{
    struct job j = {code, 0};
    pthread_t t;
    if (pthread_create(&t, NULL, run_in_new_interpreter, &j) != 0)
        return -1;
    pthread_join(t, NULL);
    return j.failed;
}
