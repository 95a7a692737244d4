#include "state/python_interps.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

#include "base/log.h"

#define AT(p, off, type) (*(type const *)((const char *)(p) + (off)))

/* Until init (or without a runtime to read): one address, so one interpreter. */
static void *const nothing = NULL;
void *const *tap_py_interp_head = &nothing, *const *tap_py_interp_main = &nothing;

static const struct tap_py_interp_layout *at;
static const char *runtime; /* _PyRuntime */
static int (*acquire)(void *lock, int wait);
static void (*release)(void *lock);

void tap_py_interps_init(const struct tap_py_interp_layout *l)
{
    runtime = dlsym(RTLD_DEFAULT, "_PyRuntime");
    *(void **)&acquire = dlsym(RTLD_DEFAULT, "PyThread_acquire_lock");
    *(void **)&release = dlsym(RTLD_DEFAULT, "PyThread_release_lock");
    if (!runtime || !acquire || !release) {
        tap_log("CPython's runtime state is not exported here: a call made in a Python sub-interpreter may be "
                "credited to the line that ran the sub-interpreter");
        return;
    }
    at = l;
    tap_py_interp_head = (void *const *)(runtime + l->rt_head);
    tap_py_interp_main = (void *const *)(runtime + l->rt_main);
}

/* The cframe of a thread state's innermost evaluation, on the C stack of
 * the thread that runs it; NULL when it runs none: its cframe is then its
 * own root, whose fields 3.10 leaves unset (never read), or one with no
 * frame. */
static const char *running_cframe(const char *ts)
{
    const char *cframe = AT(ts, at->ts_cframe, const char *);
    if (!cframe || cframe == ts + at->ts_root_cframe)
        return NULL;
    return AT(cframe, at->cframe_current, const char *) ? cframe : NULL;
}

const char *tap_py_running_state(const char *first)
{
    if (!at)
        return first;
    char here; /* on this thread's stack, below every frame of its callers */
    uintptr_t low = (uintptr_t)&here, high = (uintptr_t)running_cframe(first);
    unsigned long self = (unsigned long)pthread_self();
    void *lock = AT(runtime, at->rt_mutex, void *);
    if (!lock || acquire(lock, 0) != 1)
        return NULL;
    const char *found = high ? first : NULL;
    uintptr_t found_at = high ? high : UINTPTR_MAX;
    for (const char *interp = AT(runtime, at->rt_head, const char *); interp;
         interp = AT(interp, at->interp_next, const char *))
        for (const char *ts = AT(interp, at->interp_threads, const char *); ts;
             ts = AT(ts, at->ts_next, const char *)) {
            uintptr_t cf = (uintptr_t)running_cframe(ts);
            bool mine = high || AT(ts, at->ts_thread_id, unsigned long) == self;
            if (cf > low && cf < found_at && mine) {
                found = ts;
                found_at = cf;
            }
        }
    release(lock);
    return found ? found : first;
}
