#include "writers/prom_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/comm_registry.h"
#include "base/config.h"
#include "base/log.h"
#include "base/out_dir.h"
#include "base/out_file.h"
#include "writers/prom_inspector.h"
#include "writers/prom_metrics.h"
#include "writers/prom_owner.h"
#include "base/process.h"

/* Files a process can write: one per GPU it uses, and one for its
 * communicators without a known GPU. Beyond, GPUs are left out (said). */
#define MAX_FILES 64
/* node_exporter runs as another user: it must be able to enter the
 * directories nccltap creates and read the files. */
#define PROM_DIR_MODE 0755
#define PROM_FILE_MODE 0644

/* One file: its GPU, and the name chosen at its first write. */
struct prom_out {
    char gpu[48];                /* "" for communicators without a GPU */
    char name[TAP_OUT_NAME_MAX];
    char pid[16];                /* "" unless the GPU's own name is another process's */
    int lock_fd;                 /* holds the GPU's name while this process lives; -1 */
    bool written;
};

static int dir_fd = -1;
static bool dir_tried;
static struct prom_out outs[MAX_FILES];
static unsigned nouts;
static atomic_flag error_said = ATOMIC_FLAG_INIT;
static atomic_flag too_many_said = ATOMIC_FLAG_INIT;
static atomic_flag shared_said = ATOMIC_FLAG_INIT;
static atomic_flag squatter_said = ATOMIC_FLAG_INIT;

bool tap_prom_enabled(void)
{
    return tap_config.prom_dir[0] != 0;
}

void tap_prom_observe(const struct tap_completion *c)
{
    if (tap_config.prom_inspector && !c->stamped)
        tap_prom_inspector_observe(c); /* Inspector's gauges are kernel times: the timed ops only */
}

/* The directory, opened at the first call; a failure said then when
 * `say` (by rank 0 at start: tap_prom_start), never again. */
static int prom_dir(bool say)
{
    if (dir_tried)
        return dir_fd;
    dir_tried = true;
    const char *why;
    dir_fd = tap_out_dir_open(tap_config.prom_dir, PROM_DIR_MODE, &why, NULL);
    if (dir_fd >= 0 || !say)
        return dir_fd;
    int err = errno;
    if (err == EPERM || err == ENOTDIR || err == ELOOP)
        tap_log("NCCLTAP_PROM_DIR=%s is not safe to write in (%s): no Prometheus file is written",
                tap_config.prom_dir, why);
    else
        tap_log("cannot create NCCLTAP_PROM_DIR=%s (%s: %s): no Prometheus file is written",
                tap_config.prom_dir, why, strerror(err));
    return dir_fd;
}

/* Whether this process may write nccltap_<gpu>.prom: it holds the lock of
 * the hidden file .nccltap_<gpu>.lock, until it exits (the kernel lets
 * go of a dead process's lock). Two processes on one GPU (two jobs, MPS)
 * would otherwise replace each other's file, and the first to exit remove
 * the other's. The lock file stays; node_exporter reads only *.prom. */
static int lock_gpu_name(int dir, const char *part)
{
    char name[TAP_OUT_NAME_MAX];
    snprintf(name, sizeof name, ".nccltap_%s.lock", part);
    /* O_NONBLOCK: a FIFO planted under the name must not block the open. */
    int fd = openat(dir, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, PROM_FILE_MODE);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || flock(fd, LOCK_EX | LOCK_NB) != 0)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The uid of another user's file (or anything) under `name` in `dir`, or
 * -1 when there is none, or it is this process's user's. In a shared
 * sticky directory anyone can create a name first; nccltap cannot replace
 * it, and must not leave it served as the job's. */
static long long squatter_of(int dir, const char *name)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid == geteuid())
        return -1;
    return (long long)st.st_uid;
}

/* When another user holds o->name: the next name of this process's own,
 * nccltap_<part>-<pid>.prom, then -<pid>-1 ... -<pid>-8, said once. False
 * when all are taken: then this GPU has no file (said). */
