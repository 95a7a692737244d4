/* Dmitry Vyukov's bounded MPMC queue design: every cell carries a sequence
 * number that says whose turn it is, so producers and consumers agree
 * without locks and a full queue is detected without waiting. */
#include "mpmc_queue.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mpmc_queue {
    size_t mask;
    size_t elem_size;
    size_t cell_size; /* the sequence word, then the element */
    unsigned char *cells;
    _Alignas(64) _Atomic size_t head; /* next to push */
    _Alignas(64) _Atomic size_t tail; /* next to pop */
};

#define SEQ_BYTES 16 /* keeps elements 16-byte aligned */

static _Atomic size_t *seq_of(struct mpmc_queue *q, size_t pos)
{
    return (_Atomic size_t *)(q->cells + (pos & q->mask) * q->cell_size);
}

static void *elem_of(struct mpmc_queue *q, size_t pos)
{
    return q->cells + (pos & q->mask) * q->cell_size + SEQ_BYTES;
}

struct mpmc_queue *mpmc_create(size_t capacity, size_t elem_size)
{
    size_t n = 2;
    while (n < capacity)
        n <<= 1;
    struct mpmc_queue *q = aligned_alloc(64, sizeof *q);
    if (!q)
        return NULL;
    q->elem_size = elem_size;
    q->cell_size = SEQ_BYTES + ((elem_size + 15) & ~(size_t)15);
    q->cells = aligned_alloc(64, ((n * q->cell_size) + 63) & ~(size_t)63);
    if (!q->cells) {
        free(q);
        return NULL;
    }
    q->mask = n - 1;
    mpmc_clear(q);
    return q;
}

void mpmc_clear(struct mpmc_queue *q)
{
    for (size_t i = 0; i <= q->mask; i++)
        atomic_store_explicit(seq_of(q, i), i, memory_order_relaxed);
    atomic_store(&q->head, 0);
    atomic_store(&q->tail, 0);
}

bool mpmc_push(struct mpmc_queue *q, const void *elem)
{
    size_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        size_t seq = atomic_load_explicit(seq_of(q, pos), memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                memcpy(elem_of(q, pos), elem, q->elem_size);
                atomic_store_explicit(seq_of(q, pos), pos + 1, memory_order_release);
                return true;
            }
        } else if (diff < 0) {
            return false; /* full */
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
}

bool mpmc_pop(struct mpmc_queue *q, void *out)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    for (;;) {
        size_t seq = atomic_load_explicit(seq_of(q, pos), memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)(pos + 1);
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                memcpy(out, elem_of(q, pos), q->elem_size);
                atomic_store_explicit(seq_of(q, pos), pos + q->mask + 1, memory_order_release);
                return true;
            }
        } else if (diff < 0) {
            return false; /* empty */
        } else {
            pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
        }
    }
}
