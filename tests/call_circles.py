#!/usr/bin/env python3
"""Call circles and floors, drawn from the code's own includes and calls.

A module is a .c file and the .h of the same name in the same folder. One
module depends on another when one of its files #includes a header of the
other (resolved as the compiler does: the file's own folder, then the
target's -iquote, -I and -isystem folders, read from the build's flags.make)
or when its object file leaves a symbol undefined that the other's object
defines (read with gcc-nm, which also reads the shim's LTO objects; an
undefined symbol is a call or an address taken alike). Objects are those
the product's link line names (link.txt), static libraries' included.

Checked, each group on its own target's link:
  preload/      (libnccltap.so, target nccltap_shim)
  tools/cli/    (nccltap)
  tools/bench/  (nccltap-bench)
  * no two modules of a group are in a circle (strongly connected component
    of more than one module);
  * in preload/, every module calls and includes only its own floor or a
    floor below (FLOORS), so a function pointer kept in a lower floor can
    never hold a higher floor's function: taking its address there is an
    undefined symbol like a call; no #include "../"; every include of a
    preload header is folder-qualified ("state/x.h").

  * in tools/cli/report/ (any folder named report/ under the group), the
    stages load/, analyze/, render/ use only their own stage or one
    before it (REPORT_STAGES), by call or include, except that render/
    includes analyze/'s headers for the result's types: a renderer
    reads the one analysis's result and calls no analysis.

Findings listed in the allow-list (tests/call_circles.allow) are tolerated
while the tree is being untangled; one not listed fails, and so does a
listed one no longer found, so the list can only shrink.

Usage: call_circles.py BUILD-DIR SOURCE-DIR [ALLOW-FILE]
       call_circles.py --self-test FIXTURE-DIR CC
Needs the Makefile generator (link.txt, flags.make) and a built tree.
Exit: 0 clean, 1 findings, 2 usage or an unreadable build tree.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# group folder -> the target whose link defines the group's objects
GROUPS = {"preload": "nccltap_shim", "tools/cli": "nccltap", "tools/bench": "nccltap-bench"}

# preload's floors, bottom to top; folders on one floor do not call each
# other unless they are one folder (nccl and cuda are side by side; abi
# holds headers only, which base may include).
FLOORS = [["abi", "base"], ["nccl", "cuda"], ["state"], ["stats"], ["writers"],
          ["reducer"], ["runtime"], ["entry"]]
FLOOR_OF = {folder: level for level, folders in enumerate(FLOORS) for folder in folders}
SHARED_FLOOR_OK = {("base", "abi"), ("abi", "base")}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
DEFINED_TYPES = set("TDBRWVGSCi")
SOURCE_EXTS = (".c", ".h")


class BuildTreeError(Exception):
    pass


def module_of(path):
    """The module a source file belongs to: its path without .c/.h."""
    return os.path.splitext(path)[0]


def under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


# --- the build tree --------------------------------------------------------

def find_target_dirs(build):
    """target name -> its CMakeFiles/<target>.dir, for every target built."""
    dirs = {}
    for root, subdirs, _ in os.walk(build):
        if os.path.basename(root) == "CMakeFiles":
            for d in subdirs:
                if d.endswith(".dir"):
                    dirs.setdefault(d[:-4], os.path.join(root, d))
            subdirs[:] = [d for d in subdirs if not d.endswith(".dir")]
    return dirs


def link_tokens(target_dir):
    """The words of a target's link.txt and the folder the link runs in."""
    path = os.path.join(target_dir, "link.txt")
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise BuildTreeError(f"{path}: {e.strerror} (configure with the Makefile generator and build first)")
    cwd = os.path.dirname(os.path.dirname(target_dir))
    return [os.path.normpath(os.path.join(cwd, t)) if not os.path.isabs(t) else t
            for t in shlex.split(text)], cwd


def archive_makers(target_dirs):
    """archive path -> the target dir whose link.txt makes it (ar qc LIB ...)."""
    makers = {}
    for tdir in target_dirs.values():
        try:
            tokens, _ = link_tokens(tdir)
        except BuildTreeError:
            continue
        archives = [t for t in tokens if t.endswith(".a")]
        if archives and os.path.basename(tokens[0]).endswith("ar"):
            makers[archives[0]] = tdir
    return makers


def source_of_object(obj, build, src):
    """The source file CMake compiled OBJ from (its path mirrors the source's)."""
    head, sep, tail = obj.partition(os.sep + "CMakeFiles" + os.sep)
    if not sep:
        return None
    rel = tail.split(os.sep, 1)[1]                     # drop <target>.dir
    rel = os.sep.join(".." if p == "__" else p for p in rel.split(os.sep))
    source = os.path.normpath(os.path.join(src, os.path.relpath(head, build), rel[:-2]))
    return source if os.path.isfile(source) else None


