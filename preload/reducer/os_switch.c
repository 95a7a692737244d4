#include "reducer/os_switch.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/monotonic.h"
#include "base/switch_event.h"
#include "state/callers.h"
#include "state/comm_registry.h"
#include "writers/tracing.h"

/* One thread followed. Its slot stays when it exits (fd -1), so that the
 * intervals it left keep their name. */
struct followed {
    struct tap_os_thread info;
    int fd;
    struct perf_event_mmap_page *ring;
    bool out;             /* switched out, not back in yet: */
    uint64_t out_ns;
    uint16_t out_cpu;
    uint8_t out_preempted;
};

static struct followed threads[TAP_OS_MAX_THREADS];
static struct tap_os_thread infos[TAP_OS_MAX_THREADS];
static unsigned nthreads;
static struct tap_os_off offs[TAP_OS_MAX_OFF];
static unsigned noff, off_first;
static struct tap_os_view view;
static bool refused;
static char note[192];
static size_t page;
static uint64_t next_scan_ns;
static unsigned comms_at_scan;  /* communicators when /proc/self/task was last read */
static unsigned callers_seen;  /* state/callers.h slots followed (or tried) */
static bool busy;  /* the last poll found a ring over a quarter full */
static uint64_t retry_ns;      /* a caller failed for a passing reason: not before then */

static bool wanted(void)
{
    return tap_config.os_switch && !refused;
}

static void keep(const struct tap_os_off *o)
{
    if (noff == TAP_OS_MAX_OFF) {
        off_first = (off_first + 1) % TAP_OS_MAX_OFF;
        noff--;
        view.dropped++;
    }
    offs[(off_first + noff++) % TAP_OS_MAX_OFF] = *o;
}

static void read_comm(uint32_t tid, char comm[16])
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
    comm[0] = 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    if (fgets(comm, 16, f))
        comm[strcspn(comm, "\n")] = 0;
    fclose(f);
}

static void refuse(int err)
{
    refused = true;
    char paranoid[16] = "?";
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    if (f) {
        if (fgets(paranoid, sizeof paranoid, f))
            paranoid[strcspn(paranoid, "\n")] = 0;
        fclose(f);
    }
    snprintf(note, sizeof note, "perf_event_open refused (%s; kernel.perf_event_paranoid is %s)",
             strerror(err), paranoid);
    tap_log("NCCLTAP_OS=switch: %s: no context switches are recorded, the job runs as before "
            "(NCCLTAP_OS=off: not tried)", note);
}

/* The calling thread's seccomp mode (/proc/thread-self/status): 2 when a
 * filter applies; 0 when none or unknown. */
static int seccomp_mode(void)
{
    FILE *f = fopen("/proc/thread-self/status", "re");
    char line[128];
    int mode = 0;
    while (f && fgets(line, sizeof line, f) && sscanf(line, "Seccomp: %d", &mode) != 1)
        ;
    if (f)
        fclose(f);
    return mode;
}

/* The probe's child: the call, then the exit status it gives. Not
 * instrumented: it runs on a stack of its own, in the caller's memory. */
__attribute__((no_sanitize("address", "thread", "undefined"))) static int probe_child(void *unused)
{
    (void)unused;
    _exit(tap_switch_event_open(0) >= 0 ? 0 : 1);
}

/* Whether perf_event_open can be called without the process being killed.
 * A seccomp filter (systemd's SystemCallFilter=, a container's profile)
 * may answer a refused call by killing the caller (SIGSYS) instead of an
 * error. A filter is inherited by a child, so a child makes the call
 * first, and a child killed by a signal means no call here. The child
 * shares this memory and this thread waits for it (CLONE_VM, CLONE_VFORK:
 * nothing copied), and sends no SIGCHLD (no exit signal): the
 * application's handler never sees it, its waitpid(-1) never reaps it.
 * Sets the note when the answer is no. */
