// The code index against real fixture repos and a real SQLite ledger file: selectors for every
// shape, spans as bytes on disk, the sha256 cache (parse counts), refresh, syntax errors,
// duplicates, and which files are listed (skipped directories, git-ignored files).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { IndexError } from '../../primitives/index/index-error.js';
import { moduleSelector } from '../../primitives/index/selector.js';
import type { Entity } from '../../primitives/types.js';
import { listCodeFiles, loadCodeNodes } from '../../runtime/ledger/code-nodes.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';

const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'repos');
const temps: string[] = [];
const ledgers: Ledger[] = [];

afterEach(() => {
  for (const l of ledgers.splice(0)) l.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'piper-index-'));
  temps.push(dir);
  return dir;
}

/** A copy of a fixture repo outside any git work tree (so files are listed by a walk). */
function copyFixture(name: string): string {
  const dir = join(tempDir(), name);
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  return dir;
}

function openLedger(path = join(tempDir(), 'ledger.db')): Ledger {
  const ledger = Ledger.open(path);
  ledgers.push(ledger);
  return ledger;
}

const selectors = (index: CodeIndex) => index.all().map((e) => e.selector);
const must = (index: CodeIndex, selector: string): Entity => {
  const e = index.get(selector);
  if (!e) throw new Error(`no entity ${selector}; have ${selectors(index).join(', ')}`);
  return e;
};

describe('selectors', () => {
  it('follow the path rule', () => {
    expect(moduleSelector('src/calc/ops.py')).toBe('src.calc.ops');
    expect(moduleSelector('pkg/__init__.py')).toBe('pkg');
    expect(moduleSelector('pkg/sub/__init__.py')).toBe('pkg.sub');
    expect(moduleSelector('calc.py')).toBe('calc');
  });

  it('cover every entity shape of the flat fixture', async () => {
    const index = await CodeIndex.open(copyFixture('flat'), openLedger());
    expect(selectors(index).filter((s) => s.startsWith('shapes'))).toEqual([
      'shapes',
      'shapes.register',
      'shapes.register.wrap',
      'shapes.Shape',
      'shapes.Shape.Meta',
      'shapes.Shape.Meta.Units',
      'shapes.Shape.__init__',
      'shapes.Shape.label',
      'shapes.Shape.unit_area',
      'shapes.Shape.named',
      'shapes.Shape.refresh',
      'shapes.Circle',
      'shapes.Circle.__init__',
      'shapes.Circle.area',
      'shapes.fetch_area',
      'shapes.outer',
      'shapes.outer.inner',
      'shapes.outer.Local',
      'shapes.outer.Local.method',
    ]);
    expect(selectors(index).filter((s) => s.startsWith('calc'))).toEqual([
      'calc',
      'calc.add',
      'calc.subtract',
      'calc.multiply_numbers',
    ]);
    const kinds = Object.fromEntries(index.all().map((e) => [e.selector, e.kind]));
    expect(kinds).toMatchObject({
      shapes: 'module',
      'shapes.Shape': 'class',
      'shapes.Shape.Meta': 'class',
      'shapes.Shape.Meta.Units': 'class',
      'shapes.Shape.label': 'method',
      'shapes.outer': 'function',
      'shapes.outer.inner': 'function',
      'shapes.outer.Local.method': 'method',
      'shapes.fetch_area': 'function',
    });
  });

  it('take decorators into span and signature, and mark async defs', async () => {
    const index = await CodeIndex.open(copyFixture('flat'), openLedger());
    const unitArea = must(index, 'shapes.Shape.unit_area');
    expect(unitArea.signature).toBe(
      '@staticmethod\n@functools.lru_cache(maxsize=None)\ndef unit_area(scale: float = 1.0) -> float:',
    );
    expect([unitArea.startLine, unitArea.endLine]).toEqual([34, 37]);
    expect(must(index, 'shapes.Shape').signature).toBe('@register("shape")\nclass Shape:');
    expect(must(index, 'shapes.Shape.refresh')).toMatchObject({
      async: true,
      signature: 'async def refresh(self):',
    });
    expect(must(index, 'shapes.fetch_area')).toMatchObject({
      async: true,
      doc: "Fetch a shape's area asynchronously.",
    });
    expect(must(index, 'shapes.Shape.label').async).toBe(false);
    expect(must(index, 'calc.multiply_numbers').signature).toBe(
      'def multiply_numbers(\n    a: float,\n    b: float,\n) -> float:',
    );
    expect(must(index, 'calc').doc).toBe('Small arithmetic helpers.');
    expect(must(index, 'calc.subtract').doc).toBeNull();
  });

  it('resolve a src layout and packages with __init__.py', async () => {
    const src = await CodeIndex.open(copyFixture('srclayout'), openLedger());
    expect(must(src, 'src.calc.ops.Calc.add')).toMatchObject({
      kind: 'method',
      name: 'add',
      path: 'src/calc/ops.py',
      signature: 'def add(self, a: int, b: int) -> int:',
      doc: 'Add two integers.',
      startLine: 10,
      endLine: 13,
    });
    expect(must(src, 'src.calc')).toMatchObject({
      kind: 'module',
      name: 'calc',
      path: 'src/calc/__init__.py',
    });
    expect(must(src, 'tests.test_ops.test_add').kind).toBe('function');

    const pkgs = await CodeIndex.open(copyFixture('packages'), openLedger());
    expect(must(pkgs, 'repo')).toMatchObject({
      kind: 'module',
      path: 'repo/__init__.py',
      doc: 'The repo package.',
    });
    expect(must(pkgs, 'repo.version').kind).toBe('function');
    expect(must(pkgs, 'repo.cache').path).toBe('repo/cache/__init__.py');
    expect(must(pkgs, 'repo.cache.lru.LRUCache.put').kind).toBe('method');
  });
});

