/* The kernel events of a trace gathered into the document model's
 * struct kernel_trace, one per host. */
#ifndef NCCLTAP_CLI_TRACE_KERNEL_H
#define NCCLTAP_CLI_TRACE_KERNEL_H

#include "model.h"
#include "trace_events.h"

struct tk_host;

struct trace_kernel {
    struct tk_host *hosts;
    size_t nhosts, cap;
    uint64_t bad_cpu;  /* events left out for a CPU past REPORT_MAX_CPUS */
};

/* Adds one kernel event (tev_is_kernel(e->kind)), its names interned in
 * r; events come in time order. `k` is zeroed at first. */
void trace_kernel_add(struct trace_kernel *k, struct report *r, const struct tev *e);

/* Moves what was gathered into r->kernels and empties k. */
void trace_kernel_take(struct trace_kernel *k, struct report *r);
void trace_kernel_free(struct trace_kernel *k);

#endif
