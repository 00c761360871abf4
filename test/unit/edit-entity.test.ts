// edit_entity against the real code index, real files in a temp copy of test/fixtures/edit, the
// real lint gate (ruff WASM + python3 compile()) and a real SQLite ledger file.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { editEntity, type EditContext } from '../../primitives/tools/edit-entity/effect.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import type { EntityLookup } from '../../primitives/types.js';
import { editsForRun } from '../../runtime/ledger/edits.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { createRun } from '../../runtime/ledger/runs.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'edit');
const gate = new LintGate({ python: 'python3' }); // the host's python3: unit tests run without the engine
afterAll(() => gate.close());

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

interface Repo {
  root: string;
  ledger: Ledger;
  index: CodeIndex;
  runId: string;
  ctx: EditContext;
  read(path: string): Buffer;
}

async function openRepo(): Promise<Repo> {
  const root = mkdtempSync(join(tmpdir(), 'piper-edit-'));
  cpSync(FIXTURE, root, { recursive: true });
  const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-edit-ledger-')), 'ledger.db'));
  const index = await CodeIndex.open(root, ledger);
  const runId = createRun(ledger, { kind: 'fix', repo: root, owner: 'test:1:1' });
  return {
    root,
    ledger,
    index,
    runId,
    ctx: { repoRoot: root, index, ledger, runId, lint: gate },
    read: (path) => readFileSync(join(root, path)),
  };
}

let repo: Repo;
beforeEach(async () => {
  repo = await openRepo();
});

describe('edit_entity: the lint gate', () => {
  it('refuses an edit that introduces an undefined name; the file stays byte-identical, nothing recorded', async () => {
    const before = repo.read('src/calc/ops.py');
    const dirBefore = readdirSync(join(repo.root, 'src/calc')).sort();
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.Calc.add',
      search: 'return total',
      replace: 'return total + offset',
    });
    expect(result.ok).toBe(false);
    expect(result.error).toBe(
      'edit refused by the lint gate: 1 new diagnostic(s): F821 Undefined name `offset` (line 10)',
    );
    expect(result.data).toMatchObject({ committed: false, lint_clean: false });
    expect(result.data?.new_diagnostics).toEqual([
      { code: 'F821', message: 'Undefined name `offset`', line: 10, column: 24 },
    ]);
    expect(result.data?.diff).toContain('-        return total\n+        return total + offset\n');
    expect(repo.read('src/calc/ops.py').equals(before)).toBe(true);
    expect(readdirSync(join(repo.root, 'src/calc')).sort()).toEqual(dirBefore); // no temp file left behind
    expect(editsForRun(repo.ledger, repo.runId)).toEqual([]);
  });

  it('refuses what only python3 compile() sees (await outside async)', async () => {
    const before = repo.read('src/calc/ops.py');
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.double',
      search: 'x * 2',
      replace: 'await x',
    });
    expect(result.ok).toBe(false);
    // CPython's wording varies by version ('await' outside (async) function); the rest does not.
    expect(result.data?.new_diagnostics).toEqual([
      {
        code: 'E999',
        message: expect.stringMatching(/^SyntaxError: 'await' outside /),
        line: 18,
        column: 14,
      },
    ]);
    expect(repo.read('src/calc/ops.py').equals(before)).toBe(true);
  });

  it('allows an edit that fixes a pre-existing error, and then the file is lint-clean', async () => {
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.report.summary',
      search: '{mean}',
      replace: '{sum(values) / count}',
    });
    expect(result).toMatchObject({ ok: true, error: null, data: { committed: true, lint_clean: true } });
    expect(repo.read('src/calc/report.py').toString()).toContain(
      'return f"{count} values, mean {sum(values) / count}"\n',
    );
  });

  it('lets pre-existing errors stand: an edit elsewhere commits, lint_clean false (non-ASCII spans)', async () => {
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.report.grüße',
      search: '"héllo, "',
      replace: '"grüß dich, "',
    });
    expect(result).toMatchObject({ ok: true, data: { committed: true, lint_clean: false } });
    const text = repo.read('src/calc/report.py').toString();
    expect(text).toContain('    return "grüß dich, " + name + " ✓"\n');
    expect(text).toContain('mean {mean}'); // the old F821 is still there, and did not block
  });

  it('keeps a UTF-8 BOM and CRLF line ends byte for byte', async () => {
    const path = join(repo.root, 'src/calc/bom.py');
    writeFileSync(path, "\uFEFFdef greet(name):\r\n    return 'hi ' + name\r\n");
    await repo.index.refresh(['src/calc/bom.py']);
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.bom.greet',
      search: "'hi '",
      replace: "'hello '",
    });
    expect(result).toMatchObject({ ok: true, data: { committed: true, lint_clean: true } });
    expect(
      readFileSync(path).equals(Buffer.from("\uFEFFdef greet(name):\r\n    return 'hello ' + name\r\n")),
    ).toBe(true);
  });

  it('allows fixing a syntax error although it unmasks old findings elsewhere (unused import)', async () => {
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.broken',
      search: 'def broken(a:',
      replace: 'def broken(a):',
    });
    expect(result).toMatchObject({ ok: true, data: { committed: true, lint_clean: false } });
    const lint = await gate.check(repo.read('src/calc/broken.py').toString());
    expect(lint.diagnostics.map((d) => d.code)).toEqual(['F401']);
  });

  it('but refuses a syntax fix that brings a new undefined name in the lines it writes', async () => {
    const before = repo.read('src/calc/broken.py');
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.broken',
      search: 'def broken(a:\n    return a',
      replace: 'def broken(a):\n    return q',
    });
    expect(result.ok).toBe(false);
    expect(result.error).toBe(
      'edit refused by the lint gate: 1 new diagnostic(s): F821 Undefined name `q` (line 5)',
    );
    expect(repo.read('src/calc/broken.py').equals(before)).toBe(true);
  });
});

