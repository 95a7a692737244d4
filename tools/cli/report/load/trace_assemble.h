/* A report from decoded trace events (trace_events.h), whoever decoded
 * them: the events of each traced process gathered (trace_model.h) with
 * the kernel's (trace_kernel.h), then one struct rank_file per process
 * (trace_doc.h), its op events and its hang report, each range-checked as
 * a file's are (rank_fill.h, record_check.h). trace_load.c feeds it what libbabeltrace2 read; the
 * trace fuzzer (tests/fuzz) feeds it events made of bytes. */
#ifndef NCCLTAP_CLI_TRACE_ASSEMBLE_H
#define NCCLTAP_CLI_TRACE_ASSEMBLE_H

#include "load.h"
#include "trace_events.h"
#include "trace_kernel.h"
#include "trace_model.h"

struct trace_assembly {
    struct trace_model model;
    struct trace_kernel kernel;
    struct report *r;
};

void trace_assembly_init(struct trace_assembly *l, struct report *r);

/* One event (a tev_fn: `assembly` is a struct trace_assembly). */
void trace_assembly_add(const struct tev *e, void *assembly);

/* The processes into r (named "PATH (host H, pid P)"), by host and pid;
 * the kernel's events handed to r. Frees what the assembly held. */
void trace_assembly_finish(struct trace_assembly *l, const char *path);

/* Frees it without adding processes. */
void trace_assembly_discard(struct trace_assembly *l);

#endif
