// Undo of a run's edits (primitives/undo.ts, `piper-agent undo`) over real files, the real code
// index and lint gate, and a real SQLite ledger file; and the diff round trip undo relies on.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { undoCommand } from '../../cli/commands/undo.js';
import { applyPatch } from '../../primitives/diff/apply-patch.js';
import { unifiedDiff } from '../../primitives/diff/unified-diff.js';
import { editEntity, type EditContext } from '../../primitives/tools/edit-entity/effect.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { undoRun } from '../../primitives/undo.js';
import { editsForRun } from '../../runtime/ledger/edits.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { createRun } from '../../runtime/ledger/runs.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'edit');
const FILES = ['src/calc/ops.py', 'src/calc/report.py', 'src/calc/broken.py'];
const gate = new LintGate({ python: 'python3' }); // the host's python3: unit tests run without the engine
afterAll(() => gate.close());

let root: string;
let ledgerFile: string;
let ledger: Ledger;
let runId: string;
let ctx: EditContext;
let originals: Map<string, Buffer>;

const read = (path: string) => readFileSync(join(root, path));

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'piper-undo-'));
  cpSync(FIXTURE, root, { recursive: true });
  ledgerFile = join(mkdtempSync(join(tmpdir(), 'piper-undo-ledger-')), 'ledger.db');
  ledger = Ledger.open(ledgerFile);
  runId = createRun(ledger, { kind: 'fix', repo: root, owner: 'test:1:1' });
  ctx = { repoRoot: root, index: await CodeIndex.open(root, ledger), ledger, runId, lint: gate };
  originals = new Map(FILES.map((f) => [f, read(f)]));
});
afterEach(() => ledger.close());

async function edit(selector: string, search: string, replace: string): Promise<void> {
  const result = await editEntity(ctx, { selector, search, replace });
  expect(result.error).toBeNull();
}

/** Two edits of ops.py, then one of report.py: the run's edits, in order. */
async function makeThreeEdits(): Promise<void> {
  await edit('src.calc.ops.Calc.add', 'total = a + b', 'total = b + a');
  await edit('src.calc.ops.double', '    result = x * 2\n', '    # doubled twice over\n    result = x * 2\n');
  await edit('src.calc.report.summary', '{mean}', '{sum(values) / count}');
}

describe('undoRun', () => {
  it('restores byte-identical originals over two edits of one file and one of another, latest first', async () => {
    chmodSync(join(root, 'src/calc/ops.py'), 0o640);
    await makeThreeEdits();
    expect(read('src/calc/ops.py').equals(originals.get('src/calc/ops.py')!)).toBe(false);

    const result = await undoRun({ repoRoot: root, ledger, runId, index: ctx.index });
    expect(result).toEqual({
      ok: true,
      error: null,
      data: {
        runId,
        // report.py was edited last, so it is restored first.
        files: [
          { path: 'src/calc/report.py', edits: 1 },
          { path: 'src/calc/ops.py', edits: 2 },
        ],
        undone: 3,
      },
    });
    for (const f of FILES) expect(read(f).equals(originals.get(f)!)).toBe(true);
    expect(statSync(join(root, 'src/calc/ops.py')).mode & 0o7777).toBe(0o640);
    const rows = editsForRun(ledger, runId, { includeUndone: true });
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.undone_at !== null)).toBe(true);
    // The index followed: the entity spans are the original file's again.
    expect(ctx.index.get('src.calc.ops.double')?.startLine).toBe(17);

    // Nothing is left to undo; a second undo changes nothing.
    expect(await undoRun({ repoRoot: root, ledger, runId })).toEqual({
      ok: true,
      error: null,
      data: { runId, files: [], undone: 0 },
    });
  });

  it('refuses, naming the file, when a file changed after the run edited it, and touches nothing', async () => {
    await makeThreeEdits();
    const editedOps = read('src/calc/ops.py');
    const report = join(root, 'src/calc/report.py');
    writeFileSync(report, `${readFileSync(report, 'utf8')}# changed by hand after the run\n`);
    const changedReport = read('src/calc/report.py');

    const result = await undoRun({ repoRoot: root, ledger, runId });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      new RegExp(
        `^src/calc/report\\.py changed after run ${runId} edited it \\(sha256 [0-9a-f]{12}, the run left [0-9a-f]{12}\\); nothing was undone$`,
      ),
    );
    // ops.py was restorable, but an undo is all or nothing: it keeps the run's edits.
    expect(read('src/calc/ops.py').equals(editedOps)).toBe(true);
    expect(read('src/calc/report.py').equals(changedReport)).toBe(true);
    expect(editsForRun(ledger, runId)).toHaveLength(3);
    expect(readdirSync(join(root, 'src/calc')).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('refuses when a stored diff does not give back the recorded original (tampered ledger)', async () => {
    await makeThreeEdits();
    const editedOps = read('src/calc/ops.py');
    const first = editsForRun(ledger, runId)[0]!;
    ledger.database
      .prepare(
        `UPDATE edits SET diff = replace(diff, '-        total = a + b', '-        total = a - b') WHERE id = ?`,
      )
      .run(first.id);
    const result = await undoRun({ repoRoot: root, ledger, runId });
    expect(result.error).toBe(
      `src/calc/ops.py: reversing edit ${first.id} does not give back the recorded original; nothing was undone`,
    );
    expect(read('src/calc/ops.py').equals(editedOps)).toBe(true);
    expect(editsForRun(ledger, runId)).toHaveLength(3);
  });

  it('refuses an unknown run', async () => {
    expect(await undoRun({ repoRoot: root, ledger, runId: 'r-nope' })).toEqual({
      ok: false,
      error: 'no run r-nope in the ledger',
      data: null,
    });
  });
});

