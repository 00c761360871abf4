# The sandbox's entry point for runs with a workspace (run_test, execute, env shell).
#
# No host path is ever mounted: the work arrives on stdin as one JSON line followed by the
# repository snapshot as a tar stream, which is unpacked into the work dir (a tmpfs). The line is
# {"argv": [...], "env": {...}?, "program": "..."?}: `env` is set before the command runs (the
# project's test variables, already checked on the host), `program` is Python source run as
# __main__ in this interpreter (execute). Python and pytest are imported BEFORE the work arrives,
# so a pre-started container (the warm pool) pays neither start-up when the call comes.
# `python3 -m pytest ARGS` then runs in this interpreter, exactly as `-m pytest` would (the work
# dir first on sys.path); any other command replaces this process. Cold runs use the same file,
# so warm and cold behave alike.
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
# The program under test gets no stdin, as with `< /dev/null`.
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.close(null)
sys.stdin = open(os.devnull)
os.chdir(workdir)

# A project environment's .pth files name paths in the workspace (/work/src, an editable install);
# the interpreter read them at start-up, before the workspace arrived, and skipped what did not
# exist yet. Add those paths now, in the order and place site would have.
purelib = sysconfig.get_paths()["purelib"]
if os.path.isdir(purelib):
    for name in sorted(os.listdir(purelib)):
        if not name.endswith(".pth"):
            continue
        with open(os.path.join(purelib, name), encoding="utf-8") as pth:
            for line in pth:
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    if os.path.isdir(line) and line not in sys.path:
                        sys.path.append(line)

os.environ.update(spec.get("env") or {})

if program is not None:
    # As launch.py runs a program, but in the workspace: /work first on sys.path, as `python3 -c`
    # run there would have it, so the project imports from the snapshot.
    sys.argv = ["<program>"]
    sys.path[0] = workdir
    namespace = {"__name__": "__main__", "__file__": "<program>", "__builtins__": __builtins__}
    exec(compile(program, "<program>", "exec"), namespace)
    sys.exit(0)
if argv[:3] == ["python3", "-m", "pytest"]:
    sys.argv = ["pytest", *argv[3:]]
    sys.path[0] = workdir
    sys.exit(int(pytest.main(argv[3:])))
os.execvp(argv[0], argv)
