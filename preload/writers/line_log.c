#include "writers/line_log.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/out_file.h"
#include "writers/output.h"

void tap_line_log_init(struct tap_line_log *log, const char *suffix, uint64_t limit)
{
    log->suffix = suffix;
    log->limit = limit;
    log->fd = -1;
    tap_line_log_reset(log);
}

/* Whole lines in `len` bytes from a partial write's end: the first may be
 * cut, and is counted as missing too. */
static uint64_t count_lines(const char *p, size_t len)
{
    uint64_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += p[i] == '\n';
    return n;
}

static int open_log(struct tap_line_log *log)
{
    if (log->fd >= 0 || log->failed)
        return log->fd;
    char name[TAP_OUT_NAME_MAX];
    tap_output_name(name, sizeof name, log->suffix);
    int dir = tap_output_dir();
    log->fd = dir < 0 ? -1 : tap_out_file_create(dir, name, TAP_OUT_FILE_MODE);
    if (log->fd < 0 && dir >= 0) { /* without the directory: tried again at the next flush */
        log->failed = true;
        TAP_LOG_ONCE(log->error_said, "cannot create %s/%s (%s): no per-operation log", tap_config.dir, name,
                     strerror(errno));
    }
    return log->fd;
}

void tap_line_log_flush(struct tap_line_log *log)
{
    if (log->used && log->fd >= 0 && !tap_output_has_room(log->used)) {
        log->full = log->no_room = true;
        TAP_LOG_ONCE(log->error_said, "the filesystem of %s is almost full: the per-operation log ends here "
                     "(the lines after it are counted), to keep room for the rank file", tap_config.dir);
        log->not_written += log->lines;
        log->used = 0;
        log->lines = 0;
        return;
    }
    size_t done = 0;
    while (done < log->used && log->fd >= 0) {
        ssize_t n = write(log->fd, log->buf + done, log->used - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            TAP_LOG_ONCE(log->error_said, "cannot write the per-operation log (%s); lines are missing, counted",
                         n < 0 ? strerror(errno) : "nothing written");
            log->not_written += count_lines(log->buf + done, log->used - done);
            break;
        }
        done += (size_t)n;
    }
    log->used = 0;
    log->lines = 0;
}

bool tap_line_log_skip_if_full(struct tap_line_log *log)
{
    if (log->full)
        log->not_written++;
    return log->full;
}

void tap_line_log_put(struct tap_line_log *log, const char *line, size_t len)
{
    if (len == 0 || len > sizeof log->buf || log->full || log->accepted + len > log->limit) {
        /* The file keeps its first lines, with no gap: a line that does
         * not fit ends it. */
        log->full = log->full || len != 0;
        log->not_written++;
        return;
    }
    if (open_log(log) < 0) {
        log->not_written++; /* why was said once */
        return;
    }
    if (sizeof log->buf - log->used < len)
        tap_line_log_flush(log);
    if (log->full) { /* the flush found no room: the log ends */
        log->not_written++;
        return;
    }
    memcpy(log->buf + log->used, line, len);
    log->used += len;
    log->lines++;
    log->accepted += len;
}

void tap_line_log_reset(struct tap_line_log *log)
{
    log->used = 0;
    log->lines = 0;
    if (log->fd >= 0)
        close(log->fd);
    log->fd = -1;
    log->failed = false;
    log->full = log->no_room = false;
    log->accepted = 0;
    log->not_written = 0;
    atomic_flag_clear(&log->error_said);
}
