#include "writers/output.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

void tap_output_name(char *buf, size_t len, const char *suffix)
{
    char host[128];
    tap_out_name_part(host, sizeof host, tap_process.host);
    snprintf(buf, len, "nccltap-%s@%s-%d%s", tap_config.run_id, host, tap_process.pid, suffix);
}
