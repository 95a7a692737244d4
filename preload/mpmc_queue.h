/* A bounded multi-producer multi-consumer queue of fixed-size elements.
 * Lock-free (one CAS per operation); push never waits: when the queue is
 * full it fails and the caller counts the loss. Carries op records from the
 * application's threads to the reducer, and free CUDA events back. */
#ifndef NCCLTAP_MPMC_QUEUE_H
#define NCCLTAP_MPMC_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

struct mpmc_queue;

/* capacity is rounded up to a power of two. NULL if out of memory. */
struct mpmc_queue *mpmc_create(size_t capacity, size_t elem_size);
bool mpmc_push(struct mpmc_queue *q, const void *elem);
bool mpmc_pop(struct mpmc_queue *q, void *out);
/* Empties the queue; only when no other thread uses it (after fork). */
void mpmc_clear(struct mpmc_queue *q);

#endif
