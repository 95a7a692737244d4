/* POSIX shared memory for the ranks of a communicator, whether they are
 * threads of one process or separate processes: the same code serves both,
 * so the multi-process case is what every test exercises. */
#ifndef NCCLSIM_NCCL_SHM_H
#define NCCLSIM_NCCL_SHM_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit hash of bytes; the ids of communicators derive from it. */
uint64_t sim_hash_bytes(const void *p, size_t n);
/* Combines an id with a number (a child counter, a color). */
uint64_t sim_hash_mix(uint64_t id, uint64_t x);

#define SIM_SHM_NAME_LEN 48
/* "/ncclsim-<kind>-<id>". Ids come from random unique ids, so objects of
 * tests that run at the same time never collide. */
void sim_shm_name(char name[SIM_SHM_NAME_LEN], char kind, uint64_t id);

/* Opens (creating it if needed) and maps `size` bytes, zero on creation.
 * Every participant maps the same size, so whoever comes first creates it
 * and nobody has to wait for a creator. NULL (and a message on stderr)
 * on failure, e.g. /dev/shm full. */
void *sim_shm_map(const char *name, size_t size);
void sim_shm_unmap(void *p, size_t size);
/* Removes the name; mappings stay valid. Removing it twice is harmless. */
void sim_shm_unlink(const char *name);

#endif