describe('edit_entity: the search string', () => {
  it('refuses a search string absent from the entity, naming the selector', async () => {
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.Calc.scale',
      search: 'value / factor',
      replace: 'x',
    });
    expect(result).toEqual({
      ok: false,
      error: 'search string not found in src.calc.ops.Calc.scale',
      data: null,
    });
  });

  it('refuses an ambiguous search string with the count', async () => {
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.Calc.scale',
      search: 'result',
      replace: 'out',
    });
    expect(result).toEqual({
      ok: false,
      error: 'search string found 2 times in src.calc.ops.Calc.scale; make it unique',
      data: null,
    });
  });

  it('counts only inside the entity: text also present in another function is unique in this one', async () => {
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.Calc.scale',
      search: 'result = ',
      replace: 'result = 0 + ',
    });
    expect(result.ok).toBe(true);
    const text = repo.read('src/calc/ops.py').toString();
    expect(text).toContain('        result = 0 + value * factor\n');
    expect(text).toContain('    result = x * 2\n'); // double() untouched
  });

  it('is not found when the text lies outside the entity span', async () => {
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.Calc.add',
      search: 'value * factor',
      replace: 'x',
    });
    expect(result.error).toBe('search string not found in src.calc.ops.Calc.add');
  });

  it('refuses empty and over-cap arguments, unknown selectors and no-op edits', async () => {
    const edit = (selector: string, search: string, replace: string) =>
      editEntity(repo.ctx, { selector, search, replace });
    expect((await edit('src.calc.ops.Calc.add', '', 'x')).error).toBe(
      'search string is empty; give the exact text to replace in src.calc.ops.Calc.add',
    );
    expect((await edit('src.calc.ops.Calc.add', 'a'.repeat(401), 'x')).error).toBe(
      'search string is longer than 400 characters (401)',
    );
    expect((await edit('src.calc.ops.Calc.add', 'total', 'é'.repeat(2001))).error).toBe(
      'replace string is longer than 2000 characters (2001)',
    );
    expect((await edit('src.calc.ops.Calc.nope', 'total', 'x')).error).toBe(
      'unknown selector src.calc.ops.Calc.nope',
    );
    expect((await edit('src.calc.ops.Calc.add', 'total = a + b', 'total = a + b')).error).toBe(
      'the edit changes nothing in src.calc.ops.Calc.add: search and replace are equal',
    );
    expect(editsForRun(repo.ledger, repo.runId)).toEqual([]);
  });
});

