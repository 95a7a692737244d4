/* The one way nccltap opens a directory it writes into, in the shim and in
 * the `nccltap` command alike. nccltap runs inside other people's jobs,
 * often as root in shared directories, so it never writes through a name
 * someone else controls:
 *   - the path is resolved one component at a time from / (or from the
 *     working directory for a relative path), each opened with openat(2)
 *     and O_NOFOLLOW | O_DIRECTORY, so the kernel never follows a symlink
 *     on its own;
 *   - a symlink above the output directory is followed only when it and
 *     the directory holding it are owned by the effective uid or root, and
 *     that directory is not writable by others unless sticky (nobody else
 *     can replace the symlink): /var/run -> /run and the caller's own links
 *     work; another user's symlink, or any symlink in a directory another
 *     user owns, is refused (EPERM). At most 40 symlinks, as the kernel.
 *     (openat2's RESOLVE_NO_SYMLINKS would refuse every symlink, root's
 *     /var/run included, so it is not used.);
 *   - the output directory itself is never a symlink, and is used only
 *     when owned by the effective uid or root and not writable by others
 *     unless sticky (as /tmp is);
 *   - missing components are created with the mode asked for (0700 unless
 *     NCCLTAP_DIR_MODE says otherwise), set exactly, whatever the umask;
 *   - every file is then opened relative to the returned descriptor
 *     (out_file.h), so the path is never looked up again.
 * No function here prints or allocates: callers say what went wrong, once.
 * Callable from any thread. */
#ifndef NCCLTAP_OUT_DIR_H
#define NCCLTAP_OUT_DIR_H

#include <sys/types.h>

/* The mode of the directories nccltap creates when NCCLTAP_DIR_MODE is unset. */
#define TAP_OUT_DIR_MODE_DEFAULT 0700

/* Opens `path` as a directory to write in, creating what is missing of it
 * (parents too) with `mode`. Returns a descriptor (O_RDONLY | O_DIRECTORY |
 * O_CLOEXEC), or -1 with errno set and *why a short static phrase naming
 * what failed or which rule refused the directory (for a message such as
 * "NCCLTAP_DIR=%s: %s (%s)"): EPERM, ENOTDIR or ELOOP when a rule refused
 * it. Sets *created when this call made the last component (may be
 * NULL). */
int tap_out_dir_open(const char *path, mode_t mode, const char **why, int *created);

/* The same for a directory that must exist already: nothing is created
 * (ENOENT, "cannot open it", when a component is missing). */
int tap_out_dir_open_existing(const char *path, const char **why);

/* The rule alone, on an open directory: 0, or -1 with errno (EPERM) and
 * *why. */
int tap_out_dir_check(int dirfd, const char **why);

/* What NCCLTAP_DIR_MODE accepts, for messages: the modes with which the
 * directories made pass tap_out_dir_check(). */
#define TAP_OUT_DIR_MODES_ACCEPTED "an octal mode from 0700 to 0775 without write permission for others"

/* Parses a directory mode as NCCLTAP_DIR_MODE takes it: octal digits, at
 * most 0777 (no set-id or sticky bits), at least owner rwx (nccltap must be
 * able to use what it creates), and no write permission for others (a
 * directory others can write in, not sticky, is refused to write in).
 * Returns NULL and sets *mode, or a static phrase saying why the value is
 * refused (for "NCCLTAP_DIR_MODE=%s is not valid: %s; expected "
 * TAP_OUT_DIR_MODES_ACCEPTED). Pure: callable on any string. */
const char *tap_out_mode_refusal(const char *s, mode_t *mode);

/* The same, as 0 (accepted, *mode set) or -1 (the configuration fuzzer). */
int tap_out_parse_mode(const char *s, mode_t *mode);

#endif
