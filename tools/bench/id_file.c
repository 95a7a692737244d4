#include "id_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* The first line of `path` into out[len] without its newline; "" when it
 * cannot be read. */
static void read_line(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    if (fgets(out, (int)len, f))
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

/* Field 22 of /proc/PID/stat (starttime), 0 when the process is not there
 * (or cannot be read). The command name (field 2) may hold spaces and
 * parentheses: fields are counted after its last ')'. */
static uint64_t start_ticks_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    /* After ')': field 3 (state) is the first; starttime is field 22. */
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static void pid_ns_of_self(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/ns/pid", out, len - 1);
    out[n > 0 ? n : 0] = '\0';
}

void id_header_fill(struct id_header *h, int world, int nids)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, ID_MAGIC, sizeof h->magic);
    h->world = world;
    h->nids = nids;
    h->pid = (int32_t)getpid();
    h->start_ticks = start_ticks_of(getpid());
    h->written_unix_s = (int64_t)time(NULL);
    read_line("/proc/sys/kernel/random/boot_id", h->boot_id, sizeof h->boot_id);
    pid_ns_of_self(h->pid_ns, sizeof h->pid_ns);
}

bool id_header_valid(const struct id_header *h)
{
    return memcmp(h->magic, ID_MAGIC, sizeof h->magic) == 0 && h->world > 0 && h->nids > 0 &&
           h->nids <= 1024 && h->pid > 0 && memchr(h->boot_id, '\0', sizeof h->boot_id) &&
           memchr(h->pid_ns, '\0', sizeof h->pid_ns);
}

bool id_file_stale(const struct id_header *h, int timeout_s, char *why, size_t len)
{
    char boot[sizeof h->boot_id], ns[sizeof h->pid_ns];
    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    pid_ns_of_self(ns, sizeof ns);
    /* Written here: the writer is rank 0 of this run only if it still runs. */
    if (boot[0] && ns[0] && !strcmp(boot, h->boot_id) && !strcmp(ns, h->pid_ns)) {
        uint64_t ticks = start_ticks_of((pid_t)h->pid);
        if (!ticks) {
            snprintf(why, len, "its rank 0, pid %d, is gone", (int)h->pid);
            return true;
        }
        if (h->start_ticks && ticks != h->start_ticks) {
            snprintf(why, len, "its rank 0, pid %d, is gone: that pid is another process now", (int)h->pid);
            return true;
        }
        return false;
    }
    /* Written elsewhere: no process to look at. This run's rank 0 waits at
     * most --timeout for the others, so a file older than that is not
     * this run's (or its rank 0 has given up). */
    int64_t age = (int64_t)time(NULL) - h->written_unix_s;
    if (age > timeout_s) {
        snprintf(why, len, "written on another host %lld s ago, more than --timeout %d s", (long long)age,
                 timeout_s);
        return true;
    }
    return false;
}
