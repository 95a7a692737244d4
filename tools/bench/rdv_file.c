/* Launcher mode: ranks are started by someone else (mpirun, srun, torchrun)
 * and share only a directory. Rank 0 writes the ids to the id file at once
 * (temporary file + rename, so nobody reads half of it); a barrier is one
 * empty file per rank and generation, named after a token of this run's ids
 * so that files left by an earlier run never count; a sum is one file per
 * rank and generation holding the rank's number.
 *
 * A killed run leaves its id file behind, and a later run with the same
 * key (the same MASTER_PORT, say) would read it: its ids name a
 * communicator whose rank 0 is gone, and NCCL would wait for it for ever.
 * So the id file says who wrote it (id_file.h), and a rank other than 0
 * takes only a file whose writer may be this run's rank 0 (id_file_stale);
 * it waits for one, within --timeout.
 *
 * The directory may be shared (/tmp). It is opened once and every file is
 * named relative to it, never through a symlink (O_NOFOLLOW); it is
 * refused when a user other than this one (or root) owns it, or others
 * can write in it without the sticky bit (they could then replace our
 * files); so is a file of ours that another user owns (planted). Files are
 * created 0600. */
#include "rdv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "base/monotonic.h"
#include "fail.h"
#include "id_file.h"

struct file_rdv {
    struct rdv base;        /* first: a struct rdv * is a struct file_rdv * */
    char id_path[PATH_MAX]; /* as given: for messages */
    char dir_path[PATH_MAX];    /* its directory, for messages */
    int dir;                    /* that directory, opened once */
    char id_name[NAME_MAX + 1]; /* its name in `dir` */
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

static uint64_t deadline_of(const struct file_rdv *f)
{
    return tap_monotonic_ns() + (uint64_t)f->timeout_s * 1000000000u;
}

/* The name in f->dir of this run's file `what` of `rank`. */
static void sidecar(const struct file_rdv *f, char *out, const char *what, int rank)
{
    int n = snprintf(out, NAME_MAX + 1, "%s.%s.%s.r%d", f->id_name, f->token, what, rank);
    if (n < 0 || n > NAME_MAX)
        bench_die("file name too long: %s", f->id_path);
}

/* Dies unless st is a regular file of this user: one another user made
 * under our name (in a sticky directory they can) is never trusted. */
static void check_ours(const struct file_rdv *f, const struct stat *st, const char *name)
{
    if (!S_ISREG(st->st_mode))
        bench_die("%s/%s is not a regular file: refusing it (someone else may have put it there; "
                  "remove it, or pass --id-file in a directory of your own)", f->dir_path, name);
    if (st->st_uid != geteuid())
        bench_die("%s/%s is owned by uid %u, not by you: refusing it (another user may have planted it; "
                  "remove it, or pass --id-file in a directory of your own)", f->dir_path, name,
                  (unsigned)st->st_uid);
}

/* A new file `name` of this user, 0600, never through a symlink; a
 * leftover of ours under that name is replaced. */
static int create_ours(const struct file_rdv *f, const char *name)
{
    if (unlinkat(f->dir, name, 0) != 0 && errno != ENOENT)
        bench_die("cannot remove %s/%s: %s", f->dir_path, name, strerror(errno));
    int fd = openat(f->dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        bench_die("cannot create %s/%s: %s", f->dir_path, name, strerror(errno));
    return fd;
}

/* Opens `name` for reading if it is there and ours: -1 if it is not there
 * (yet); dies if it is not ours. O_NONBLOCK: a FIFO planted under the name
 * does not block the open (it is then refused as not a regular file). */
static int open_ours(const struct file_rdv *f, const char *name)
{
    int fd = openat(f->dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return -1;
        bench_die("cannot open %s/%s: %s%s", f->dir_path, name, strerror(errno),
                  errno == ELOOP ? " (a symlink: refused)" : "");
    }
    struct stat st;
    if (fstat(fd, &st) != 0)
        bench_die("cannot stat %s/%s: %s", f->dir_path, name, strerror(errno));
    check_ours(f, &st, name);
    return fd;
}

/* Whether `name` is there (and ours: dies otherwise). */
static int exists(const struct file_rdv *f, const char *name)
{
    struct stat st;
    if (fstatat(f->dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return 0;
        bench_die("cannot stat %s/%s: %s", f->dir_path, name, strerror(errno));
    }
    check_ours(f, &st, name);
    return 1;
}

static void touch(const struct file_rdv *f, const char *name)
{
    close(create_ours(f, name));
}

/* Waits until every rank's file `what` exists. */
static void wait_all(struct file_rdv *f, const char *what)
{
    uint64_t deadline = deadline_of(f);
    long ns = 20000;
    char name[NAME_MAX + 1];
    for (int r = 0; r < f->base.world; r++) {
        sidecar(f, name, what, r);
        while (!exists(f, name)) {
            if (tap_monotonic_ns() > deadline)
                bench_die("timed out after %d s waiting for rank %d (no %s/%s)", f->timeout_s, r, f->dir_path,
                          name);
            backoff(&ns);
        }
    }
}

static void file_barrier(struct rdv *r)
{
    struct file_rdv *f = (struct file_rdv *)r;
    char what[32], name[NAME_MAX + 1];
    snprintf(what, sizeof what, "b%u", f->gen);
    sidecar(f, name, what, r->rank);
    touch(f, name);
    wait_all(f, what);
    /* Everyone is past the previous barrier now: its file can go. The last
     * barrier's files are removed by rank 0 in finish. */
    if (f->gen > 0) {
        snprintf(what, sizeof what, "b%u", f->gen - 1);
        sidecar(f, name, what, r->rank);
        unlinkat(f->dir, name, 0);
    }
    f->gen++;
}

/* Writes `data` to `name` whole or not at all: a temporary file of ours,
 * renamed over the name. */
static void write_whole(const struct file_rdv *f, const char *name, const void *data, size_t len)
{
    char tmp[NAME_MAX + 1];
    int n = snprintf(tmp, sizeof tmp, ".%s.tmp%ld", name, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp)
        bench_die("file name too long: %s", f->id_path);
    int fd = create_ours(f, tmp);
    const char *p = data;
    int ok = 1;
    while (ok && len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        if (ok) {
            p += w;
            len -= (size_t)w;
        }
    }
    if (close(fd) != 0)
        ok = 0;
    if (!ok || renameat(f->dir, tmp, f->dir, name) != 0) {
        int e = errno;
        unlinkat(f->dir, tmp, 0);
        bench_die("cannot write %s/%s: %s", f->dir_path, name, strerror(e));
    }
}

/* Up to cap bytes of `name` (which must be there and ours); the count. */
static size_t read_whole(const struct file_rdv *f, const char *name, void *buf, size_t cap)
{
    int fd = open_ours(f, name);
    if (fd < 0)
        bench_die("%s/%s disappeared", f->dir_path, name);
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, (char *)buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    return got;
}

static long long file_sum(struct rdv *r, long long v)
{
    struct file_rdv *f = (struct file_rdv *)r;
    char what[32], name[NAME_MAX + 1], text[32];
    snprintf(what, sizeof what, "s%u", f->sums);
    sidecar(f, name, what, r->rank);
    int n = snprintf(text, sizeof text, "%lld\n", v);
    write_whole(f, name, text, (size_t)n); /* renamed into place: never read half-written */
    wait_all(f, what);
    long long total = 0;
    for (int i = 0; i < r->world; i++) {
        sidecar(f, name, what, i);
        size_t got = read_whole(f, name, text, sizeof text - 1);
        text[got] = '\0';
        char *end;
        errno = 0;
        long long x = strtoll(text, &end, 10);
        if (errno || end == text || *end != '\n')
            bench_die("cannot read a number from %s/%s", f->dir_path, name);
        total += x;
    }
    /* A rank writes sum k only once it has read every file of sum k - 1:
     * this rank's file of k - 1 can go. The last sum's files are removed by
     * rank 0 in finish. */
    if (f->sums > 0) {
        snprintf(what, sizeof what, "s%u", f->sums - 1);
        sidecar(f, name, what, r->rank);
        unlinkat(f->dir, name, 0);
    }
    f->sums++;
    return total;
}

static void write_ids(struct file_rdv *f, const ncclUniqueId *ids, int n)
{
    size_t len = sizeof(struct id_header) + (size_t)n * sizeof *ids;
    unsigned char *buf = malloc(len);
    if (!buf)
        bench_die("out of memory");
    struct id_header h;
    id_header_fill(&h, f->base.world, n);
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, ids, (size_t)n * sizeof *ids);
    /* One of another user's here would stay (rename cannot replace it in
     * a sticky directory): said plainly rather than as EPERM. */
    int fd = open_ours(f, f->id_name);
    if (fd >= 0)
        close(fd);
    write_whole(f, f->id_name, buf, len);
    free(buf);
}

/* 1 when the file holds this run's ids; 0 when it is not there yet, or
 * is not this run's (why in stale_why: an earlier run's, or not an id
 * file of this version). */
static int read_ids(struct file_rdv *f, ncclUniqueId *ids, int n, char *stale_why, size_t why_len)
{
    int fd = open_ours(f, f->id_name);
    if (fd < 0)
        return 0;
    struct id_header h;
    size_t want = (size_t)n * sizeof *ids;
    bool whole = read(fd, &h, sizeof h) == (ssize_t)sizeof h && id_header_valid(&h);
    if (!whole)
        snprintf(stale_why, why_len, "not an id file of this version of nccltap-bench");
    else if (!id_file_stale(&h, f->timeout_s, stale_why, why_len) &&
             (h.world != f->base.world || h.nids != n))
        bench_die("the id file %s is for %d ranks and %d communicators, this run has "
                  "%d and %d: two runs with one id file? Pass --id-file",
                  f->id_path, h.world, h.nids, f->base.world, n);
    if (!stale_why[0] && read(fd, ids, want) != (ssize_t)want)
        snprintf(stale_why, why_len, "shorter than its header says");
    close(fd);
    return !stale_why[0];
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
        uint64_t deadline = deadline_of(f);
        long ns = 100000;
        char stale[256] = "";
        bool said = false;
        while (!read_ids(f, ids, n, stale, sizeof stale)) {
            if (stale[0] && !said) {
                bench_note("%s is not this run's (%s): waiting for this run's rank 0 to write its own",
                           f->id_path, stale);
                said = true;
            }
            if (tap_monotonic_ns() > deadline)
                bench_die("timed out after %d s waiting for rank 0 to write %s%s%s%s", f->timeout_s,
                          f->id_path, stale[0] ? ": the one there is not this run's (" : "", stale,
                          stale[0] ? ")" : " (do all ranks see that path? set --id-file)");
            stale[0] = '\0';
            backoff(&ns);
        }
    }
    make_token(f, ids, n);
}

static void file_finish(struct rdv *r)
{
    struct file_rdv *f = (struct file_rdv *)r;
    char name[NAME_MAX + 1];
    sidecar(f, name, "done", r->rank);
    touch(f, name);
    if (r->rank != 0) {
        close(f->dir);
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
            sidecar(f, name, what, i);
            unlinkat(f->dir, name, 0);
        }
        if (f->sums > 0) {
            sidecar(f, name, sum, i);
            unlinkat(f->dir, name, 0);
        }
        sidecar(f, name, "done", i);
        unlinkat(f->dir, name, 0);
    }
    unlinkat(f->dir, f->id_name, 0);
    close(f->dir);
    free(f);
}