static bool avoid_squatter(int dir, struct prom_out *o, const char *part)
{
    long long uid = squatter_of(dir, o->name);
    if (uid < 0)
        return true;
    char taken[TAP_OUT_NAME_MAX];
    snprintf(taken, sizeof taken, "%s", o->name);
    for (int n = 0; n <= 8; n++) {
        if (n == 0)
            snprintf(o->name, sizeof o->name, "nccltap_%s-%d.prom", part, tap_process.pid);
        else
            snprintf(o->name, sizeof o->name, "nccltap_%s-%d-%d.prom", part, tap_process.pid, n);
        if (squatter_of(dir, o->name) < 0) {
            snprintf(o->pid, sizeof o->pid, "%d", tap_process.pid);
            TAP_LOG_ONCE(squatter_said, "NCCLTAP_PROM_DIR=%s: %s belongs to uid %lld, not to this process: "
                         "this one writes %s (node_exporter serves both; README, Prometheus: a directory "
                         "only the job's user can write)", tap_config.prom_dir, taken, uid, o->name);
            return true;
        }
    }
    tap_log("NCCLTAP_PROM_DIR=%s: %s and every name nccltap would use instead belong to other users: "
            "no Prometheus file is written for it", tap_config.prom_dir, taken);
    o->name[0] = 0;
    return false;
}

/* nccltap_<GPU UUID>.prom, or nccltap_<GPU UUID>-<pid>.prom when another
 * process has the GPU's name; nccltap_<host>-<pid>.prom without a GPU;
 * another name of its own when another user holds the name. */
static void choose_name(int dir, struct prom_out *o)
{
    char part[128];
    if (!*o->gpu) {
        tap_out_name_part(part, sizeof part, tap_process.host);
        snprintf(o->name, sizeof o->name, "nccltap_%s-%d.prom", part, tap_process.pid);
        avoid_squatter(dir, o, part);
        return;
    }
    tap_out_name_part(part, sizeof part, o->gpu);
    o->lock_fd = lock_gpu_name(dir, part);
    if (o->lock_fd >= 0) {
        snprintf(o->name, sizeof o->name, "nccltap_%s.prom", part);
        avoid_squatter(dir, o, part);
        return;
    }
    snprintf(o->name, sizeof o->name, "nccltap_%s-%d.prom", part, tap_process.pid);
    if (!avoid_squatter(dir, o, part))
        return;
    /* Inspector's labels would repeat the other process's series, which
     * node_exporter drops: these carry the pid. */
    snprintf(o->pid, sizeof o->pid, "%d", tap_process.pid);
    TAP_LOG_ONCE(shared_said, "another process writes NCCLTAP_PROM_DIR's file of GPU %s: this one writes %s",
                 o->gpu, o->name);
}

static struct prom_out *out_of(int dir, const char *gpu)
{
    for (unsigned i = 0; i < nouts; i++)
        if (!strcmp(outs[i].gpu, gpu))
            return &outs[i];
    if (nouts == MAX_FILES) {
        TAP_LOG_ONCE(too_many_said, "more than %d GPUs in one process: the metrics of the others are not "
                     "written to NCCLTAP_PROM_DIR", MAX_FILES);
        return NULL;
    }
    struct prom_out *o = &outs[nouts++];
    memset(o, 0, sizeof *o);
    o->lock_fd = -1;
    snprintf(o->gpu, sizeof o->gpu, "%s", gpu);
    choose_name(dir, o);
    return o;
}

