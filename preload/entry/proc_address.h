/* cuGetProcAddress answered with nccltap's graph wrappers (proc_address.c). */
#ifndef NCCLTAP_ENTRY_PROC_ADDRESS_H
#define NCCLTAP_ENTRY_PROC_ADDRESS_H

/* A dlsym lookup of `name` found `found`: for cuGetProcAddress,
 * cuGetProcAddress_v2 and cuGetProcAddress_v2_ptsz, nccltap's wrapper
 * that calls `found` (or `found` itself where that variant already wraps
 * another function); any other name, `found`. Any thread. */
void *tap_proc_address_lookup(const char *name, void *found);

#endif