static bool perf_event_survivable(void)
{
    if (seccomp_mode() != 2)
        return true;
    static char stack[16384] __attribute__((aligned(16)));
    pid_t pid = clone(probe_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK, NULL);
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
        ;
    if (pid > 0 && !WIFSIGNALED(st))
        return true;
    refused = true;
    if (pid > 0)
        snprintf(note, sizeof note, "perf_event_open is fatal under the process's seccomp filter (a child "
                 "that tried it was killed by signal %d)", WTERMSIG(st));
    else
        snprintf(note, sizeof note, "perf_event_open may be fatal under the process's seccomp filter, and "
                 "could not be tried in a child (%s)", strerror(errno));
    tap_log("NCCLTAP_OS=switch: %s: no context switches are recorded, the job runs as before "
            "(NCCLTAP_OS=off: not tried)", note);
    return false;
}

/* Failures that pass (descriptors, memory): the thread is tried again. */
static bool passing(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOMEM || err == EAGAIN || err == EBUSY || err == EINTR;
}

/* Follows thread `tid`. False when it should be tried again later. */
static bool follow(uint32_t tid, bool nccl)
{
    static bool probed;
    if (!probed) {
        probed = true;
        if (!perf_event_survivable())
            return true;
    }
    if (nthreads == TAP_OS_MAX_THREADS) {
        view.unfollowed++;
        return true;
    }
    int fd = tap_switch_event_open((pid_t)tid);
    if (fd < 0) {
        if (errno == ESRCH)
            return true;  /* it exited meanwhile */
        if (passing(errno))
            return false;
        if (errno == EACCES || errno == EPERM || errno == ENOSYS || errno == EOPNOTSUPP ||
            errno == EINVAL || errno == ENOENT || !nthreads) {
            refuse(errno);
            return true;
        }
        view.unfollowed++;
        return true;
    }
    if (!page)
        page = (size_t)sysconf(_SC_PAGESIZE);
    void *ring = mmap(NULL, (1 + TAP_SWITCH_RING_PAGES) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) {
        /* RLIMIT_MEMLOCK past perf_event_mlock_kb: this thread is not followed. */
        close(fd);
        view.unfollowed++;
        return true;
    }
    struct followed *t = &threads[nthreads];
    *t = (struct followed){ .info = { .tid = tid, .nccl = nccl }, .fd = fd, .ring = ring };
    read_comm(tid, t->info.comm);
    infos[nthreads++] = t->info;
    return true;
}

static struct followed *find(uint32_t tid)
{
    for (unsigned i = 0; i < nthreads; i++)
        if (threads[i].info.tid == tid)
            return &threads[i];
    return NULL;
}

/* The threads that called NCCL since the last poll. One that could not
 * be followed for a passing reason (EMFILE) is tried again, with the ones
 * after it, a second later. */
static void follow_callers(uint64_t now)
{
    if (now < retry_ns)
        return;
    unsigned n = tap_callers_count();
    for (; callers_seen < n && wanted(); callers_seen++) {
        if (callers_seen >= TAP_CALLERS_MAX) {
            view.unfollowed++;
            continue;
        }
        uint32_t tid = tap_caller_at(callers_seen);
        if (!tid)
            return;  /* its slot is being filled: next poll */
        if (!find(tid) && !follow(tid, false)) {
            retry_ns = now + 1000000000ull;
            return;
        }
    }
}

/* One record of t's ring. Switch records carry sample_id: pid, tid, time, cpu. */
static void on_record(struct followed *t, const struct perf_event_header *h)
{
    const unsigned char *body = (const unsigned char *)(h + 1);
    if (h->type == PERF_RECORD_LOST && h->size >= sizeof *h + 16) {
        uint64_t lost;
        memcpy(&lost, body + 8, sizeof lost);
        view.lost += lost;
        t->out = false;  /* the switch-in that would close it may be lost */
        return;
    }
    if (h->type != PERF_RECORD_SWITCH || h->size < sizeof *h + 24)
        return;
    uint64_t ns;
    uint32_t cpu;
    memcpy(&ns, body + 8, sizeof ns);
    memcpy(&cpu, body + 16, sizeof cpu);
    if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
        t->out = true;
        t->out_ns = ns;
        t->out_cpu = (uint16_t)cpu;
        t->out_preempted = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
    } else if (t->out) {
        t->out = false;
        if (ns < t->out_ns)
            return;
        struct tap_os_off o = { t->out_ns, ns, t->info.tid, t->out_cpu, t->out_preempted };
        keep(&o);
        TAP_TRACE(os_offcpu, &o, t->info.comm);
    }
}

