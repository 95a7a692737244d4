/* Launcher mode: ranks are started by someone else (mpirun, srun, torchrun)
 * and share only a directory. Rank 0 writes the ids to the id file at once
 * (temporary file + rename, so nobody reads half of it); a barrier is one
 * empty file per rank and generation, named after a token of this run's ids
 * so that files left by an earlier run never count; a sum is one file per
 * rank and generation holding the rank's number. */
#include "rdv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "base/monotonic.h"
#include "fail.h"

#define ID_MAGIC "NCCLTAPB"

struct id_header {
    char magic[8];
    int32_t world;
    int32_t nids;
};

struct file_rdv {
    struct rdv base;        /* first: a struct rdv * is a struct file_rdv * */
    char id_path[PATH_MAX];
    char token[17];         /* hex of a hash of the ids */
    int timeout_s;
    unsigned gen;           /* barriers passed */
    unsigned sums;          /* sums done */
};

/* Sleeps a little longer each time: a barrier among ranks that arrive
 * together costs microseconds, one that waits long costs no CPU. */
static void backoff(long *ns)
{
    struct timespec ts = { 0, *ns };
    nanosleep(&ts, NULL);
    if (*ns < 5000000)
        *ns *= 2;
}

static void sidecar(const struct file_rdv *f, char *out, const char *what, int rank)
{
    int n = snprintf(out, PATH_MAX, "%s.%s.%s.r%d", f->id_path, f->token, what, rank);
    if (n < 0 || n >= PATH_MAX)
        bench_die("path too long: %s", f->id_path);
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        bench_die("cannot create %s: %s", path, strerror(errno));
    close(fd);
}

/* Waits until every rank's file `what` exists. */
static void wait_all(struct file_rdv *f, const char *what)
{
    uint64_t deadline = tap_monotonic_ns() + (uint64_t)f->timeout_s * 1000000000u;
    long ns = 20000;
    char path[PATH_MAX];
    for (int r = 0; r < f->base.world; r++) {
        sidecar(f, path, what, r);
        while (access(path, F_OK) != 0) {
            if (tap_monotonic_ns() > deadline)
                bench_die("timed out after %d s waiting for rank %d (no %s)",
                          f->timeout_s, r, path);
            backoff(&ns);
        }
    }
}

static void file_barrier(struct rdv *r)
{
    struct file_rdv *f = (struct file_rdv *)r;
    char what[32], path[PATH_MAX];
    snprintf(what, sizeof what, "b%u", f->gen);
    sidecar(f, path, what, r->rank);
    touch(path);
    wait_all(f, what);
    /* Everyone is past the previous barrier now: its file can go. The last
     * barrier's files are removed by rank 0 in finish. */
    if (f->gen > 0) {
        snprintf(what, sizeof what, "b%u", f->gen - 1);
        sidecar(f, path, what, r->rank);
        unlink(path);
    }
    f->gen++;
}

static void write_value(const char *path, long long v)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = fopen(tmp, "we");
    int ok = fp && fprintf(fp, "%lld\n", v) > 0;
    if (fp && fclose(fp) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        bench_die("cannot write %s: %s", path, strerror(e));
    }
}

static long long read_value(const char *path)
{
    long long v;
    FILE *fp = fopen(path, "re");
    int ok = fp && fscanf(fp, "%lld", &v) == 1;
    if (fp)
        fclose(fp);
    if (!ok)
        bench_die("cannot read a number from %s", path);
    return v;
}

static long long file_sum(struct rdv *r, long long v)
{
    struct file_rdv *f = (struct file_rdv *)r;
    char what[32], path[PATH_MAX];
    snprintf(what, sizeof what, "s%u", f->sums);
    sidecar(f, path, what, r->rank);
    write_value(path, v);       /* renamed into place: never read half-written */
    wait_all(f, what);
    long long total = 0;
    for (int i = 0; i < r->world; i++) {
        sidecar(f, path, what, i);
        total += read_value(path);
    }
    /* A rank writes sum k only once it has read every file of sum k - 1:
     * this rank's file of k - 1 can go. The last sum's files are removed by
     * rank 0 in finish. */
    if (f->sums > 0) {
        snprintf(what, sizeof what, "s%u", f->sums - 1);
        sidecar(f, path, what, r->rank);
        unlink(path);
    }
    f->sums++;
    return total;
}

