// The fuzz run: a seeded generator of hostile repositories — huge and sparse files, links to devices
// and outside paths, FIFOs, deep and wide include and group graphs, deep markers, names with control
// characters, adversarial text for the planner's patterns, long requirements files — each planned
// (`env plan`'s planner and text) and indexed (`index`) by the compiled product in a worker with a
// heap limit, each case with a time limit. A case passes when it is planned or refused with a known
// error, in time, within the heap. The seed is printed; PIPER_FUZZ_SEED=N runs the same cases again.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

const SEED = Number(process.env.PIPER_FUZZ_SEED ?? Date.now() % 2 ** 31);
const CASES = Number(process.env.PIPER_FUZZ_CASES ?? 160);
const CASE_LIMIT_MS = 15_000;
const HEAP_LIMIT_MB = 384;
const dir = mkdtempSync(join(tmpdir(), 'piper-fuzz-'));

/** mulberry32: a small seeded generator, so a failing seed is a reproducible repository. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: Random, lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

const DECLARATIONS = [
  'pyproject.toml',
  'requirements.txt',
  'setup.cfg',
  'tox.ini',
  'noxfile.py',
  '.piper/sandbox.toml',
];
const PLACES = [...DECLARATIONS, 'test_a.py', 'tests/test_b.py', 'conftest.py', '.piper/config.json'];
const CONTROL = ['\x1b]0;T\x07', '\x1b[2J', '\u009b', '\u202e', '\x07', '\x7f'];

function put(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  rmSync(join(root, rel), { force: true });
  writeFileSync(join(root, rel), text);
}

/** Each one adds one kind of hostility to a repository, its size drawn from `random`. */
const HOSTILE: Record<string, (root: string, random: Random) => string | void> = {
  hugeSparse: (root, random) => {
    const rel = pick(random, PLACES);
    put(root, rel, '');
    truncateSync(join(root, rel), pick(random, [5 * 2 ** 20, 70 * 2 ** 20, 2 ** 30]));
  },
  linkOut: (root, random) => {
    const rel = pick(random, PLACES);
    put(root, rel, '');
    rmSync(join(root, rel));
    symlinkSync(
      pick(random, ['/dev/zero', '/etc/hostname', '..', '/', '../../outside.txt']),
      join(root, rel),
    );
  },
  fifo: (root, random) => {
    const rel = pick(random, PLACES);
    put(root, rel, '');
    rmSync(join(root, rel));
    execFileSync('mkfifo', [join(root, rel)]);
  },
  includesWide: (root, random) => {
    const n = between(random, 5, 40);
    for (let i = 0; i < n; i++)
      put(root, `req/r${i}.txt`, `-r r${i + 1}.txt\n-r r${i + 1}.txt\n-c r${i + 1}.txt\n`);
    put(root, `req/r${n}.txt`, 'attrs\n');
    put(root, 'requirements.txt', '-r req/r0.txt\n');
  },
  includesDeep: (root, random) => {
    const n = between(random, 100, 3000);
    for (let i = 0; i < n; i++) put(root, `deep/d${i}.txt`, `-r d${i + 1}.txt\n`);
    put(root, `deep/d${n}.txt`, 'attrs\n');
    put(root, 'requirements-dev.txt', '-r deep/d0.txt\n');
  },
  groups: (root, random) => {
    const n = between(random, 10, random() < 0.5 ? 40 : 9000);
    const twice = random() < 0.5;
    const lines = ['[dependency-groups]', 'test = [{include-group = "g0"}]'];
    for (let i = 0; i < n; i++)
      lines.push(`g${i} = [{include-group = "g${i + 1}"}${twice ? `, {include-group = "g${i + 1}"}` : ''}]`);
    lines.push(`g${n} = ["attrs"]`);
    put(root, 'pyproject.toml', `${lines.join('\n')}\n`);
  },
  deepMarker: (root, random) => {
    const depth = between(random, 10, 10_000);
    const terms = Array(between(random, 1, 5000))
      .fill('python_version > "3"')
      .join(pick(random, [' and ', ' or ']));
    put(root, 'requirements.txt', `attrs; ${'('.repeat(depth)}${terms}${')'.repeat(depth)}\n`);
  },
  controlNames: (root, random) => {
    const name = `t${pick(random, CONTROL)}x${pick(random, CONTROL)}`;
    put(root, `${name}.py`, `import ${pick(random, ['yaml', 'requests', 'os'])}\n`);
    put(root, `tests/test_${name}.py`, 'import pytest\n');
    put(root, 'requirements.txt', `attrs --x${pick(random, CONTROL)}\n`);
  },
  adversarialText: (root, random) => {
    const size = between(random, 1, 2) * 2 ** 20;
    const text = pick(random, ['\n', ' \n', 'unittest ', 'setup_requires = x\n', '#include\n', '(']);
    const file = pick(random, ['test_a.py', 'setup.cfg', 'tox.ini', 'tests/test_c.py', 'conftest.py']);
    const times = Math.floor(size / text.length);
    put(root, file, text.repeat(times));
    return `${JSON.stringify(text)} × ${times} in ${file}`;
  },
  longRequirements: (root, random) => {
    const n = between(random, 500, 3000);
    put(
      root,
      'requirements.txt',
      Array.from({ length: n }, (_, i) => `p${i}>=1; python_version > "3"`).join('\n'),
    );
  },
};

