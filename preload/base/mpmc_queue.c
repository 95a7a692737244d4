#include "base/mpmc_queue.h"

#include <stdlib.h>

struct mpmc_queue *mpmc_create(size_t capacity, size_t elem_size)
{
    size_t n = 2;
    while (n < capacity)
        n <<= 1;
    struct mpmc_queue *q = aligned_alloc(64, sizeof *q);
    if (!q)
        return NULL;
    q->cell_size = MPMC_SEQ_BYTES + ((elem_size + 15) & ~(size_t)15);
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
        atomic_store_explicit(mpmc_seq(q, i), i, memory_order_relaxed);
    atomic_store(&q->head, 0);
    atomic_store(&q->tail, 0);
}

void mpmc_destroy(struct mpmc_queue *q)
{
    if (q) {
        free(q->cells);
        free(q);
    }
}
