#include "nccl_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

uint64_t sim_hash_bytes(const void *p, size_t n)
{
    /* FNV-1a, then a finalizer: FNV alone mixes the last bytes poorly. */
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return sim_hash_mix(h, 0);
}

uint64_t sim_hash_mix(uint64_t id, uint64_t x)
{
    uint64_t h = id ^ (x + 0x9e3779b97f4a7c15ull + (id << 6) + (id >> 2));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

void sim_shm_name(char name[SIM_SHM_NAME_LEN], char kind, uint64_t id)
{
    snprintf(name, SIM_SHM_NAME_LEN, "/ncclsim-%c-%016llx", kind, (unsigned long long)id);
}

void *sim_shm_map(const char *name, size_t size)
{
    int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
    if (fd < 0) {
        fprintf(stderr, "ncclsim: shm_open(%s): %s\n", name, strerror(errno));
        return NULL;
    }
    /* Reserve the pages now: on a full /dev/shm, touching a page of a
     * sparse mapping later would kill the process with SIGBUS. */
    int err = ftruncate(fd, (off_t)size) ? errno : posix_fallocate(fd, 0, (off_t)size);
    void *p = MAP_FAILED;
    if (!err) {
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            err = errno;
    }
    close(fd);
    if (err) {
        fprintf(stderr, "ncclsim: cannot map %zu bytes of shared memory %s: %s\n",
                size, name, strerror(err));
        return NULL;
    }
    return p;
}

void sim_shm_unmap(void *p, size_t size)
{
    munmap(p, size);
}

void sim_shm_unlink(const char *name)
{
    shm_unlink(name);
}
