/* The one way nccltap opens a directory it writes into, in the shim and in
 * the `nccltap` command alike. nccltap runs inside other people's jobs,
 * often as root in shared directories, so it never writes through a name
 * someone else controls:
 *   - the directory is opened with O_NOFOLLOW | O_DIRECTORY (not a symlink),
 *     and used only when owned by the effective uid or root and not
 *     writable by others unless sticky (as /tmp is);
 *   - missing components are created with the mode asked for (0700 unless
 *     NCCLTAP_DIR_MODE says otherwise), set exactly, whatever the umask;
 *   - every file is then opened relative to the returned descriptor
 *     (out_file.h), so the path is never looked up again.
 * No function here prints or allocates: callers say what went wrong, once. */
#ifndef NCCLTAP_OUT_DIR_H
#define NCCLTAP_OUT_DIR_H

#include <sys/types.h>

/* The mode of the directories nccltap creates when NCCLTAP_DIR_MODE is unset. */
#define TAP_OUT_DIR_MODE_DEFAULT 0700

/* Opens `path` as a directory to write in, creating what is missing of it
 * (parents too) with `mode`. Returns a descriptor (O_RDONLY | O_DIRECTORY |
 * O_CLOEXEC), or -1 with errno set and *why a short static phrase naming
 * what failed or which rule refused the directory (for a message such as
 * "NCCLTAP_DIR=%s: %s (%s)"). Sets *created when this call made the last
 * component (may be NULL). */
int tap_out_dir_open(const char *path, mode_t mode, const char **why, int *created);

/* The rule alone, on an open directory: 0, or -1 with errno (EPERM) and
 * *why. */
int tap_out_dir_check(int dirfd, const char **why);

/* Parses a directory mode as NCCLTAP_DIR_MODE takes it: octal digits, at
 * most 0777 (no set-id or sticky bits), and at least owner rwx (nccltap
 * must be able to use what it creates). Returns 0 and sets *mode, or -1.
 * Pure: callable on any string (the configuration fuzzer does). */
int tap_out_parse_mode(const char *s, mode_t *mode);

#endif
