/* A log of whole lines that this process appends to a file of its own in
 * the output directory (created new with out_file.h, relative to
 * tap_output_dir(), never through a name someone else controls), bounded
 * in size: once a line would take the file past its limit, that line and
 * every later one are not written but counted, so the file holds the
 * first lines whole and never grows without bound. The per-op logs
 * (ops_log.h) are made of it. One thread only (the reducer). */
#ifndef NCCLTAP_LINE_LOG_H
#define NCCLTAP_LINE_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tap_line_log {
    const char *suffix;   /* of the file's name (tap_output_name), NULL before init */
    uint64_t limit;       /* bytes the file may hold */
    uint64_t accepted;    /* bytes written or gathered to be */
    uint64_t not_written; /* lines past the limit, or that could not be written */
    bool full;            /* a line did not fit, or the filesystem was nearly
                           * full: nothing more is written */
    bool no_room;         /* full because the filesystem was nearly full */
    bool failed;          /* the file could not be created: said once */
    int fd;               /* -1 until the first line that fits */
    atomic_flag error_said;
    /* Gathered here and written with write(2), whole lines only: no stdio
     * buffer that a forked child could flush a second time, and no torn
     * line when the process dies between two writes. */
    size_t used;
    unsigned lines;       /* gathered in buf */
    char buf[64 * 1024];
};

/* Sets the file's suffix and its limit in bytes (0: no file, every line
 * counted). */
void tap_line_log_init(struct tap_line_log *log, const char *suffix, uint64_t limit);

/* Appends `line` (`len` bytes, its newline included), or counts it as not
 * written when it does not fit under the limit. len 0 is a line that could
 * not be made: counted the same way, so that no op goes missing unsaid. */
void tap_line_log_put(struct tap_line_log *log, const char *line, size_t len);

/* When a line has already not fitted, counts one more line as not written
 * and returns true: the caller need not make it. */
bool tap_line_log_skip_if_full(struct tap_line_log *log);

/* Writes what is gathered; what cannot be written (an error, or the room
 * the rank file keeps: output.h) is counted as not written, and on a
 * nearly full filesystem the log ends there, with no gap. */
void tap_line_log_flush(struct tap_line_log *log);

/* In a forked child: the parent's lines, file and counts are not the
 * child's; its file is made anew, under its own name. */
void tap_line_log_reset(struct tap_line_log *log);

#endif