def link_objects(target, target_dirs, makers, build, src):
    """object path -> source path (relative to SRC) for everything TARGET links."""
    if target not in target_dirs:
        raise BuildTreeError(f"{build}: no CMakeFiles/{target}.dir (build the target {target} first)")
    tokens, _ = link_tokens(target_dirs[target])
    objects = [t for t in tokens if t.endswith(".o")]
    dirs = [target_dirs[target]]
    for archive in (t for t in tokens[1:] if t.endswith(".a")):
        if archive in makers:
            lib_tokens, _ = link_tokens(makers[archive])
            objects += [t for t in lib_tokens if t.endswith(".o")]
            dirs.append(makers[archive])
    mapping = {}
    for obj in objects:
        if not os.path.isfile(obj):
            raise BuildTreeError(f"{obj}: missing (build the target {target} first)")
        source = source_of_object(obj, build, src)
        if source:
            mapping[obj] = os.path.relpath(source, src)
    return mapping, dirs


def quote_dirs(target_dirs_used):
    """The folders quoted includes search after the file's own, in order."""
    iquote, dash_i, isystem = [], [], []
    for tdir in target_dirs_used:
        try:
            with open(os.path.join(tdir, "flags.make")) as f:
                lines = [l for l in f if l.startswith(("C_INCLUDES", "C_FLAGS"))]
        except OSError:
            continue
        words = shlex.split(" ".join(l.split("=", 1)[1] for l in lines))
        for i, w in enumerate(words):
            for flag, into in (("-iquote", iquote), ("-isystem", isystem), ("-I", dash_i)):
                if w == flag and i + 1 < len(words):
                    into.append(words[i + 1])
                elif w.startswith(flag) and len(w) > len(flag) and flag != "-iquote":
                    into.append(w[len(flag):])
    seen, ordered = set(), []
    for d in iquote + dash_i + isystem:
        if d not in seen:
            seen.add(d)
            ordered.append(d)
    return ordered


# --- the graph --------------------------------------------------------------

def symbols(objects):
    """object -> (defined global symbols, undefined symbols), for OBJECTS."""
    nm = shutil.which("gcc-nm") or "nm"
    table = {obj: (set(), set()) for obj in objects}
    if not objects:
        return table
    out = subprocess.run([nm, "-P", "-A"] + sorted(objects), capture_output=True, text=True)
    if out.returncode != 0:
        raise BuildTreeError(f"{nm} -P -A on the objects failed: {out.stderr.strip()}")
    for line in out.stdout.splitlines():
        obj, _, rest = line.partition(": ")
        parts = rest.split()
        if obj in table and len(parts) >= 2:
            defined, undefined = table[obj]
            if parts[1] == "U":
                undefined.add(parts[0])
            elif parts[1] in DEFINED_TYPES:
                defined.add(parts[0])
    return table