static int write_file(int dir, struct prom_out *o, bool process, const struct tap_snapshot *snap)
{
    /* A name planted since it was chosen (before this process's first
     * file took it) is another user's too. */
    if (o->name[0] && squatter_of(dir, o->name) >= 0) {
        char part[128];
        tap_out_name_part(part, sizeof part, *o->gpu ? o->gpu : tap_process.host);
        avoid_squatter(dir, o, part);
    }
    if (!o->name[0])
        return -1; /* every name was another user's: said */
    struct tap_out_file out;
    FILE *f = tap_out_file_begin(&out, dir, o->name, PROM_FILE_MODE);
    if (!f) {
        TAP_LOG_ONCE(error_said, "cannot write %s/%s (%s)", tap_config.prom_dir, o->name, strerror(errno));
        return -1;
    }
    /* Files of 100 KB and more, in thousands of small pieces: fewer,
     * larger writes, and no stream lock per piece (this thread alone
     * uses the stream). */
    static char buf[1 << 16];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    __fsetlocking(f, FSETLOCKING_BYCALLER);
    /* Which process wrote it: the image exec() starts next removes by it
     * what this one leaves (prom_stale.h). */
    fputs(tap_prom_owner_mark(), f);
    tap_prom_metrics_write(f, o->gpu, process, snap);
    if (tap_config.prom_inspector)
        /* Inspector's slurm_job_id is nccltap's job_id (SLURM_JOB_ID by
         * default): one job, one id, whatever named it. */
        tap_prom_inspector_write(f, o->gpu, tap_process.host, tap_config.job_id, o->pid);
    if (tap_out_file_commit(&out) != 0) {
        TAP_LOG_ONCE(error_said, "cannot write %s/%s (%s); the previous version is kept", tap_config.prom_dir,
                     o->name, strerror(errno));
        return -1;
    }
    o->written = true;
    return 0;
}

/* Whether this process holds rank 0 of a root communicator (made by an
 * init, not split from another): the job's rank 0. */
static bool has_rank0(void)
{
    for (unsigned i = 0; i < tap_comm_count(); i++)
        if (tap_comm_at(i)->rank == 0 && tap_comm_at(i)->origin <= TAP_ORIGIN_SCALABLE)
            return true;
    return false;
}

void tap_prom_start(void)
{
    /* Once per job, as the summary line: the job's ranks see the same
     * directory (every process says it with NCCLTAP_VERBOSE=1). */
    if (tap_prom_enabled())
        prom_dir(tap_config.verbose || has_rank0());
}

int tap_prom_write(const struct tap_snapshot *snap)
{
    if (!tap_prom_enabled())
        return 0;
    int dir = prom_dir(true);
    if (dir < 0)
        return -1;
    /* The GPUs of the communicators, in the order they first appear: each
     * communicator compared with the few GPUs known, not with the others. */
    for (unsigned i = 0; i < tap_comm_count(); i++)
        out_of(dir, tap_comm_at(i)->gpu_uuid);
    int rc = 0;
    for (unsigned i = 0; i < nouts; i++)
        /* The process's counters once, in the file of its first GPU. */
        if (write_file(dir, &outs[i], i == 0, snap) != 0)
            rc = -1;
    tap_prom_metrics_next_interval();
    tap_prom_inspector_next_interval();
    return rc;
}

void tap_prom_finish(const struct tap_snapshot *snap)
{
    if (!tap_prom_enabled())
        return;
    if (tap_config.prom_keep) {
        tap_prom_write(snap);
        return;
    }
    /* Gone with the process: node_exporter would serve its last values
     * as if it were still running (and the rules would see its last op
     * pending for ever). The name's lock goes last. */
    unsigned removed = 0;
    for (unsigned i = 0; i < nouts; i++) {
        if (outs[i].written && unlinkat(dir_fd, outs[i].name, 0) == 0)
            removed++;
        if (outs[i].lock_fd >= 0)
            close(outs[i].lock_fd);
        outs[i].lock_fd = -1;
        outs[i].written = false;
    }
    /* Said once per job, by rank 0 as the summary line is (every process
     * with verbose): a directory left empty by a short run is no fault. */
    if (removed && (tap_config.verbose || has_rank0()))
        tap_log("Prometheus files removed from NCCLTAP_PROM_DIR=%s at exit, as each rank removes its own: "
                "node_exporter would serve a finished job's last values as live (NCCLTAP_PROM_KEEP=1 keeps them)",
                tap_config.prom_dir);
}

void tap_prom_reset(void)
{
    /* The directory stays open (O_CLOEXEC). The parent's files and their
     * names' locks are the parent's: the child's copies of the lock
     * descriptors go (the parent's lock stays while the parent has it). */
    for (unsigned i = 0; i < nouts; i++)
        if (outs[i].lock_fd >= 0)
            close(outs[i].lock_fd);
    nouts = 0;
    atomic_flag_clear(&error_said);
    atomic_flag_clear(&shared_said);
    atomic_flag_clear(&squatter_said);
    tap_prom_metrics_reset();
    tap_prom_inspector_reset();
}
