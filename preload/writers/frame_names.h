/* The function each call-site frame is in, by name, as the process itself
 * can tell: from the dynamic symbol table (dladdr), else from the symbol
 * table (.symtab) of the object's file where it has one. Written into the
 * rank file beside the frames, so that a report read on a machine without
 * the binaries still names functions. Names are mangled as in the tables;
 * the report demangles them.
 *
 * Off the hot path: called while a rank file is written (any one thread
 * at a time; a lock keeps the cache). Each (site, frame) is looked up once
 * and remembered for the process's life. */
#ifndef NCCLTAP_FRAME_NAMES_H
#define NCCLTAP_FRAME_NAMES_H

#include <stdint.h>

#include "writers/load_map.h"

/* The name of the function holding return address `pc`, frame `k` of site
 * `site` (at most `depth` frames a site), in module `m` (NULL when in
 * none): "" when no table names it. The string lives as long as the
 * process. */
const char *tap_frame_name(uint16_t site, unsigned k, unsigned depth, uintptr_t pc, const struct tap_module *m);

#endif
