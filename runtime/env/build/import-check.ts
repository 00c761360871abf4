// Whether what the environment installed can be imported. A distribution that fails at import is
// worse than one absent: a suite guards an optional module with `except ImportError`
// (pytest.importorskip, its own helper), and an import that raises anything else — a data directory
// Debian ships in a Recommends that apt leaves out, a native library that does not load — ends the
// whole collection instead of skipping the tests that need it. Each installed requirement's
// top-level modules are imported once, each in a Python of its own as the tests will run it (the
// venv's, its site, its prefix), in the offline box (no network, no secret); one that raises
// anything but ImportError, or dies, is broken. Outside the venv (Debian's directories) it is hidden
// behind a stub in the venv, which Python finds first and which raises ModuleNotFoundError with the
// reason, as an absent module does (a suite may catch only that), so the tests see it as absent; a
// module in the venv itself (or one no stub can be written for) is reported and kept. The Python
// that reads the metadata and writes the stubs runs with -I -S and never puts the installed
// directories on its sys.path (metadata is found by path), so no `.pth` file runs in it and no
// installed package can stand in for a standard module it imports: what an installed package can
// do is fail its own import, in its own Python.
import type { StepSpec } from './build-box.js';
import { VENV_PYTHON } from '../floor/names.js';
import type { PlannedRequirement } from '../plan/types.js';
import type { Shortfall } from './shortfall.js';
import { distributionDirs } from './deps/installed-versions.js';
import { normalize } from './step-output.js';
import { shQuote } from './steps.js';

const PROGRAM = String.raw`
import importlib.metadata as md, json, os, re, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
listed = json.loads(sys.argv[1])
venv_site = listed[0]
dirs = [d for d in listed if os.path.isdir(d)]
wanted = json.loads(sys.argv[2])
deadline = time.monotonic() + float(sys.argv[3])
name_re = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
probe = "import importlib, sys\ntry:\n    importlib.import_module(sys.argv[1])\nexcept ImportError:\n    sys.exit(3)\n"
def tops(name):
    try:
        dist = next(iter(md.Distribution.discover(name=name, path=dirs)), None)
        if dist is None:
            return []
        text = dist.read_text("top_level.txt")
        if text:
            names = text.split()
        else:
            names = [p.parts[0][:-3] if p.parts[0].endswith(".py") else p.parts[0]
                     for p in dist.files or [] if len(p.parts) > 1 or p.parts[0].endswith(".py")]
    except Exception:
        return []
    # Python 3.9 (Debian bullseye) has no stdlib_module_names: its builtin modules are the least.
    stdlib = getattr(sys, "stdlib_module_names", sys.builtin_module_names)
    skip = {"test", "tests"} | set(stdlib)
    return sorted({n for n in names if name_re.match(n) and n not in skip})[:5]
def check(item):
    dist, module = item
    left = min(60.0, deadline - time.monotonic())
    if left <= 0:
        return dist, module, None
    try:
        r = subprocess.run([sys.executable, "-c", probe, module], capture_output=True, text=True,
                           timeout=left, cwd="/tmp", env=dict(os.environ, HOME="/tmp"))
    except subprocess.TimeoutExpired:
        return dist, module, None
    if r.returncode in (0, 3):
        return dist, module, ""
    lines = [l.strip() for l in r.stderr.splitlines() if l.strip()]
    why = lines[-1] if lines and r.returncode > 0 else "exit %d" % r.returncode
    if r.returncode < 0:
        why = "killed by signal %d" % -r.returncode
    return dist, module, why[:240]
items = [(d, m) for d in wanted for m in tops(d)]
with ThreadPoolExecutor(max(2, os.cpu_count() or 2)) as pool:
    for dist, module, why in pool.map(check, items):
        if why is None:
            print("piper-import-slow", dist, module, flush=True)
            continue
        if not why:
            continue
        state = "kept"
        if not any(os.path.exists(os.path.join(venv_site, module + s)) for s in ("", ".py")):
            try:
                os.makedirs(os.path.join(venv_site, module))
                with open(os.path.join(venv_site, module, "__init__.py"), "w") as f:
                    f.write("raise ModuleNotFoundError(%r, name=%r)\n" % ("%s (%s) fails at import in this environment: %s; piper hid it, so tests that skip without it skip" % (module, dist, why), module))
                state = "hidden"
            except OSError:
                pass
        print("piper-import-broken", dist, module, state, json.dumps(why), flush=True)
`;

/**
 * The step importing each of `dists`' top-level modules (at most 5 a distribution), each for at
 * most 60 s and all within `budgetS`: a module still importing then, or not reached, is reported
 * slow and left as it is. The budget is well inside the step's timeout, whose end would fail the
 * build: an import that hangs costs time, never the environment.
 */
export function importCheckStep(python: string, dists: string[], budgetS = 240): StepSpec {
  const args = [JSON.stringify(distributionDirs(python)), JSON.stringify(dists), String(budgetS)];
  return {
    name: 'import check',
    script: `${VENV_PYTHON} -I -S -c ${shQuote(PROGRAM.trim())} ${args.map(shQuote).join(' ')}`,
    timeoutS: budgetS + 120,
  };
}

const SLOW = /^piper-import-slow (\S+) ([A-Za-z][A-Za-z0-9_]*)$/;

/** The modules the step did not finish importing within its budget, as `module (dist)`. */
export function parseSlowImports(stdout: string): string[] {
  return stdout.split('\n').flatMap((line) => {
    const m = SLOW.exec(line.trim());
    return m ? [`${m[2]} (${m[1]})`] : [];
  });
}

export interface BrokenImport {
  /** The normalized name of the distribution. */
  dist: string;
  module: string;
  hidden: boolean;
  why: string;
}

const LINE = /^piper-import-broken (\S+) ([A-Za-z][A-Za-z0-9_]*) (hidden|kept) (".*")$/;

/** The broken modules the step printed; a line that does not parse (untrusted output) is dropped. */
export function parseImportCheck(stdout: string): BrokenImport[] {
  const out: BrokenImport[] = [];
  for (const line of stdout.split('\n')) {
    const m = LINE.exec(line.trim());
    if (!m) continue;
    let why: unknown;
    try {
      why = JSON.parse(m[4]!);
    } catch {
      continue;
    }
    if (typeof why === 'string')
      out.push({ dist: normalize(m[1]!), module: m[2]!, hidden: m[3] === 'hidden', why });
  }
  return out;
}

/** One `broken` shortfall per distribution with a broken module, in `wanted`'s order. */
export function brokenShortfalls(
  wanted: PlannedRequirement[],
  broken: BrokenImport[],
  versions: Map<string, string>,
  sourceOf: (q: PlannedRequirement) => string,
): Shortfall[] {
  return wanted.flatMap((q) => {
    const mine = broken.filter((b) => b.dist === q.normalized);
    if (!mine.length) return [];
    const modules = mine.map((b) => `import ${b.module}: ${b.why}${b.hidden ? '' : ' (kept)'}`);
    const hidden = mine.every((b) => b.hidden);
    return [
      {
        kind: 'broken' as const,
        name: q.name,
        wanted: q.specifier || q.line,
        got: versions.get(q.normalized) ?? null,
        source: sourceOf(q),
        from: q.from,
        optional: q.optional ?? false,
        why: `${modules.join('; ')}${hidden ? '; hidden: the tests see it as absent' : ''}`,
      },
    ];
  });
}
