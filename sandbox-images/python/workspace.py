# The sandbox's entry point for runs with a workspace (run_test, execute, env shell).
#
# No host path is ever mounted: the work arrives on stdin as one JSON line followed by the
# repository snapshot as a tar stream, which is unpacked into the work dir (a tmpfs). The line is
# {"argv": [...], "env": {...}?, "program": "..."?, "program_file": "..."?}: `env` is set before the
# command runs (the project's test variables, already checked on the host), `program` is Python
# source run as __main__ in this interpreter (execute), or, with `program_file`, the program of a
# JavaScript repository, written to that file in the work dir and run by argv. Python and pytest are imported BEFORE the work arrives,
# so a pre-started container (the warm pool) pays neither start-up when the call comes.
# `python3 -m pytest ARGS` then runs in this interpreter, exactly as `-m pytest` would (the work
# dir first on sys.path), unless the workspace holds a module that import already took from
# elsewhere (a project pytest itself depends on); any other command replaces this process. Cold
# runs use the same file, so warm and cold behave alike.
import json
import os
import sys
import sysconfig
import tarfile

import pytest

workdir = os.environ.get("PIPER_WORKDIR", "/work")
stdin = sys.stdin.buffer
spec = json.loads(stdin.readline())
argv = spec["argv"]
program = spec.get("program")
# Python 3.12+ warns unless an extraction filter is named; "tar" keeps modes and in-tree links
# (3.11.2, bookworm's, has no filters and needs none).
extract_args = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
with tarfile.open(fileobj=stdin, mode="r|") as archive:
    archive.extractall(workdir, **extract_args)


# Files the project's build generated in the checkout (a version file, a generated module), which a
# snapshot lacks: the environment image carries them (runtime/env/build/project/generated-files.ts). Never over a
# file (or link) the checkout has: "x" creates only what is not there.
def put_generated(source="/opt/piper/generated"):
    for top, _dirs, names in os.walk(source):
        for name in names:
            path = os.path.join(top, name)
            target = os.path.join(workdir, os.path.relpath(path, source))
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(path, "rb") as src, open(target, "xb") as dst:
                    dst.write(src.read())
            except OSError:
                pass


put_generated()


# A JavaScript environment keeps its installed tree in the image (PIPER_JS_TREE) and lists the
# directories whose node_modules the checkout gets as a link to it: nothing is copied per run, and
# Node resolves each module's real path, so a dependency finds its own inside the tree. Never over
# what the checkout has.
def link_node_modules(tree=os.environ.get("PIPER_JS_TREE")):
    try:
        with open(os.path.join(tree or "", ".piper-node-modules"), encoding="utf-8") as listed:
            dirs = listed.read().split("\n")
    except OSError:
        return
    for index, rel in enumerate(dirs):
        if not rel or rel.startswith("/") or ".." in rel.split("/"):
            continue
        # What the tree's cache links (.cache, .vite) point at: writable, this run's own.
        for cache in (".cache", ".vite"):
            os.makedirs(os.path.join("/tmp/piper-node-modules", str(index), cache), exist_ok=True)
        link = os.path.normpath(os.path.join(workdir, rel, "node_modules"))
        if os.path.lexists(link):
            continue
        try:
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(os.path.join(tree, rel, "node_modules"), link)
        except OSError:
            pass


link_node_modules()
# The program under test gets no stdin, as with `< /dev/null`.
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.close(null)
sys.stdin = open(os.devnull)
os.chdir(workdir)

# A project environment's .pth files name paths in the workspace (/work/src, /work/lib, an editable
# install); the interpreter read them at start-up, before the workspace arrived, and skipped what
# did not exist yet. Put those paths where site would have: right after the site-packages holding
# the .pth, so before Debian's dist-packages (appended at the end, Debian's copy of a project it
# also packages would win the import).
def workspace_paths():
    purelib = sysconfig.get_paths()["purelib"]
    if not os.path.isdir(purelib):
        return []
    found = []
    for name in sorted(os.listdir(purelib)):
        if not name.endswith(".pth"):
            continue
        with open(os.path.join(purelib, name), encoding="utf-8") as pth:
            for line in pth:
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    if os.path.isdir(line) and line not in sys.path and line not in found:
                        found.append(line)
    at = sys.path.index(purelib) + 1 if purelib in sys.path else len(sys.path)
    sys.path[at:at] = found
    return found


def preloaded_from_elsewhere(roots):
    """Modules imported before the work arrived (pytest's own: iniconfig, pluggy, packaging...)
    that the workspace provides too (a module or a regular package: a namespace portion would not
    win over them anyway). This interpreter would keep the copies it already holds."""
    names = set()
    for root in roots:
        for entry in os.listdir(root):
            path = os.path.join(root, entry)
            if entry.endswith(".py") and os.path.isfile(path):
                names.add(entry[:-3])
            elif os.path.isfile(os.path.join(path, "__init__.py")):
                names.add(entry)
    return sorted(
        name
        for name in names
        if name in sys.modules
        and not (getattr(sys.modules[name], "__file__", None) or "").startswith(workdir + "/")
    )


roots = [workdir, *workspace_paths()]
preloaded = preloaded_from_elsewhere(roots)
os.environ.update(spec.get("env") or {})

program_file = spec.get("program_file")
if program is not None and program_file:
    # A program in the project's own language (JavaScript): a file in the work dir, run by argv.
    with open(os.path.join(workdir, os.path.relpath(program_file, workdir)), "x") as out:
        out.write(program)
    os.execvp(argv[0], argv)
if program is not None:
    if preloaded:
        # A fresh interpreter imports the project's own copy of what this one already holds.
        os.execvp("python3", ["python3", "-c", program])
    # As launch.py runs a program, but in the workspace: /work first on sys.path, as `python3 -c`
    # run there would have it, so the project imports from the snapshot.
    sys.argv = ["<program>"]
    sys.path[0] = workdir
    namespace = {"__name__": "__main__", "__file__": "<program>", "__builtins__": __builtins__}
    exec(compile(program, "<program>", "exec"), namespace)
    sys.exit(0)
if argv[:3] == ["python3", "-m", "pytest"] and not preloaded:
    sys.argv = ["pytest", *argv[3:]]
    sys.path[0] = workdir
    sys.exit(int(pytest.main(argv[3:])))
# Any other command, or pytest when the workspace holds a module this interpreter already imported
# from elsewhere: a fresh process, started now that the workspace is there, imports the project's
# own copy everywhere (pytest's too), as `python3 -m pytest` in a checkout does.
os.execvp(argv[0], argv)