describe('opening', () => {
  it('refuses a repository root that does not exist, as a typed error', async () => {
    const missing = join(tempDir(), 'no-such-repo');
    const error = await CodeIndex.open(missing, openLedger()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IndexError);
    expect(error).toMatchObject({ kind: 'repo_unreadable' });
  });
});

describe('spans', () => {
  it('are byte offsets and lines of the file on disk, also with non-ASCII text', async () => {
    const root = copyFixture('flat');
    const index = await CodeIndex.open(root, openLedger());
    expect(must(index, 'i18n.grüße').doc).toBe('Grüße jemanden — greet someone in German.');
    expect(must(index, 'i18n.Café.préparer').signature).toBe('def préparer(self, boisson="café crème"):');
    for (const e of index.all()) {
      const bytes = readFileSync(join(root, e.path));
      const span = bytes.subarray(e.startByte, e.endByte).toString('utf8');
      if (e.kind === 'module') {
        expect(e.endByte).toBe(bytes.length);
        continue;
      }
      // The span starts with the signature's first line and ends with the def's last line.
      expect(span.startsWith(e.signature.split('\n')[0]!)).toBe(true);
      const lines = bytes.toString('utf8').split('\n');
      expect(lines[e.startLine - 1]!.trim().startsWith(e.signature.split('\n')[0]!)).toBe(true);
      expect(lines[e.endLine - 1]!.trimEnd().endsWith(span.split('\n').at(-1)!.trimEnd())).toBe(true);
    }
  });

  it('hold for a BOM + CRLF file and a latin-1 file', async () => {
    const root = tempDir();
    writeFileSync(
      join(root, 'bom.py'),
      Buffer.from('\uFEFF"""Ünïcode BOM."""\r\n\r\ndef ok():\r\n    return "ß"\r\n', 'utf8'),
    );
    const latin = Buffer.concat([
      Buffer.from('# -*- coding: latin-1 -*-\ns = "caf', 'latin1'),
      Buffer.from([0xe9]),
      Buffer.from('"\n\n\ndef after():\n    return s\n', 'latin1'),
    ]);
    writeFileSync(join(root, 'latin.py'), latin);
    const index = await CodeIndex.open(root, openLedger());
    const ok = must(index, 'bom.ok');
    const bom = readFileSync(join(root, 'bom.py'));
    expect(bom.subarray(ok.startByte, ok.endByte).toString('utf8')).toBe('def ok():\r\n    return "ß"');
    expect([ok.startLine, ok.endLine]).toEqual([3, 4]);
    expect(must(index, 'bom').doc).toBe('Ünïcode BOM.');
    expect(index.files().map((f) => [f.path, f.syntaxError])).toEqual([
      ['bom.py', false],
      ['latin.py', false],
    ]);
    const after = must(index, 'latin.after');
    expect(latin.subarray(after.startByte, after.endByte).toString('latin1')).toBe(
      'def after():\n    return s',
    );
  });
});

