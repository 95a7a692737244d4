#include "state/comm_parked.h"

#include <pthread.h>
#include <stdatomic.h>

static struct tap_parked parked[TAP_PARKED_MAX];
static _Atomic unsigned nparked; /* written under the lock, read without */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void tap_parked_add(const struct tap_parked *p)
{
    pthread_mutex_lock(&lock);
    unsigned n = atomic_load(&nparked);
    if (n < TAP_PARKED_MAX) {
        parked[n] = *p;
        parked[n].owner = pthread_self();
        atomic_store(&nparked, n + 1);
    }
    pthread_mutex_unlock(&lock);
}

bool tap_parked_any(void) { return atomic_load(&nparked) > 0; }

unsigned tap_parked_take_born(struct tap_parked *born, unsigned max, bool forget_mine)
{
    unsigned nborn = 0, kept = 0;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&lock);
    for (unsigned i = 0, n = atomic_load(&nparked); i < n; i++) {
        bool appeared = *parked[i].where != NULL;
        if (appeared && nborn < max)
            born[nborn++] = parked[i];
        else if (appeared || !forget_mine || !pthread_equal(parked[i].owner, self))
            parked[kept++] = parked[i];
    }
    atomic_store(&nparked, kept);
    pthread_mutex_unlock(&lock);
    return nborn;
}

void tap_parked_fork_lock(bool lock_it)
{
    (lock_it ? pthread_mutex_lock : pthread_mutex_unlock)(&lock);
}