static void write_ids(struct file_rdv *f, const ncclUniqueId *ids, int n)
{
    char tmp[PATH_MAX];
    int len = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", f->id_path, (long)getpid());
    if (len < 0 || len >= (int)sizeof tmp)
        bench_die("path too long: %s", f->id_path);
    FILE *fp = fopen(tmp, "wbe");
    if (!fp)
        bench_die("cannot write the id file %s: %s", tmp, strerror(errno));
    struct id_header h;
    memcpy(h.magic, ID_MAGIC, sizeof h.magic);
    h.world = f->base.world;
    h.nids = n;
    int ok = fwrite(&h, sizeof h, 1, fp) == 1 &&
             fwrite(ids, sizeof *ids, (size_t)n, fp) == (size_t)n;
    if (fclose(fp) != 0)
        ok = 0;
    if (!ok || rename(tmp, f->id_path) != 0) {
        int e = errno;
        unlink(tmp);
        bench_die("cannot write the id file %s: %s", f->id_path, strerror(e));
    }
}

/* 1 when the file holds this run's ids, 0 when it is not there yet. */
static int read_ids(struct file_rdv *f, ncclUniqueId *ids, int n)
{
    FILE *fp = fopen(f->id_path, "rbe");
    if (!fp) {
        if (errno == ENOENT)
            return 0;
        bench_die("cannot read the id file %s: %s", f->id_path, strerror(errno));
    }
    struct id_header h;
    int ok = fread(&h, sizeof h, 1, fp) == 1 &&
             memcmp(h.magic, ID_MAGIC, sizeof h.magic) == 0;
    if (ok && (h.world != f->base.world || h.nids != n))
        bench_die("the id file %s is for %d ranks and %d communicators, this run has "
                  "%d and %d: is it left over from another run? Remove it or pass --id-file",
                  f->id_path, h.world, h.nids, f->base.world, n);
    ok = ok && fread(ids, sizeof *ids, (size_t)n, fp) == (size_t)n;
    fclose(fp);
    if (!ok)
        bench_die("the id file %s is not an nccltap-bench id file", f->id_path);
    return 1;
}

static void make_token(struct file_rdv *f, const ncclUniqueId *ids, int n)
{
    /* FNV-1a: any stable hash does; the ids are random bytes. */
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *p = (const unsigned char *)ids;
    for (size_t i = 0; i < (size_t)n * sizeof *ids; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    snprintf(f->token, sizeof f->token, "%016llx", (unsigned long long)h);
}

static void file_share_ids(struct rdv *r, ncclUniqueId *ids, int n)
{
    struct file_rdv *f = (struct file_rdv *)r;
    if (r->rank == 0) {
        write_ids(f, ids, n);
    } else {
        uint64_t deadline = tap_monotonic_ns() + (uint64_t)f->timeout_s * 1000000000u;
        long ns = 100000;
        while (!read_ids(f, ids, n)) {
            if (tap_monotonic_ns() > deadline)
                bench_die("timed out after %d s waiting for rank 0 to write %s "
                          "(do all ranks see that path? set --id-file)",
                          f->timeout_s, f->id_path);
            backoff(&ns);
        }
    }
    make_token(f, ids, n);
}

static void file_finish(struct rdv *r)
{
    struct file_rdv *f = (struct file_rdv *)r;
    char path[PATH_MAX];
    sidecar(f, path, "done", r->rank);
    touch(path);
    if (r->rank != 0) {
        free(f);
        return;
    }
    /* Every rank is past its last barrier once it says done: rank 0 can
     * clear what is left. */
    wait_all(f, "done");
    char what[32], sum[32];
    snprintf(what, sizeof what, "b%u", f->gen - 1);
    snprintf(sum, sizeof sum, "s%u", f->sums - 1);
    for (int i = 0; i < r->world; i++) {
        if (f->gen > 0) {
            sidecar(f, path, what, i);
            unlink(path);
        }
        if (f->sums > 0) {
            sidecar(f, path, sum, i);
            unlink(path);
        }
        sidecar(f, path, "done", i);
        unlink(path);
    }
    unlink(f->id_path);
    free(f);
}

static const struct rdv_ops file_ops = { file_share_ids, file_barrier, file_sum, file_finish };

struct rdv *rdv_file(const char *id_path, int rank, int world, int timeout_s)
{
    struct file_rdv *f = calloc(1, sizeof *f);
    if (!f)
        bench_die("out of memory");
    if (strlen(id_path) >= sizeof f->id_path - 64)
        bench_die("id file path too long: %s", id_path);
    strcpy(f->id_path, id_path);
    f->base.ops = &file_ops;
    f->base.rank = rank;
    f->base.world = world;
    f->timeout_s = timeout_s;
    return &f->base;
}