describe('piper-agent undo', () => {
  const capture = () => {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
    return { out, err };
  };
  afterEach(() => vi.restoreAllMocks());

  it('undoes a run from its ledger file and prints what it restored', async () => {
    await makeThreeEdits();
    ledger.close();
    const { out } = capture();
    // The repository is named: undo restores the current repository's files, never the ledger's path.
    const code = await undoCommand([runId, '--ledger', ledgerFile, '--repo', root]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    expect(out.join('')).toBe(
      `undid 3 edit(s) of run ${runId}:\n  restored src/calc/report.py (1 edit(s))\n  restored src/calc/ops.py (2 edit(s))\n`,
    );
    for (const f of FILES) expect(read(f).equals(originals.get(f)!)).toBe(true);
    ledger = Ledger.open(ledgerFile);
  });

  it('--json: a refusal is exit 1 with the error, and nothing changes', async () => {
    await makeThreeEdits();
    ledger.close();
    writeFileSync(join(root, 'src/calc/ops.py'), 'x = 1\n');
    const { out } = capture();
    const code = await undoCommand([runId, '--ledger', ledgerFile, '--repo', root, '--json']);
    vi.restoreAllMocks();
    expect(code).toBe(1);
    const result = JSON.parse(out.join('')) as { ok: boolean; error: string; run_id: string };
    expect(result).toMatchObject({ ok: false, run_id: runId });
    expect(result.error).toMatch(/^src\/calc\/ops\.py changed after run /);
    expect(read('src/calc/ops.py').toString()).toBe('x = 1\n');
    ledger = Ledger.open(ledgerFile);
  });

  it('a missing ledger is a failure that says where it looked; no run id is a usage error', async () => {
    const { err } = capture();
    const missing = join(root, 'nowhere', 'ledger.db');
    expect(await undoCommand(['r-x', '--ledger', missing])).toBe(1);
    vi.restoreAllMocks();
    expect(err.join('')).toContain(`no ledger at ${missing}`);
    await expect(undoCommand([])).rejects.toThrow(/give exactly one run id/);
  });
});

describe('unified diff round trip', () => {
  // A seeded generator: the same cases every run.
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const vocabulary = ['a\n', 'b\n', 'c\n', '\n', 'def f():\n', '    return 1\n', 'x = "é✓"\n', 'crlf\r\n'];
  const randomText = () => {
    const lines = Array.from({ length: random(30) }, () => vocabulary[random(vocabulary.length)]!);
    let text = lines.join('');
    if (text && random(3) === 0) text = text.slice(0, -1); // no newline at end of file
    return text;
  };

  it('applies forward and in reverse, byte-exact, over 500 random pairs', () => {
    for (let i = 0; i < 500; i++) {
      const a = randomText();
      const b = random(4) === 0 ? a : randomText();
      const diff = unifiedDiff('f.py', a, b);
      if (a === b) {
        expect(diff).toBe('');
        continue;
      }
      expect(applyPatch(a, diff)).toEqual({ ok: true, text: b });
      expect(applyPatch(b, diff, { reverse: true })).toEqual({ ok: true, text: a });
    }
  });

  it('git apply accepts the diffs, including no newline at end of file and CRLF lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-diff-git-'));
    const pairs: Array<[string, string]> = [
      ['a\nb\nc\n', 'a\nB\nc'],
      ['one\r\ntwo\r\nthree\r\n', 'one\r\n2\r\nthree\r\nfour\r\n'],
      ['', 'new\n'],
      [
        Array.from({ length: 40 }, (_, i) => `line ${i}\n`).join(''),
        Array.from({ length: 40 }, (_, i) => (i % 13 ? `line ${i}\n` : `LINE ${i}\n`)).join(''),
      ],
    ];
    for (const [a, b] of pairs) {
      writeFileSync(join(dir, 'f.py'), a);
      writeFileSync(join(dir, 'p.diff'), unifiedDiff('f.py', a, b));
      execFileSync('git', ['apply', '--whitespace=nowarn', 'p.diff'], { cwd: dir });
      expect(readFileSync(join(dir, 'f.py'), 'utf8')).toBe(b);
    }
  });

  it('matches the hunks of git diff for a two-change file', () => {
    const a = Array.from({ length: 30 }, (_, i) => `l${i}\n`).join('');
    const b = a.replace('l3\n', 'L3\n').replace('l20\n', 'l20\nadded\n');
    const dir = mkdtempSync(join(tmpdir(), 'piper-diff-git-'));
    writeFileSync(join(dir, 'a'), a);
    writeFileSync(join(dir, 'b'), b);
    let gitDiff = '';
    try {
      execFileSync('git', ['diff', '--no-index', '--no-color', 'a', 'b'], { cwd: dir, encoding: 'utf8' });
    } catch (error) {
      gitDiff = (error as { stdout: string }).stdout; // exit 1 = the files differ
    }
    // git adds a section heading after a hunk header (`@@ -19,6 +19,7 @@ l17`); ours has none.
    const hunks = (text: string) => text.slice(text.indexOf('@@')).replace(/^(@@ [^@]+ @@).*$/gm, '$1');
    expect(hunks(unifiedDiff('f.py', a, b))).toBe(hunks(gitDiff));
  });

  it('refuses a diff that does not match the text, instead of guessing', () => {
    const diff = unifiedDiff('f.py', 'a\nb\nc\n', 'a\nB\nc\n');
    expect(applyPatch('a\nb\nX\n', diff)).toEqual({ ok: false, reason: 'line 3 does not match the diff' });
    expect(applyPatch('a\nb\nc\n', 'garbage')).toEqual({ ok: false, reason: 'the diff has no hunk' });
  });
});