describe('syntax errors and duplicates', () => {
  it('index a broken file as far as it parses, and flag it', async () => {
    const index = await CodeIndex.open(copyFixture('flat'), openLedger());
    const flagged = index
      .files()
      .filter((f) => f.syntaxError)
      .map((f) => f.path);
    expect(flagged).toEqual(['broken.py']);
    expect(must(index, 'broken.before_error').doc).toBe('Parsed fine: comes before the error.');
    expect(must(index, 'broken.after_error').doc).toBe('Recovered after the error.');
  });

  it('resolve a duplicated selector to the last definition and say so', async () => {
    const index = await CodeIndex.open(copyFixture('flat'), openLedger());
    const dups = index.duplicates();
    expect(dups.map((d) => [d.selector, d.definitions.map((e) => e.startLine)])).toEqual([
      ['dupes.Config.load', [18, 21]],
      ['dupes.handler', [4, 12]],
    ]);
    expect(must(index, 'dupes.handler')).toMatchObject({ startLine: 12, doc: 'The handler that wins.' });
    expect(index.definitionCount('dupes.handler')).toBe(2);
    expect(index.all().filter((e) => e.selector === 'dupes.handler')).toHaveLength(2);
    expect(index.visible().filter((e) => e.selector === 'dupes.handler')).toEqual([
      must(index, 'dupes.handler'),
    ]);
  });
});

describe('the sha256 cache in the ledger', () => {
  it('parses an unchanged file once, a changed one again, and drops a removed one', async () => {
    const root = copyFixture('flat');
    const ledgerFile = join(tempDir(), 'ledger.db');
    const first = await CodeIndex.open(root, openLedger(ledgerFile));
    expect(first.parseCount).toBe(6);
    expect(first.lastUpdate).toMatchObject({ mode: 'walk', files: 6, parsed: 6, cached: 0, removed: 0 });
    ledgers.pop()!.close();

    // A new process: nothing changed, nothing parsed, same entities.
    const second = await CodeIndex.open(root, openLedger(ledgerFile));
    expect(second.parseCount).toBe(0);
    expect(second.lastUpdate).toMatchObject({ files: 6, parsed: 0, cached: 6 });
    expect(second.all()).toEqual(first.all());
    ledgers.pop()!.close();

    writeFileSync(
      join(root, 'calc.py'),
      `${readFileSync(join(root, 'calc.py'), 'utf8')}\n\ndef divide(a, b):\n    return a / b\n`,
    );
    rmSync(join(root, 'dupes.py'));
    const ledger = openLedger(ledgerFile);
    const third = await CodeIndex.open(root, ledger);
    expect(third.parseCount).toBe(1);
    expect(third.lastUpdate).toMatchObject({ files: 5, parsed: 1, cached: 4, removed: 1 });
    expect(third.get('calc.divide')?.signature).toBe('def divide(a, b):');
    expect(third.get('dupes.handler')).toBeUndefined();
    // The ledger holds what memory holds.
    expect(listCodeFiles(ledger, third.root).map((f) => f.path)).toEqual(third.files().map((f) => f.path));
    const stored = loadCodeNodes(ledger, third.root);
    expect(stored.has('dupes.py')).toBe(false);
    expect(stored.get('calc.py')!.map((n) => n.selector)).toContain('calc.divide');
  });

  it('parses again what another extractor version stored', async () => {
    const root = copyFixture('srclayout');
    const ledger = openLedger();
    await CodeIndex.open(root, ledger);
    ledger.database.prepare(`UPDATE code_files SET indexer = 'older' WHERE path = 'src/calc/ops.py'`).run();
    const again = await CodeIndex.open(root, ledger);
    expect(again.lastUpdate).toMatchObject({ parsed: 1, cached: 2 });
    expect(listCodeFiles(ledger, again.root).every((f) => f.indexer !== 'older')).toBe(true);
  });

  it('keeps two repositories apart in one ledger', async () => {
    const ledger = openLedger();
    const flat = copyFixture('flat');
    await CodeIndex.open(flat, ledger);
    const src = await CodeIndex.open(copyFixture('srclayout'), ledger);
    expect(src.get('calc.add')).toBeUndefined();
    const again = await CodeIndex.open(flat, ledger);
    expect(again.parseCount).toBe(0);
    expect(again.get('calc.add')).toBeDefined();
  });
});

