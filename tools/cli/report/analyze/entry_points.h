/* NCCL's entry points that neither move data nor make or end a
 * communicator (memory, registration, windows, suspend/resume, revoke,
 * PreMulSum): each one's calls and refusals summed over the processes,
 * and how many processes called it. Reads the document; called once per
 * report, on its thread. entry_points.c */
#ifndef NCCLTAP_CLI_REPORT_ENTRY_POINTS_H
#define NCCLTAP_CLI_REPORT_ENTRY_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct entry_summary {
    const char *name;        /* interned */
    uint64_t calls, failed;
    size_t processes;
};

struct entry_points {
    struct entry_summary *v; /* by name */
    size_t n;
};

void entry_points_analyze(const struct report *r, struct entry_points *out);
void entry_points_free(struct entry_points *e);

#endif
