/* The mark that names the process which wrote a Prometheus file: its
 * first line, a comment node_exporter ignores,
 *     # nccltap process boot=<boot id> pidns=<inode> pid=<pid> start=<ticks>
 * The boot id, the pid namespace, the pid and the process's start time
 * (/proc/self/stat) name one process of one boot of one machine, and stay
 * the same across exec(): an image that exec() started finds by it the
 * files its earlier image left (prom_stale.h), and no other process's
 * file carries it. Cold path: read from /proc once per pid (a forked
 * child reads its own); any thread (a lock of its own, never held across
 * anything but those reads). */
#ifndef NCCLTAP_PROM_OWNER_H
#define NCCLTAP_PROM_OWNER_H

/* The mark's line, newline included, or "" when a part of it could not be
 * read (then no file is marked, and none is removed as this process's). */
const char *tap_prom_owner_mark(void);

#endif
