/* Call sites: where in the application each NCCL call was made. A site is
 * the tuple of NCCLTAP_CALLSITE_DEPTH return addresses, innermost first.
 * The first is the wrapper's own return address, so depth 1 needs no
 * unwinding; deeper frames come from libunwind (callsite_unwind.c). Where
 * CPython runs, the Python frames are part of the site
 * (callsite_python.c). Each
 * distinct tuple is interned once into a lock-free table of fixed size,
 * allocated at the first call; an op record carries only the site's id. */
#ifndef NCCLTAP_CALLSITE_H
#define NCCLTAP_CALLSITE_H

#include <stdbool.h>
#include <stdint.h>

/* Id 0: no site. Calls have it when NCCLTAP_CALLSITE_DEPTH=0, or when the
 * table was full (they are still counted, as site 0). */
#define TAP_SITE_NONE 0
/* Distinct sites a process can hold (ids fit the record's 16 bits). */
#define TAP_SITE_CAPACITY 4096

/* The site of a call whose wrapper returns to `ra`. Any thread, lock-free;
 * allocates only at its first call. Outside the common case of intercept.h's
 * tap_site(): a new return address, or depth > 1 (unwinds every time).
 * *same_every_time says whether every call returning to `ra` has this site
 * (one frame, or call sites off), so that the caller may remember it. */
uint16_t tap_site_slow(uintptr_t ra, bool *same_every_time);

/* The frames each site has (NCCLTAP_CALLSITE_DEPTH, or 1 when deeper stacks
 * cannot be had); 0 when call sites are off. */
unsigned tap_sites_depth(void);

/* Ids handed out so far are 1..tap_sites_count(). An id lost in a race
 * between two threads interning the same site has frames but no calls. */
unsigned tap_sites_count(void);

/* The ids of the sites interned so far, ascending, at most `max` of them,
 * into ids; returns how many. Their frames can be read from any thread
 * (an id lost in a race is not among them). */
unsigned tap_sites_published(uint16_t *ids, unsigned max);

/* The frames of site `id`, tap_sites_depth() of them, 0 past the stack's end. */
const uintptr_t *tap_site_frames(uint16_t id);

/* The Python frames (callsite_python.h) that made site `id`'s calls,
 * innermost first, the k-th for k < tap_sites_depth(); 0 past the last:
 * a site is its native frames and those. */
uint16_t tap_site_python(uint16_t id, unsigned k);

#endif
