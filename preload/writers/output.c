#include "writers/output.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "base/out_dir.h"
#include "base/out_file.h"
#include "base/process.h"

static pthread_once_t dir_once = PTHREAD_ONCE_INIT;
static int dir_fd = -1;

static void open_dir(void)
{
    const char *why;
    dir_fd = tap_out_dir_open(tap_config.dir, tap_config.dir_mode, &why, NULL);
    if (dir_fd < 0) {
        int err = errno;
        if (err == EPERM || err == ENOTDIR || err == ELOOP)
            tap_log("NCCLTAP_DIR=%s is not safe to write in (%s): no output is written", tap_config.dir, why);
        else
            tap_log("cannot create NCCLTAP_DIR=%s (%s: %s): no output is written", tap_config.dir, why,
                    strerror(err));
    }
}

int tap_output_dir(void)
{
    pthread_once(&dir_once, open_dir);
    return dir_fd;
}

void tap_output_name(char *buf, size_t len, const char *suffix)
{
    char host[128];
    tap_out_name_part(host, sizeof host, tap_process.host);
    snprintf(buf, len, "nccltap-%s@%s-%d%s", tap_config.run_id, host, tap_process.pid, suffix);
}
