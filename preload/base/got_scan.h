/* Which loaded object calls a library directly, past the global scope: an
 * object whose GOT slot for an imported function the caller names holds an
 * address inside that library. An object loaded with RTLD_DEEPBIND binds
 * to its own dependencies first, so a preloaded wrapper of those functions
 * is passed by; an object bound through the global scope holds the
 * wrapper's address there, or its own PLT while the slot is still lazy
 * (never called). Reads the loaded objects' dynamic sections, relocations
 * (RELA, as on x86-64 and AArch64) and GOTs in place; no allocation.
 * Any thread; meant for exit, not the hot path (it walks every relocation
 * of every object). */
#ifndef NCCLTAP_GOT_SCAN_H
#define NCCLTAP_GOT_SCAN_H

#include <stdbool.h>

/* The file name of the first object, other than the one loaded at
 * LIB_BASE and the one at SELF_BASE, with a GOT slot for a function for
 * whose name WANTED says true, bound inside the object at LIB_BASE; NULL
 * if none. "" names the program itself. WANTED must not allocate. */
const char *tap_got_bound_into(const void *lib_base, const void *self_base, bool (*wanted)(const char *name));

#endif
