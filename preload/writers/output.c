#include "writers/output.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/out_dir.h"
#include "base/out_file.h"
#include "base/process.h"

static pthread_mutex_t dir_lock = PTHREAD_MUTEX_INITIALIZER;
static int dir_fd = -1;
static bool given_up;    /* refused or impossible: said, never tried again */
static bool failure_said; /* a passing failure was said: its end will be */

/* Failures that pass (descriptors, memory, space): the next call tries
 * again, so one bad moment does not cost the whole run its output. */
static bool passing(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOMEM || err == ENOSPC || err == EDQUOT ||
           err == EINTR || err == EAGAIN;
}

static void open_dir(void)
{
    const char *why;
    dir_fd = tap_out_dir_open(tap_config.dir, tap_config.dir_mode, &why, NULL);
    if (dir_fd >= 0) {
        if (failure_said)
            tap_log("NCCLTAP_DIR=%s could be opened after all: output is written from now on", tap_config.dir);
        failure_said = false;
        return;
    }
    int err = errno;
    if (passing(err)) {
        if (!failure_said)
            tap_log("cannot open NCCLTAP_DIR=%s (%s: %s): trying again at each interval and at exit",
                    tap_config.dir, why, strerror(err));
        failure_said = true;
        return;
    }
    given_up = true;
    if (err == EPERM || err == ENOTDIR || err == ELOOP)
        tap_log("NCCLTAP_DIR=%s is not safe to write in (%s): no output is written", tap_config.dir, why);
    else
        tap_log("cannot create NCCLTAP_DIR=%s (%s: %s): no output is written", tap_config.dir, why, strerror(err));
}

int tap_output_dir(void)
{
    pthread_mutex_lock(&dir_lock);
    if (dir_fd < 0 && !given_up)
        open_dir();
    int fd = dir_fd;
    pthread_mutex_unlock(&dir_lock);
    return fd;
}

/* Room kept free for the files replaced whole (the rank file, written
 * beside its previous version before the rename, and the hang report):
 * twice the rank file's last size and a margin, 64 KiB before the first. */
#define RESERVE_MARGIN (32 * 1024)
static _Atomic uint64_t reserve = 64 * 1024;

void tap_output_keep_room_for(uint64_t rank_file_bytes)
{
    atomic_store(&reserve, 2 * rank_file_bytes + RESERVE_MARGIN);
}

bool tap_output_has_room(uint64_t bytes)
{
    int dir = tap_output_dir();
    struct statvfs st;
    if (dir < 0 || fstatvfs(dir, &st) != 0)
        return true; /* not known: the write itself will say */
    uint64_t avail = (uint64_t)st.f_bavail * st.f_frsize;
    return avail >= bytes + atomic_load(&reserve);
}

/* Which image of this pid the process is: exec() keeps the pid, so the
 * environment carries "<pid>:<image>" from one image to the next, set by
 * each image as it loads (tap_output_pass_image: setenv is not safe
 * beside other threads' getenv, so never later). An image counts only if
 * it left files: a launcher that execs the program (env, taskset, sh -c
 * 'exec ...') makes no NCCL call, so the program keeps the plain name. */
#define IMAGE_VAR "NCCLTAP_IMAGE"
static unsigned image_no;
static bool after_exec;  /* NCCLTAP_IMAGE named this pid: an earlier image ran */
static int noted_pid; /* a forked child notes its own */

static void name_of_image(char *buf, size_t len, unsigned image, const char *suffix)
{
    char host[128], part[24] = "";
    tap_out_name_part(host, sizeof host, tap_process.host);
    if (image)
        snprintf(part, sizeof part, "+exec%u", image);
    snprintf(buf, len, "nccltap-%s@%s-%d%s%s", tap_config.run_id, host, tap_process.pid, part, suffix);
}

/* Whether image `image` of this process left a file in NCCLTAP_DIR: a
 * regular file of this user's under its name (not a name someone else
 * planted, which the writers refuse as they would have). */
static bool image_left_files(unsigned image)
{
    char prefix[TAP_OUT_NAME_MAX];
    name_of_image(prefix, sizeof prefix, image, ".");
    DIR *d = opendir(tap_config.dir);
    struct dirent *e;
    struct stat st;
    bool found = false;
    while (d && !found && (e = readdir(d)) != NULL)
        found = strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
                fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
                st.st_uid == geteuid();
    if (d)
        closedir(d);
    return found;
}

void tap_output_note_image(void)
{
    if (noted_pid == tap_process.pid)
        return;
    noted_pid = tap_process.pid;
    const char *was = getenv(IMAGE_VAR);
    int pid;
    unsigned n;
    image_no = 0;
    after_exec = was && sscanf(was, "%d:%u", &pid, &n) == 2 && pid == tap_process.pid && n < 1000000;
    if (after_exec)
        image_no = n + image_left_files(n);
}

bool tap_output_after_exec(void)
{
    return after_exec;
}

void tap_output_pass_image(void)
{
    tap_output_note_image();
    char now[48];
    snprintf(now, sizeof now, "%d:%u", tap_process.pid, image_no);
    setenv(IMAGE_VAR, now, 1);
}

void tap_output_name(char *buf, size_t len, const char *suffix)
{
    name_of_image(buf, len, image_no, suffix);
}
