"""nccltap's step marker for Python programs.

`nccltap run` puts this file's directory first on PYTHONPATH when
NCCLTAP_STEP_FUNCTION names a Python function (`--step-function NAME`):
each call of that function marks a training step, as a C program's call of
nccltap_step() does (include/nccltap.h), so that the report's steps and
Prometheus' are the program's own. Python imports `sitecustomize` once, at
start-up; this one then imports the next `sitecustomize` on the path, so
that a site's or a virtual environment's still runs.

NCCLTAP_STEP_FUNCTION: a function's name (`train_step`) or qualified name
(`Trainer.train_step`), optionally after the base name of its file and a
colon (`train.py:train_step`).

How: Python 3.12 and later, sys.monitoring's PY_START event, which each
function's code raises once and no more when it is not the one named
(DISABLE); before 3.12, a profile function on every thread
(sys.setprofile, threading.setprofile), which checks every Python call
(about 0.4 us a call on Python 3.11: BENCHMARKS.md), and which a profiler
the program sets replaces.

It never stops the program: a name it cannot use, or a process without the
shim (no nccltap_step), is said once on stderr, and nothing is marked.
"""
import os
import sys


def _say(what):
    sys.stderr.write("nccltap: NCCLTAP_STEP_FUNCTION=%s: %s\n" % (os.environ.get("NCCLTAP_STEP_FUNCTION"), what))


def _parse(spec):
    """(file base name or "", function name), or None for a spec that
    names no function."""
    where, _, name = spec.strip().rpartition(":")
    if not name or not all(part.isidentifier() for part in name.split(".")):
        return None
    return where, name


def _matcher(where, name):
    def matches(code):
        if name != code.co_name and name != getattr(code, "co_qualname", code.co_name):
            return False
        return not where or os.path.basename(code.co_filename) == where
    return matches


def _monitor(matches, mark):
    """Python 3.12+: PY_START, disabled for each code that is not the one."""
    mon = sys.monitoring
    for tool in (3, 4, mon.PROFILER_ID):  # ids no standard tool claims first
        if mon.get_tool(tool) is None:
            break
    else:
        _say("every sys.monitoring tool id is in use; no steps marked")
        return
    mon.use_tool_id(tool, "nccltap")

    def start(code, offset):
        if not matches(code):
            return mon.DISABLE
        mark()
        return None
    mon.register_callback(tool, mon.events.PY_START, start)
    mon.set_events(tool, mon.events.PY_START)


def _profile(matches, mark):
    """Before 3.12: a profile function on this thread and every new one."""
    import threading

    def profile(frame, event, arg):
        if event == "call" and matches(frame.f_code):
            mark()
    sys.setprofile(profile)
    threading.setprofile(profile)


def _install():
    spec = os.environ.get("NCCLTAP_STEP_FUNCTION", "")
    if not spec.strip():
        return
    parsed = _parse(spec)
    if parsed is None:
        _say("not a function's name (NAME, Class.NAME or FILE.py:NAME); no steps marked")
        return
    import ctypes
    try:
        mark = ctypes.CDLL(None).nccltap_step
    except (OSError, AttributeError):
        _say("nccltap is not loaded in this process (no nccltap_step); no steps marked")
        return
    mark.restype = None
    mark.argtypes = []
    matches = _matcher(*parsed)
    if hasattr(sys, "monitoring"):
        _monitor(matches, mark)
    else:
        _profile(matches, mark)


def _chain():
    """Imports the next sitecustomize on the path, as Python would have."""
    here = os.path.dirname(os.path.abspath(__file__))
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    ours = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  the next one, if any
    except ImportError as e:
        if e.name != "sitecustomize":
            raise
        if ours is not None:
            sys.modules["sitecustomize"] = ours
    finally:
        sys.path[:] = saved


_install()
_chain()