def includes_of(src, folder):
    """(file, line number, quoted name) for every quoted include under FOLDER."""
    found = []
    for root, subdirs, files in os.walk(os.path.join(src, folder)):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_EXTS):
                path = os.path.join(root, name)
                with open(path, errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if m:
                            found.append((os.path.relpath(path, src), n, m.group(1)))
    return found


def resolve_include(src, including, name, search_dirs):
    """The file a quoted include names, relative to SRC (None: outside SRC or absent)."""
    for d in [os.path.join(src, os.path.dirname(including))] + search_dirs:
        candidate = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(candidate):
            rel = os.path.relpath(candidate, src)
            return None if rel.startswith("..") else rel
    return None


def build_graph(src, folder, objects, search_dirs):
    """module -> {module: [why, ...]}, for the modules under FOLDER.

    OBJECTS maps every linked object to its source (relative to SRC); only
    those under FOLDER become modules, but any may define a symbol."""
    graph = {}

    def edge(a, b, why):
        if a != b:
            graph.setdefault(a, {}).setdefault(b, []).append(why)
            graph.setdefault(b, {})

    for path, n, name in includes_of(src, folder):
        target = resolve_include(src, path, name, search_dirs)
        graph.setdefault(module_of(path), {})
        if target and under(target, folder):
            edge(module_of(path), module_of(target), f'{path}:{n} #include "{name}"')

    table = symbols(sorted(objects))
    definer = {}
    for obj, (defined, _) in table.items():
        for sym in defined:
            definer.setdefault(sym, []).append(objects[obj])
    for obj, (_, undefined) in table.items():
        if not under(objects[obj], folder):
            continue
        graph.setdefault(module_of(objects[obj]), {})
        for sym in sorted(undefined):
            for source in definer.get(sym, []):
                if under(source, folder):
                    edge(module_of(objects[obj]), module_of(source),
                         f"{objects[obj]} uses {sym} of {source}")
    return graph


def circles(graph):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def shortest_path(graph, start, goal, members):
    """Modules from START to GOAL inside MEMBERS, by breadth-first search."""
    previous, frontier = {start: None}, [start]
    while frontier and goal not in previous:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt in members and nxt not in previous:
                    previous[nxt] = node
                    following.append(nxt)
        frontier = following
    path = [goal]
    while path[-1] != start:
        path.append(previous[path[-1]])
    return path[::-1]


def chain(graph, component):
    """A closed walk through every module of COMPONENT, as lines 'a -> b: why'."""
    members = set(component)
    walk, left = [component[0]], set(component[1:])
    while left:
        goal = min(left, key=lambda m: (len(shortest_path(graph, walk[-1], m, members)), m))
        walk += shortest_path(graph, walk[-1], goal, members)[1:]
        left -= set(walk)
    if len(walk) == 1 or walk[-1] != walk[0]:
        walk += shortest_path(graph, walk[-1], walk[0], members)[1:]
    return [f"    {a} -> {b}: {reasons(graph[a][b])}" for a, b in zip(walk, walk[1:])]


def reasons(whys, shown=3):
    """The first SHOWN reasons for one edge, and how many more there are."""
    more = f"; and {len(whys) - shown} more" if len(whys) > shown else ""
    return "; ".join(whys[:shown]) + more


# --- preload's floors ---------------------------------------------------------

def floor_folder(path, folder):
    """The floor folder of a file under FOLDER (preload/), or None."""
    parts = os.path.relpath(path, folder).split(os.sep)
    return parts[0] if len(parts) > 1 and parts[0] in FLOOR_OF else None


def may_use(from_folder, to_folder):
    if from_folder == to_folder or (from_folder, to_folder) in SHARED_FLOOR_OK:
        return True
    return FLOOR_OF[to_folder] < FLOOR_OF[from_folder]


def floor_findings(src, folder, graph, search_dirs):
    """(allow-list key, message) for every break of the floor rule in FOLDER."""
    findings = []
    for module in sorted(graph):
        if floor_folder(module, folder) is None:
            findings.append((f"floor: {module} is in no floor",
                             f"{module}: not in a floor folder ({', '.join(sorted(FLOOR_OF))})"))
    for a in sorted(graph):
        for b, why in sorted(graph[a].items()):
            fa, fb = floor_folder(a, folder), floor_folder(b, folder)
            if fa and fb and not may_use(fa, fb):
                findings.append((f"floor: {a} -> {b}", f"{fa}/ uses {fb}/, not below it: {reasons(why)}"))
    for path, n, name in includes_of(src, folder):
        where = f'{path}:{n} #include "{name}"'
        if name.startswith("../") or "/../" in name:
            findings.append((f'include: {path} "{name}"', f'{where}: no "../" (name the floor folder: "state/x.h")'))
            continue
        target = resolve_include(src, path, name, search_dirs)
        if target and under(target, folder) and os.path.join(folder, name) != target:
            findings.append((f'include: {path} "{name}"',
                             f'{where}: not folder-qualified (write "{os.path.relpath(target, folder)}")'))
    return findings


# --- the report's stages -----------------------------------------------------------

# load/ fills the document, analyze/ derives the one result from it,
# render/ prints the document and the result.
REPORT_STAGES = {"load": 0, "analyze": 1, "render": 2}


def report_stage(path):
    """(stage folder, its order) of a file in a report/ folder's stage, else None."""
    parts = path.split(os.sep)
    for i in range(len(parts) - 2):
        if parts[i] == "report" and parts[i + 1] in REPORT_STAGES:
            return parts[i + 1], REPORT_STAGES[parts[i + 1]]
    return None


def stage_findings(graph):
    """(allow-list key, message) for every use of a later report stage, and
    every call from render/ into analyze/."""
    findings = []
    for a in sorted(graph):
        for b, why in sorted(graph[a].items()):
            sa, sb = report_stage(a), report_stage(b)
            if not sa or not sb or sa == sb:
                continue
            calls = [w for w in why if " uses " in w]
            if sb[1] > sa[1]:
                findings.append((f"stage: {a} -> {b}", f"{sa[0]}/ uses {sb[0]}/, a later stage: {reasons(why)}"))
            elif (sa[0], sb[0]) == ("render", "analyze") and calls:
                findings.append((f"stage: {a} -> {b}",
                                 f"render/ calls analyze/ (a renderer reads the result): {reasons(calls)}"))
    return findings


# --- the report ----------------------------------------------------------------

def read_allow(path):
    """The allow-list's entries (comments and blank lines skipped)."""
    if not path:
        return set()
    try:
        with open(path) as f:
            lines = [l.split("#", 1)[0].strip() for l in f]
    except OSError as e:
        raise BuildTreeError(f"{path}: {e.strerror}")
    return {" ".join(l.split()) for l in lines if l}


def check(findings, allowed, allow_path):
    """Print findings against the allow-list; True when nothing fails."""
    ok = True
    for key, text in findings:
        if key in allowed:
            print(f"allowed: {key}")
            continue
        ok = False
        print(f"FAIL: {text}")
    found = {k for k, _ in findings}
    for key in sorted(allowed - found):
        ok = False
        smaller = [k for k in found - allowed if k.split() and set(k.split()) < set(key.split())]
        hint = f"replace it with '{smaller[0]}'" if smaller else "remove the line"
        print(f"FAIL: {allow_path} lists '{key}', which is no longer found: {hint}")
    return ok


def group_findings(src, folder, objects, search_dirs):
    graph = build_graph(src, folder, objects, search_dirs)
    findings = []
    for component in circles(graph):
        text = f"circle of {len(component)} modules in {folder}/:\n" + "\n".join(chain(graph, component))
        findings.append((" ".join(component), text))
    if folder == "preload":
        findings += floor_findings(src, folder, graph, search_dirs)
    findings += stage_findings(graph)
    return findings


def run(build, src, allow_path):
    build, src = os.path.abspath(build), os.path.abspath(src)
    target_dirs = find_target_dirs(build)
    makers = archive_makers(target_dirs)
    findings = []
    for folder, target in GROUPS.items():
        objects, dirs = link_objects(target, target_dirs, makers, build, src)
        findings += group_findings(src, folder, objects, quote_dirs(dirs))
    allowed = read_allow(allow_path)
    ok = check(findings, allowed, allow_path)
    if ok and allowed:
        print(f"nothing new: the {len(allowed)} findings left are those {allow_path} lists")
    elif ok:
        print("no call circles in " + ", ".join(f"{f}/" for f in GROUPS) +
              "; preload/ calls and includes only down its floors; the report's render/ calls no analysis")
    return 0 if ok else 1


# --- the checker's own test ------------------------------------------------------

def self_test(fixtures, cc):
    """Compile tests/layout's fixtures and check what is found in them."""
    fixtures = os.path.abspath(fixtures)
    objects = {}
    with tempfile.TemporaryDirectory() as tmp:
        for root, _, files in os.walk(fixtures):
            for name in files:
                if name.endswith(".c"):
                    path = os.path.join(root, name)
                    obj = os.path.join(tmp, os.path.relpath(path, fixtures).replace(os.sep, "_") + ".o")
                    made = subprocess.run([cc, "-c", "-I", os.path.join(fixtures, "preload"), path, "-o", obj])
                    if made.returncode != 0:
                        raise BuildTreeError(f"{path}: {cc} could not compile the fixture")
                    objects[obj] = os.path.relpath(path, fixtures)
        keys = {}
        for folder in ("mutual", "oneway", "included", "preload", "report"):
            picked = {o: s for o, s in objects.items() if under(s, folder)}
            for key, text in group_findings(fixtures, folder, picked, [os.path.join(fixtures, "preload")]):
                print(text)
                keys.setdefault(folder, set()).add(key)
    expected = {
        "mutual": {"mutual/ping mutual/pong"},
        "included": {"included/first included/second"},
        "preload": {"floor: preload/state/low -> preload/writers/high",
                    'include: preload/state/other.c "../base/ground.h"',
                    'include: preload/state/low.c "low.h"',
                    "floor: preload/misplaced is in no floor"},
        "report": {"stage: report/render/page -> report/analyze/result",
                   "stage: report/load/reader -> report/render/page"},
    }
    failures = [f"{folder}: found {sorted(keys.get(folder, set()))}, expected {sorted(want)}"
                for folder, want in expected.items() if keys.get(folder, set()) != want]
    if keys.get("oneway"):
        failures.append(f"oneway: found {sorted(keys['oneway'])}, expected nothing (calls go one way)")
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print("self-test: the mutual calls and includes are circles, the one-way calls are not, "
              "the upward call and includes are caught, and a renderer's call into an analysis")
    return 1 if failures else 0


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "--self-test":
            return self_test(argv[2], argv[3])
        if len(argv) in (3, 4) and not argv[1].startswith("-"):
            return run(argv[1], argv[2], argv[3] if len(argv) == 4 else None)
    except BuildTreeError as e:
        print(f"call_circles.py: {e}", file=sys.stderr)
        return 2
    print("usage: call_circles.py BUILD-DIR SOURCE-DIR [ALLOW-FILE]\n"
          "       call_circles.py --self-test FIXTURE-DIR CC", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
