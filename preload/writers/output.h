/* Where this process's output goes: NCCLTAP_DIR, opened once with the
 * rules of out_dir.h, and the names of the files in it. Every writer of the
 * shim (rank file, per-op log, hang report, Prometheus file) creates its
 * file with out_file.h relative to tap_output_dir(), named by
 * tap_output_name(). Not for the hot path: the first call opens the
 * directory (and creates it). A forked child keeps the directory; its
 * names change with its pid. */
#ifndef NCCLTAP_OUTPUT_H
#define NCCLTAP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The output directory's descriptor, or -1 when there is none: then one
 * message has said why. Refused as unsafe or impossible to make: nothing
 * is ever written. A failure that passes (EMFILE, ENOMEM, ENOSPC...): the
 * next call tries again (the writers call it at each interval and at
 * exit), and a message says when it succeeds. Thread-safe; the first call
 * from any thread opens it. */
int tap_output_dir(void);

/* The rank file has priority over the per-op files on a filesystem that
 * fills: the rank file's writer says how big it was (keep_room_for), and
 * the per-op writers ask, before they make their file longer, whether
 * `bytes` more leaves room for it (true when free space is not known). */
void tap_output_keep_room_for(uint64_t rank_file_bytes);
bool tap_output_has_room(uint64_t bytes);

/* This process's file name with `suffix` (".json", ".ops.jsonl", ...):
 * nccltap-<run id>@<host>-<pid><suffix>; the run id and host reduced to
 * file-name characters (out_file.h, tap_out_name_part). An image that
 * exec() started in a process whose earlier image used nccltap writes
 * beside that one's files: nccltap-<run id>@<host>-<pid>+exec<n><suffix>. */
void tap_output_name(char *buf, size_t len, const char *suffix);

/* Says which image of this pid the process is, from NCCLTAP_IMAGE
 * ("<pid>:<image>", set by the image before); once per pid, so a forked
 * child is image 0 of its own pid. Reads the environment only. */
void tap_output_note_image(void);

/* Whether the image noted follows an earlier image of this pid that ran
 * nccltap (NCCLTAP_IMAGE named the pid): exec() ended that one, with no
 * exit handler. After tap_output_note_image. */
bool tap_output_after_exec(void);

/* Notes the image, then sets NCCLTAP_IMAGE for the next one. setenv: only
 * from the shim's constructor while the process has one thread (a forked
 * child's later exec() starts at image 0 again, and replaces the files of
 * the child's own earlier image, if it wrote any). */
void tap_output_pass_image(void);

#endif