static void drain(struct followed *t)
{
    unsigned char *data = (unsigned char *)t->ring + page;
    uint64_t size = TAP_SWITCH_RING_PAGES * page;
    uint64_t head = __atomic_load_n(&t->ring->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = t->ring->data_tail;
    busy |= head - tail > size / 4;
    while (tail + sizeof(struct perf_event_header) <= head) {
        union {
            struct perf_event_header h;
            unsigned char bytes[256];
        } rec;
        uint64_t at = tail % size;
        memcpy(&rec.h, data + at, sizeof rec.h);  /* headers are 8-byte aligned: no wrap */
        if (rec.h.size < sizeof rec.h || tail + rec.h.size > head)
            break;
        if (rec.h.size <= sizeof rec.bytes) {
            uint64_t first = size - at < rec.h.size ? size - at : rec.h.size;
            memcpy(rec.bytes, data + at, first);
            memcpy(rec.bytes + first, data, rec.h.size - first);
            on_record(t, &rec.h);
        }
        tail += rec.h.size;
    }
    __atomic_store_n(&t->ring->data_tail, tail, __ATOMIC_RELEASE);
}

static void let_go(struct followed *t)
{
    munmap(t->ring, (1 + TAP_SWITCH_RING_PAGES) * page);
    close(t->fd);
    t->fd = -1;
    t->ring = NULL;
}

static bool alive(uint32_t tid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/task/%u", tid);
    return stat(path, &st) == 0;
}

/* NCCL's threads (proxy, progress...) by the names NCCL gives them. */
static void scan_tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && wanted()) {
        uint32_t tid = (uint32_t)strtoul(e->d_name, NULL, 10);
        if (!tid || find(tid))
            continue;
        char comm[16];
        read_comm(tid, comm);
        if (strncmp(comm, "NCCL", 4) == 0)
            follow(tid, true);
    }
    closedir(d);
}

void tap_os_poll(void)
{
    busy = false;
    if (!wanted())
        return;
    follow_callers(tap_monotonic_ns());
    for (unsigned i = 0; i < nthreads; i++)
        if (threads[i].fd >= 0)
            drain(&threads[i]);
}

void tap_os_tend(uint64_t now)
{
    if (!wanted())
        return;
    /* NCCL starts its threads as it makes a communicator: look soon after
     * one is made (at most every second), else every 10 s; reading
     * /proc costs what a thousand calls do. */
    unsigned comms = tap_comm_count();
    if (now < next_scan_ns && (comms == comms_at_scan || now + 9000000000ull < next_scan_ns))
        return;
    next_scan_ns = now + 10000000000ull;
    comms_at_scan = comms;
    for (unsigned i = 0; i < nthreads; i++)
        if (threads[i].fd >= 0 && !alive(threads[i].info.tid)) {
            drain(&threads[i]);
            let_go(&threads[i]);
        }
    scan_tasks();
}

bool tap_os_busy(void)
{
    return busy;
}

const struct tap_os_view *tap_os_view(void)
{
    view.mode = tap_config.os_switch ? "switch" : "off";
    view.note = note;
    view.threads = infos;
    view.nthreads = nthreads;
    view.off = offs;
    view.noff = noff;
    view.first = off_first;
    view.cap = TAP_OS_MAX_OFF;
    return &view;
}

void tap_os_reset(void)
{
    for (unsigned i = 0; i < nthreads; i++)
        if (threads[i].fd >= 0)
            let_go(&threads[i]);
    nthreads = noff = off_first = 0;
    callers_seen = 0;
    retry_ns = 0;
    tap_callers_reset();
    next_scan_ns = 0;
    comms_at_scan = 0;
    memset(&view, 0, sizeof view);
}
