/* A bounded multi-producer multi-consumer queue of fixed-size elements.
 * Lock-free (one CAS per operation); push never waits: when the queue is
 * full it fails and the caller counts the loss. Carries op records from the
 * application's threads to the reducer, and free CUDA events back.
 *
 * Dmitry Vyukov's bounded MPMC design: every cell carries a sequence number
 * that says whose turn it is, so producers and consumers agree without
 * locks and a full queue is detected without waiting. Push and pop are
 * inline so that the element copy, of a size known where they are called,
 * compiles to moves: they run on every NCCL call. */
#ifndef NCCLTAP_MPMC_QUEUE_H
#define NCCLTAP_MPMC_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct mpmc_queue {
    size_t mask;
    size_t cell_size; /* the sequence word, then the element */
    unsigned char *cells;
    _Alignas(64) _Atomic size_t head; /* next to push */
    _Alignas(64) _Atomic size_t tail; /* next to pop */
};

#define MPMC_SEQ_BYTES 16 /* keeps elements 16-byte aligned */

/* capacity is rounded up to a power of two. NULL if out of memory. */
struct mpmc_queue *mpmc_create(size_t capacity, size_t elem_size);
void mpmc_destroy(struct mpmc_queue *q);
/* Empties the queue; only when no other thread uses it (after fork). */
void mpmc_clear(struct mpmc_queue *q);

static inline unsigned char *mpmc_cell(struct mpmc_queue *q, size_t pos)
{
    return q->cells + (pos & q->mask) * q->cell_size;
}

static inline _Atomic size_t *mpmc_seq(struct mpmc_queue *q, size_t pos)
{
    return (_Atomic size_t *)mpmc_cell(q, pos);
}

static inline void *mpmc_elem(struct mpmc_queue *q, size_t pos)
{
    return mpmc_cell(q, pos) + MPMC_SEQ_BYTES;
}

/* `elem_size` must be the size the queue was created with. */
static inline bool mpmc_push(struct mpmc_queue *q, const void *elem, size_t elem_size)
{
    size_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        unsigned char *cell = mpmc_cell(q, pos); /* its address once: this runs on every call */
        size_t seq = atomic_load_explicit((_Atomic size_t *)cell, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                memcpy(cell + MPMC_SEQ_BYTES, elem, elem_size);
                atomic_store_explicit((_Atomic size_t *)cell, pos + 1, memory_order_release);
                return true;
            }
        } else if (diff < 0) {
            return false; /* full */
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
}

static inline bool mpmc_pop(struct mpmc_queue *q, void *out, size_t elem_size)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    for (;;) {
        size_t seq = atomic_load_explicit(mpmc_seq(q, pos), memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)(pos + 1);
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                memcpy(out, mpmc_elem(q, pos), elem_size);
                atomic_store_explicit(mpmc_seq(q, pos), pos + q->mask + 1, memory_order_release);
                return true;
            }
        } else if (diff < 0) {
            return false; /* empty */
        } else {
            pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
        }
    }
}

/* For a queue with one consumer: the next element, in place, or NULL when
 * the queue is empty. The slot is the consumer's until mpmc_release_front. */
static inline const void *mpmc_front(struct mpmc_queue *q)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    unsigned char *cell = mpmc_cell(q, pos);
    size_t seq = atomic_load_explicit((_Atomic size_t *)cell, memory_order_acquire);
    return seq == pos + 1 ? cell + MPMC_SEQ_BYTES : NULL;
}

/* `front`: what mpmc_front returned. */
static inline void mpmc_release_front(struct mpmc_queue *q, const void *front)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    _Atomic size_t *seq = (_Atomic size_t *)((const unsigned char *)front - MPMC_SEQ_BYTES);
    atomic_store_explicit(seq, pos + q->mask + 1, memory_order_release);
    atomic_store_explicit(&q->tail, pos + 1, memory_order_relaxed);
}

/* About how many elements the queue holds: pushes begun minus pops
 * begun, read apart, so off by the operations in progress. For a
 * watcher's decision, never for a push or pop. */
static inline size_t mpmc_approx_size(struct mpmc_queue *q)
{
    size_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
    return head > tail ? head - tail : 0;
}

#endif
