/* The one way nccltap creates a file, relative to a directory opened with
 * out_dir.h. Every open is openat(2) with O_NOFOLLOW | O_CLOEXEC, so a
 * planted symlink is never followed and no descriptor leaks into programs
 * the application runs; new files get exactly the mode asked for.
 *
 * Two kinds of file:
 *   - replaced whole (a rank file, a Prometheus .prom file, a hang report):
 *     tap_out_file_begin() creates a temporary file under a unique hidden
 *     name (".NAME.<pid>.<random>.tmp", O_CREAT | O_EXCL), the caller writes
 *     it through the FILE*, tap_out_file_commit() renames it over NAME
 *     (renameat), so readers see the old file or the new one, never half;
 *   - appended to (a log): tap_out_file_create() makes a new file
 *     (O_CREAT | O_EXCL: never one that exists) and returns its descriptor.
 * Modes: TAP_OUT_FILE_MODE (0600) for what only the job's user should read;
 * 0644 where another user's program must read it (node_exporter).
 * No function here prints; on failure errno says why. */
#ifndef NCCLTAP_OUT_FILE_H
#define NCCLTAP_OUT_FILE_H

#include <stdio.h>
#include <sys/types.h>

#define TAP_OUT_FILE_MODE 0600

/* Room for a file name (not a path): NAME_MAX. */
#define TAP_OUT_NAME_MAX 256

struct tap_out_file {
    int dirfd;
    int fd;    /* the temporary file's, under f */
    int error; /* the errno of the first write that failed: stdio keeps only a flag */
    FILE *f;
    char name[TAP_OUT_NAME_MAX];
    char tmp[TAP_OUT_NAME_MAX];
};

/* Starts replacing `name` in `dirfd`. Returns the stream to write, or NULL
 * (errno set; nothing is left behind). The stream writes through `o`,
 * which stays where it is until commit or abort. */
FILE *tap_out_file_begin(struct tap_out_file *o, int dirfd, const char *name, mode_t mode);

/* Closes the stream and renames the temporary file over `name`. Returns
 * 0, or -1 with errno when a write, the close or the rename failed; the
 * temporary file is removed then, and the previous `name` is kept. */
int tap_out_file_commit(struct tap_out_file *o);

/* Gives up: closes the stream and removes the temporary file. */
void tap_out_file_abort(struct tap_out_file *o);

/* Creates `name` in `dirfd`, which must not exist, for writing (O_WRONLY |
 * O_APPEND). Returns the descriptor, or -1 with errno (EEXIST when it
 * exists). */
int tap_out_file_create(int dirfd, const char *name, mode_t mode);

/* Copies `src` into `dst` (size `len`) as one piece of a file name: bytes
 * other than letters, digits, '.', '_' and '-' become '_' (a host name or
 * a run id cannot add a '/' or a control character to a name). Truncates;
 * never empty ("_" for an empty source). */
void tap_out_name_part(char *dst, size_t len, const char *src);

#endif
