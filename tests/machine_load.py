"""How much of the machine other processes took while a test's job ran:
a verdict about noise (no straggler, no OS finding) is judged only on a
quiet machine, since another process's burst is real lateness that the
report rightly names. From /proc/stat, less the job's own CPU time (the
test's children, by getrusage)."""
import os
import resource


def cpu_times():
    """The machine's CPU time in s: (busy, total), from /proc/stat."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    idle = f[3] + f[4]
    return (sum(f) - idle) / hz, sum(f) / hz


def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class OthersShare:
    """with OthersShare() as o: run the job; then o.share is the share of
    the machine's CPU time that processes other than this test's children
    took meanwhile, 0..1."""

    def __enter__(self):
        self.busy0, self.total0 = cpu_times()
        self.own0 = children_cpu_s()
        self.share = 0.0
        return self

    def __exit__(self, *exc):
        busy, total = cpu_times()
        own = children_cpu_s() - self.own0
        total -= self.total0
        self.share = max(0.0, busy - self.busy0 - own) / total if total > 0 else 0.0
        return False
