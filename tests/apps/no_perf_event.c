/* Runs a command with perf_event_open refused (EACCES) by a seccomp filter,
 * as a container runtime's profile or kernel.perf_event_paranoid=3 would,
 * or with --kill, answered by killing the process (SIGSYS), as systemd's
 * SystemCallFilter= does: the OS test (tests/os_test.py) checks that
 * nccltap says so in one line, leaves the rest of the report whole, and
 * never gets the application killed. Needs no privilege
 * (PR_SET_NO_NEW_PRIVS). Usage: no_perf_event [--kill] CMD [ARGS...] */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "no_perf_event: add this architecture's AUDIT_ARCH"
#endif

int main(int argc, char **argv)
{
    bool kill = argc > 1 && strcmp(argv[1], "--kill") == 0;
    argv += kill;
    argc -= kill;
    if (argc < 2) {
        fprintf(stderr, "usage: no_perf_event [--kill] CMD [ARGS...]\n");
        return 2;
    }
    unsigned refusal = kill ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA);
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, refusal),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        fprintf(stderr, "no_perf_event: cannot install the seccomp filter: %s\n", strerror(errno));
        return 2;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "no_perf_event: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