describe('refresh', () => {
  it('re-parses only the files it is given, and only when they changed', async () => {
    const root = copyFixture('srclayout');
    const ledger = openLedger();
    const index = await CodeIndex.open(root, ledger);
    const before = index.parseCount;

    await index.refresh(['src/calc/ops.py']);
    expect(index.parseCount).toBe(before); // unchanged: a hash, no parse

    const ops = join(root, 'src/calc/ops.py');
    writeFileSync(
      ops,
      readFileSync(ops, 'utf8').replace(
        '    def sub(',
        '    def mul(self, a: int, b: int) -> int:\n        return a * b\n\n    def sub(',
      ),
    );
    await index.refresh([ops]); // absolute paths work too
    expect(index.parseCount).toBe(before + 1);
    expect(index.lastUpdate).toMatchObject({ mode: 'refresh', parsed: 1 });
    expect(must(index, 'src.calc.ops.Calc.mul').startLine).toBe(15);
    expect(must(index, 'src.calc.ops.Calc.sub').startLine).toBe(18);
    expect(
      loadCodeNodes(ledger, index.root)
        .get('src/calc/ops.py')!
        .map((n) => n.selector),
    ).toContain('src.calc.ops.Calc.mul');

    writeFileSync(join(root, 'src/calc/extra.py'), 'def extra():\n    return 1\n');
    rmSync(join(root, 'tests/test_ops.py'));
    await index.refresh(['src/calc/extra.py', 'tests/test_ops.py', '../outside.py']);
    expect(index.get('src.calc.extra.extra')).toBeDefined();
    expect(index.get('tests.test_ops.test_add')).toBeUndefined();
    expect(index.files().map((f) => f.path)).toEqual([
      'src/calc/__init__.py',
      'src/calc/extra.py',
      'src/calc/ops.py',
    ]);
  });

  it('turns a syntax error on and off', async () => {
    const root = copyFixture('srclayout');
    const index = await CodeIndex.open(root, openLedger());
    const ops = join(root, 'src/calc/ops.py');
    const good = readFileSync(ops, 'utf8');
    writeFileSync(ops, good.replace('return self.last\n\n    def sub', 'return (self.last\n\n    def sub'));
    await index.refresh(['src/calc/ops.py']);
    expect(index.files().find((f) => f.path === 'src/calc/ops.py')!.syntaxError).toBe(true);
    writeFileSync(ops, good);
    await index.refresh(['src/calc/ops.py']);
    expect(index.files().find((f) => f.path === 'src/calc/ops.py')!.syntaxError).toBe(false);
    expect(index.get('src.calc.ops.Calc.sub')).toBeDefined();
  });
});

describe('which files are indexed', () => {
  function populate(root: string): void {
    const put = (path: string, text = 'def f():\n    return 1\n') => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    put('app/main.py');
    put('app/build/__init__.py'); // a package named build is code, not build output
    put('.venv/lib/site.py');
    put('venv/lib/site.py');
    put('env2/pyvenv.cfg', 'home = /usr/bin\n');
    put('env2/lib/site.py');
    put('.tox/py3/t.py');
    put('node_modules/pkg/n.py');
    put('build/lib/app/main.py');
    put('dist/d.py');
    put('app.egg-info/e.py');
    put('app/__pycache__/c.py');
    put('.piper/p.py');
    put('notes.txt', 'not python');
  }

  it('skips environments, dependencies, build output and caches when walking', async () => {
    const root = tempDir();
    populate(root);
    const index = await CodeIndex.open(root, openLedger());
    expect(index.lastUpdate.mode).toBe('walk');
    expect(index.files().map((f) => f.path)).toEqual(['app/build/__init__.py', 'app/main.py']);
  });

  it('lists what git lists in a work tree: ignored files stay out, untracked ones come in', async () => {
    const root = tempDir();
    populate(root);
    execFileSync('git', ['init', '-q'], { cwd: root });
    writeFileSync(join(root, '.gitignore'), 'generated/\nsecret.py\n');
    mkdirSync(join(root, 'generated'));
    writeFileSync(join(root, 'generated', 'gen.py'), 'X = 1\n');
    writeFileSync(join(root, 'secret.py'), 'KEY = 1\n');
    writeFileSync(join(root, 'untracked.py'), 'Y = 1\n');
    const index = await CodeIndex.open(root, openLedger());
    expect(index.lastUpdate.mode).toBe('git');
    expect(index.files().map((f) => f.path)).toEqual([
      'app/build/__init__.py',
      'app/main.py',
      'untracked.py',
    ]);

    // refresh() of an ignored path does not let it in either.
    await index.refresh(['secret.py', 'generated/gen.py']);
    expect(index.get('secret')).toBeUndefined();
    expect(index.get('generated.gen')).toBeUndefined();
  });
});
