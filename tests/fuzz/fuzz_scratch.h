/* A scratch directory of the fuzzing process, for targets whose code
 * reads paths (a run directory, a trace session): made on first use,
 * removed with all it holds when the fuzzer exits, so that runs leave
 * nothing in /tmp. Single-threaded, as libFuzzer runs a target. */
#ifndef NCCLTAP_FUZZ_SCRATCH_H
#define NCCLTAP_FUZZ_SCRATCH_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_scratch_dir[64];

static int fuzz_scratch_remove(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

static void fuzz_scratch_clean(void)
{
    nftw(fuzz_scratch_dir, fuzz_scratch_remove, 8, FTW_DEPTH | FTW_PHYS);
}

/* /tmp/nccltap-fuzz-NAME-PID, made (and its removal at exit set) once. */
static inline const char *fuzz_scratch(const char *name)
{
    if (!fuzz_scratch_dir[0]) {
        snprintf(fuzz_scratch_dir, sizeof fuzz_scratch_dir, "/tmp/nccltap-fuzz-%s-%d", name, (int)getpid());
        if (mkdir(fuzz_scratch_dir, 0700) != 0 && errno != EEXIST)
            abort();
        atexit(fuzz_scratch_clean);
    }
    return fuzz_scratch_dir;
}

#endif
