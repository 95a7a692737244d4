#include "prom_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "comm_registry.h"
#include "config.h"
#include "log.h"
#include "out_dir.h"
#include "out_file.h"
#include "prom_inspector.h"
#include "prom_metrics.h"
#include "runtime.h"

/* Files a process can write: one per GPU it uses, and one for its
 * communicators without a known GPU. Beyond, GPUs are left out (said). */
#define MAX_FILES 64
/* node_exporter runs as another user: it must be able to enter the
 * directories nccltap creates and read the files. */
#define PROM_DIR_MODE 0755
#define PROM_FILE_MODE 0644

static int dir_fd = -1;
static bool dir_tried;
static char written[MAX_FILES][TAP_OUT_NAME_MAX]; /* names this process wrote */
static unsigned nwritten;
static atomic_flag error_said = ATOMIC_FLAG_INIT;
static atomic_flag too_many_said = ATOMIC_FLAG_INIT;

bool tap_prom_enabled(void)
{
    return tap_config.prom_dir[0] != 0;
}

void tap_prom_observe(const struct tap_completion *c)
{
    if (tap_config.prom_inspector)
        tap_prom_inspector_observe(c);
}

static int prom_dir(void)
{
    if (dir_tried)
        return dir_fd;
    dir_tried = true;
    const char *why;
    dir_fd = tap_out_dir_open(tap_config.prom_dir, PROM_DIR_MODE, &why, NULL);
    if (dir_fd < 0) {
        int err = errno;
        if (err == EPERM || err == ENOTDIR || err == ELOOP)
            tap_log("NCCLTAP_PROM_DIR=%s is not safe to write in (%s): no Prometheus file is written",
                    tap_config.prom_dir, why);
        else
            tap_log("cannot create NCCLTAP_PROM_DIR=%s (%s: %s): no Prometheus file is written",
                    tap_config.prom_dir, why, strerror(err));
    }
    return dir_fd;
}

/* nccltap_<GPU UUID>.prom, or nccltap_<host>-<pid>.prom without one. */
static void file_name(char *buf, size_t len, const char *gpu)
{
    char part[128];
    if (*gpu) {
        tap_out_name_part(part, sizeof part, gpu);
        snprintf(buf, len, "nccltap_%s.prom", part);
    } else {
        tap_out_name_part(part, sizeof part, tap_process.host);
        snprintf(buf, len, "nccltap_%s-%d.prom", part, tap_process.pid);
    }
}

static void remember(const char *name)
{
    for (unsigned i = 0; i < nwritten; i++)
        if (!strcmp(written[i], name))
            return;
    if (nwritten < MAX_FILES)
        snprintf(written[nwritten++], sizeof written[0], "%s", name);
}

static int write_file(int dir, const char *gpu, bool process)
{
    char name[TAP_OUT_NAME_MAX];
    file_name(name, sizeof name, gpu);
    struct tap_out_file out;
    FILE *f = tap_out_file_begin(&out, dir, name, PROM_FILE_MODE);
    if (!f) {
        TAP_LOG_ONCE(error_said, "cannot write %s/%s (%s)", tap_config.prom_dir, name, strerror(errno));
        return -1;
    }
    /* Files of 100 KB and more: fewer, larger writes. */
    static char buf[1 << 16];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    tap_prom_metrics_write(f, gpu, process);
    if (tap_config.prom_inspector)
        tap_prom_inspector_write(f, gpu, tap_process.host, tap_config.slurm_job_id);
    if (tap_out_file_commit(&out) != 0) {
        TAP_LOG_ONCE(error_said, "cannot write %s/%s (%s); the previous version is kept", tap_config.prom_dir,
                     name, strerror(errno));
        return -1;
    }
    remember(name);
    return 0;
}

/* Whether an earlier communicator is on the same GPU: its file is written. */
static bool gpu_seen_before(unsigned i)
{
    for (unsigned j = 0; j < i; j++)
        if (!strcmp(tap_comm_at(j)->gpu_uuid, tap_comm_at(i)->gpu_uuid))
            return true;
    return false;
}

int tap_prom_write(void)
{
    if (!tap_prom_enabled())
        return 0;
    int dir = prom_dir();
    if (dir < 0)
        return -1;
    int rc = 0;
    unsigned files = 0;
    for (unsigned i = 0; i < tap_comm_count(); i++) {
        if (gpu_seen_before(i))
            continue;
        if (files == MAX_FILES) {
            TAP_LOG_ONCE(too_many_said, "more than %d GPUs in one process: the metrics of the others are not "
                         "written to NCCLTAP_PROM_DIR", MAX_FILES);
            break;
        }
        /* The process's counters once, in the file of its first GPU. */
        if (write_file(dir, tap_comm_at(i)->gpu_uuid, files++ == 0) != 0)
            rc = -1;
    }
    tap_prom_metrics_next_interval();
    tap_prom_inspector_next_interval();
    return rc;
}

void tap_prom_finish(void)
{
    if (!tap_prom_enabled())
        return;
    if (tap_config.prom_keep) {
        tap_prom_write();
        return;
    }
    /* Gone with the process: node_exporter would serve its last values
     * as if it were still running. */
    for (unsigned i = 0; i < nwritten && dir_fd >= 0; i++)
        unlinkat(dir_fd, written[i], 0);
    nwritten = 0;
}

void tap_prom_reset(void)
{
    /* The directory stays open (O_CLOEXEC); the parent's files are the
     * parent's to remove. */
    nwritten = 0;
    atomic_flag_clear(&error_said);
    tap_prom_metrics_reset();
    tap_prom_inspector_reset();
}