describe('edit_entity: the write and the record', () => {
  it('keeps the file mode and leaves no temp file', async () => {
    chmodSync(join(repo.root, 'src/calc/ops.py'), 0o751);
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.Calc.add',
      search: 'a + b\n',
      replace: 'b + a\n',
    });
    expect(result.ok).toBe(true);
    expect(statSync(join(repo.root, 'src/calc/ops.py')).mode & 0o7777).toBe(0o751);
    expect(readdirSync(join(repo.root, 'src/calc')).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('records path, selector, sha256 before/after and a standard unified diff; refreshes the index', async () => {
    const before = repo.read('src/calc/ops.py');
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.Calc.add',
      search: 'a + b\n',
      replace: 'b + a\n',
    });
    const after = repo.read('src/calc/ops.py');
    const expectedDiff = [
      '--- a/src/calc/ops.py',
      '+++ b/src/calc/ops.py',
      '@@ -6,7 +6,7 @@',
      ' ',
      '     def add(self, a, b):',
      '         """Return a + b."""',
      '-        total = a + b',
      '+        total = b + a',
      '         return total',
      ' ',
      '     def scale(self, value, factor=2):',
      '',
    ].join('\n');
    expect(result).toEqual({
      ok: true,
      error: null,
      data: { committed: true, lint_clean: true, diff: expectedDiff },
    });
    expect(after.toString()).toBe(before.toString().replace('total = a + b', 'total = b + a'));

    const rows = editsForRun(repo.ledger, repo.runId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      run_id: repo.runId,
      path: 'src/calc/ops.py',
      selector: 'src.calc.ops.Calc.add',
      before_sha256: sha(before),
      after_sha256: sha(after),
      diff: expectedDiff,
      undone_at: null,
    });
    // The index re-read the file: its hash is the new one.
    expect(repo.index.fileSha256('src/calc/ops.py')).toBe(sha(after));

    // git accepts the diff: applied to a copy of the original it gives the edited file.
    const scratch = mkdtempSync(join(tmpdir(), 'piper-edit-apply-'));
    cpSync(FIXTURE, scratch, { recursive: true });
    writeFileSync(join(scratch, 'edit.diff'), expectedDiff);
    execFileSync('git', ['apply', 'edit.diff'], { cwd: scratch });
    expect(readFileSync(join(scratch, 'src/calc/ops.py')).equals(after)).toBe(true);
  });

  it('edits in sequence: the second edit sees the spans the first one moved', async () => {
    const first = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.Calc.add',
      search: '        total = a + b\n',
      replace: '        # widened\n        total = a + b\n',
    });
    expect(first.ok).toBe(true);
    const second = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.double',
      search: 'x * 2',
      replace: 'x + x',
    });
    expect(second.ok).toBe(true);
    expect(repo.read('src/calc/ops.py').toString()).toMatch(
      /# widened\n {8}total = a \+ b\n[\s\S]*result = x \+ x\n/,
    );
    expect(editsForRun(repo.ledger, repo.runId)).toHaveLength(2);
  });

  it('picks up an outside change before editing (span re-read from disk)', async () => {
    const path = join(repo.root, 'src/calc/ops.py');
    writeFileSync(path, `# a header line added by an editor\n${readFileSync(path, 'utf8')}`);
    const result = await editEntity(repo.ctx, {
      selector: 'src.calc.ops.double',
      search: 'x * 2',
      replace: 'x + x',
    });
    expect(result.ok).toBe(true);
    expect(readFileSync(path, 'utf8')).toMatch(
      /^# a header line added by an editor\n[\s\S]*result = x \+ x\n/,
    );
  });

  // The code index lists no symlinked files; a lookup that answers for one (the entity of ops.py
  // under the link's path) shows what edit_entity does if a path it is given is a link.
  const throughLink = (index: CodeIndex, link: string): EntityLookup => ({
    get: (selector) => {
      const entity = index.get(selector);
      return entity && { ...entity, path: link };
    },
    resolve: (selector) => index.resolve(selector),
    refresh: async () => {},
  });

  it('edits the file a symlink inside the repo names, and keeps the link', async () => {
    symlinkSync('ops.py', join(repo.root, 'src/calc/ops_link.py'));
    const ctx = { ...repo.ctx, index: throughLink(repo.index, 'src/calc/ops_link.py') };
    const result = await editEntity(ctx, {
      selector: 'src.calc.ops.double',
      search: 'x * 2',
      replace: 'x + x',
    });
    expect(result.ok).toBe(true);
    expect(lstatSync(join(repo.root, 'src/calc/ops_link.py')).isSymbolicLink()).toBe(true);
    expect(repo.read('src/calc/ops.py').toString()).toContain('result = x + x');
  });

  it('refuses a path whose real file lies outside the repository', async () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'piper-edit-outside-')), 'ops.py');
    cpSync(join(FIXTURE, 'src/calc/ops.py'), outside);
    symlinkSync(outside, join(repo.root, 'src/calc/escape.py'));
    const ctx = { ...repo.ctx, index: throughLink(repo.index, 'src/calc/escape.py') };
    const result = await editEntity(ctx, {
      selector: 'src.calc.ops.double',
      search: 'x * 2',
      replace: 'x + x',
    });
    expect(result.error).toBe('src/calc/escape.py lies outside the repository');
    expect(readFileSync(outside).equals(readFileSync(join(FIXTURE, 'src/calc/ops.py')))).toBe(true);
  });

  it('without a ledger the edit commits and records nothing', async () => {
    const result = await editEntity(
      { repoRoot: repo.root, index: repo.index, lint: gate },
      {
        selector: 'src.calc.ops.double',
        search: 'x * 2',
        replace: 'x + x',
      },
    );
    expect(result.ok).toBe(true);
    expect(editsForRun(repo.ledger, repo.runId)).toEqual([]);
  });

  it('does not commit when the ledger cannot record it (unknown call id): the file is put back', async () => {
    const before = repo.read('src/calc/ops.py');
    const result = await editEntity(
      { ...repo.ctx, callId: 'c-does-not-exist' },
      {
        selector: 'src.calc.ops.double',
        search: 'x * 2',
        replace: 'x + x',
      },
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      /^edit not committed: the ledger could not record it \(.*FOREIGN KEY.*\); the file is unchanged$/,
    );
    expect(repo.read('src/calc/ops.py').equals(before)).toBe(true);
  });

  it.each([
    ['while the operator is asked', 'authorize'],
    ['while the new bytes are written beside the file', 'beforeSwap'],
  ] as const)(
    'writes nothing when the run is stopped %s: the file unchanged, no temp file, nothing recorded',
    async (_when, hook) => {
      const before = repo.read('src/calc/ops.py');
      const dirBefore = readdirSync(join(repo.root, 'src/calc')).sort();
      const stop = new AbortController();
      const ctx: EditContext = {
        ...repo.ctx,
        signal: stop.signal,
        ...(hook === 'authorize'
          ? {
              authorize: () => (
                stop.abort(new Error('SIGTERM')),
                Promise.resolve({ approved: true as const })
              ),
            }
          : { beforeSwap: () => stop.abort(new Error('SIGTERM')) }),
      };
      const result = await editEntity(ctx, {
        selector: 'src.calc.ops.double',
        search: 'x * 2',
        replace: 'x + x',
      });
      expect(result).toMatchObject({
        ok: false,
        error: 'edit not written: the run was stopped; the file is unchanged',
      });
      expect(repo.read('src/calc/ops.py').equals(before)).toBe(true);
      expect(readdirSync(join(repo.root, 'src/calc')).sort()).toEqual(dirBefore);
      expect(editsForRun(repo.ledger, repo.runId)).toEqual([]);
    },
  );
});
