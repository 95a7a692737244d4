/* One nccltap per process, whatever the preload list holds: the user's
 * LD_PRELOAD and `nccltap run`'s may name two copies of the shim at
 * different paths, and the loader then loads both. The copy first in the
 * global scope is the one the program's calls reach: it records. Every
 * later copy is passive: its wrappers call NCCL and return, its load and
 * unload do nothing, its dlsym passes every lookup on; and the active
 * copy calls past it, to the NCCL behind it (real_nccl.c).
 *
 * A copy is told by nccltap_shim_marker, which nccltap exports and no
 * NCCL does (exports.map). Any thread; no lock, no allocation but the
 * loader's own (dladdr, dlsym, dlopen(RTLD_NOLOAD)), once. */
#ifndef NCCLTAP_SHIM_COPY_H
#define NCCLTAP_SHIM_COPY_H

#include <stdbool.h>

#define TAP_SHIM_MARKER "nccltap_shim_marker"
extern const char nccltap_shim_marker[];

/* This object's load base (its ELF header), whatever the global scope
 * binds nccltap's exported names to. */
const void *tap_shim_self(void);

/* Whether another copy of nccltap is ahead of this one in the global
 * scope: then this one is passive. Decided once. */
bool tap_shim_passive(void);

/* Whether the object holding `addr` is a copy of nccltap other than this
 * one. */
bool tap_shim_copy_at(const void *addr);

/* The definition of `name` that the copy of nccltap holding `in_copy`
 * would call: the next one after it in the global scope that is not in a
 * copy of nccltap, as RTLD_NEXT from that copy finds it when the copies
 * behind are skipped. So a tool preloaded after the copies, which wraps
 * NCCL too, keeps its place in the chain. The search ends at the NCCL
 * (the object holding `in_nccl`), which every lookup from a copy reaches
 * (the loader's initial objects lie in the link map in the global scope's
 * order, so nothing loaded later comes before it). NULL where none
 * defines it. Resolution time only: dlopen(RTLD_NOLOAD) per object. */
void *tap_shim_next_past_copies(const void *in_copy, const void *in_nccl, const char *name);

#endif