function hostileRepo(index: number, random: Random): { root: string; kinds: string[] } {
  const root = join(dir, `case${index}`);
  mkdirSync(join(root, '.piper'), { recursive: true });
  put(root, 'test_ok.py', 'def test_ok():\n    pass\n');
  const kinds = Array.from({ length: between(random, 1, 3) }, () => pick(random, Object.keys(HOSTILE))).map(
    (kind) => {
      const detail = HOSTILE[kind]!(root, random);
      return detail ? `${kind} ${detail}` : kind;
    },
  );
  return { root, kinds };
}

interface Answer {
  plan: { ok?: string; bad?: string };
  index: { ok?: string; bad?: string };
  heapMb: number;
}

let worker: Worker | null = null;
function startWorker(): Worker {
  return new Worker(join(packageRoot(), 'test/helpers/fuzz-worker.mjs'), {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PIPER_DIST: join(packageRoot(), 'dist') },
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB },
  });
}

/** One case in the worker: its answer, or why there was none (time limit, heap limit, crash). */
function runCase(root: string, ledgerFile: string): Promise<Answer | { failed: string }> {
  worker ??= startWorker();
  const w = worker;
  return new Promise((resolve) => {
    const done = (result: Answer | { failed: string }, restart: boolean) => {
      clearTimeout(timer);
      w.removeAllListeners('message').removeAllListeners('error');
      if (restart) {
        void w.terminate();
        worker = null;
      }
      resolve(result);
    };
    const timer = setTimeout(() => done({ failed: `over ${CASE_LIMIT_MS} ms` }, true), CASE_LIMIT_MS);
    w.once('message', (answer: Answer) => done(answer, false));
    w.once('error', (error: Error) => done({ failed: `${error.name}: ${error.message}` }, true));
    w.postMessage({ root, ledgerFile });
  });
}

afterAll(async () => {
  await worker?.terminate();
  rmSync(dir, { recursive: true, force: true });
});

describe(`fuzz: ${CASES} hostile repositories (seed ${SEED}; PIPER_FUZZ_SEED=${SEED} repeats them)`, () => {
  it('each is planned and indexed, or refused with a known error, in time and within the heap', async () => {
    console.log(`fuzz seed ${SEED}`);
    const random = generator(SEED);
    const failures: string[] = [];
    for (let i = 0; i < CASES; i++) {
      const { root, kinds } = hostileRepo(i, random);
      const answer = await runCase(root, join(dir, `case${i}.db`));
      if (process.env.PIPER_FUZZ_TRACE)
        console.log(i, kinds.join(', '), JSON.stringify(answer).slice(0, 200));
      const bad = 'failed' in answer ? answer.failed : (answer.plan.bad ?? answer.index.bad);
      if (bad) failures.push(`case ${i} (${kinds.join(', ')}): ${bad}`);
      rmSync(root, { recursive: true, force: true });
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