static const struct rdv_ops file_ops = { file_share_ids, file_barrier, file_sum, file_finish };

/* Opens the directory of f->id_path and refuses one that others could
 * replace our files in. */
static void open_dir(struct file_rdv *f)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(f->id_path, '/');
    if (slash == f->id_path)
        snprintf(dir, sizeof dir, "/");
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - f->id_path), f->id_path);
    else
        snprintf(dir, sizeof dir, ".");
    const char *name = slash ? slash + 1 : f->id_path;
    if (!*name || strlen(name) > NAME_MAX - 48 || !strcmp(name, ".") || !strcmp(name, ".."))
        bench_die("--id-file %s: not a file name", f->id_path);
    memcpy(f->id_name, name, strlen(name) + 1); /* fits: its length was checked above */
    snprintf(f->dir_path, sizeof f->dir_path, "%s", dir);
    f->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (f->dir < 0 || fstat(f->dir, &st) != 0)
        bench_die("cannot open the directory %s of the id file: %s", dir, strerror(errno));
    if (st.st_uid != geteuid() && st.st_uid != 0)
        bench_die("the directory %s of the id file is owned by uid %u, neither you nor root: refusing it "
                  "(its owner could replace the files there); pass --id-file in a directory of your own",
                  dir, (unsigned)st.st_uid);
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        bench_die("the directory %s of the id file is writable by others without the sticky bit "
                  "(mode %04o): refusing it (anyone could replace the files there); pass --id-file in a "
                  "directory of your own", dir, (unsigned)(st.st_mode & 07777));
}

struct rdv *rdv_file(const char *id_path, int rank, int world, int timeout_s)
{
    struct file_rdv *f = calloc(1, sizeof *f);
    if (!f)
        bench_die("out of memory");
    if (strlen(id_path) >= sizeof f->id_path)
        bench_die("id file path too long: %s", id_path);
    strcpy(f->id_path, id_path);
    open_dir(f);
    f->base.ops = &file_ops;
    f->base.rank = rank;
    f->base.world = world;
    f->timeout_s = timeout_s;
    return &f->base;
}
