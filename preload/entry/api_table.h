/* The NCCL functions nccltap wraps, by name: abi/nccl_api.def's table as
 * data, for what must find a wrapper from a name at run time (dlsym's
 * answers, dlsym_hook.c; the unseen-NCCL check at exit, unseen.c).
 * Invariants: one entry per row of the table, in its order; `wrapper` is
 * the address of the exported name as the global scope has it (a copy of
 * nccltap or a tool preloaded ahead keeps its place); a name is found
 * under its own spelling and its pnccl twin's. Read-only; any thread. */
#ifndef NCCLTAP_API_TABLE_H
#define NCCLTAP_API_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct tap_api_entry {
    const char *name;   /* "ncclAllReduce" */
    void *wrapper;      /* &ncclAllReduce: the first definition in the global scope */
    size_t real_offset; /* offsetof(struct real_nccl, ncclAllReduce) */
};

/* The entry of "ncclX" or "pncclX", NULL when nccltap does not wrap it. */
const struct tap_api_entry *tap_api_find(const char *name);

/* Whether nccltap wraps `name` (ncclX or pncclX). */
bool tap_api_wraps(const char *name);

#endif
