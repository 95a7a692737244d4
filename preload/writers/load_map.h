/* The process's load map: each loaded object's path, address range, load
 * bias and GNU build id, so that call-site addresses can be symbolized
 * after the process is gone, on any machine with the same binaries.
 * Reducer thread only (it allocates and takes the loader's lock). */
#ifndef NCCLTAP_LOAD_MAP_H
#define NCCLTAP_LOAD_MAP_H

#include <stdbool.h>
#include <stdint.h>

struct tap_module {
    char path[4096];     /* as loaded; the main program's /proc/self/exe */
    uintptr_t base;      /* load bias: file address = address - base */
    uintptr_t start, end;/* what its PT_LOAD segments span */
    char build_id[2 * 64 + 1]; /* hex, "" when it has none */
    bool used;           /* for the caller to mark */
};

/* Every loaded object, sorted by start; NULL (and *n = 0) without memory. */
struct tap_module *tap_load_map(unsigned *n);

/* The module holding `pc`, or NULL. */
struct tap_module *tap_load_map_find(struct tap_module *m, unsigned n, uintptr_t pc);

#endif
