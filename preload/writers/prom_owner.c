#include "writers/prom_owner.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int marked_pid;  /* the pid `mark` is of: a forked child remakes it */
static char mark[192];

/* The first line of `path`, without its newline, into buf; false when
 * unreadable or empty. */
static bool first_line(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] != '\0';
}

/* Field 22 of /proc/self/stat, the start time in clock ticks since boot:
 * after the command's closing parenthesis (the command may hold any
 * byte), the 20th field. 0 when unreadable. */
static unsigned long long start_ticks(void)
{
    char stat[1024];
    if (!first_line("/proc/self/stat", stat, sizeof stat))
        return 0;
    const char *p = strrchr(stat, ')');
    unsigned long long ticks = 0;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p)
        sscanf(p + 1, "%llu", &ticks);
    return ticks;
}

static void make_mark(int pid)
{
    char boot[64], ns[64];
    ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    unsigned long long ticks = start_ticks();
    mark[0] = '\0';
    if (n <= 0 || !ticks || !first_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot))
        return;
    ns[n] = '\0';
    unsigned long long ino = 0;
    if (sscanf(ns, "pid:[%llu]", &ino) != 1)
        return;
    snprintf(mark, sizeof mark, "# nccltap process boot=%s pidns=%llu pid=%d start=%llu\n", boot, ino, pid, ticks);
}

const char *tap_prom_owner_mark(void)
{
    int pid = getpid();
    pthread_mutex_lock(&lock);
    if (marked_pid != pid) {
        make_mark(pid);
        marked_pid = pid;
    }
    pthread_mutex_unlock(&lock);
    return mark;
}
