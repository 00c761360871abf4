// The import form of a selector: in a src layout `calc.ops.Calc.add` names the entity indexed as
// `src.calc.ops.Calc.add` (the form engineers and models use), in the code index and through the
// workspace's checks; a form two entities share, or a name nothing has, stays unknown.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { importForm, packageDirectories } from '../../primitives/index/selector-alias.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';

const temps: string[] = [];
const ledgers: Ledger[] = [];
afterEach(() => {
  for (const l of ledgers.splice(0)) l.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function indexOf(files: Record<string, string>, fixture?: string): Promise<CodeIndex> {
  const root = mkdtempSync(join(tmpdir(), 'piper-alias-'));
  temps.push(root);
  if (fixture) cpSync(join(packageRoot(), 'test', 'fixtures', 'repos', fixture), root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const ledger = Ledger.open(':memory:');
  ledgers.push(ledger);
  return CodeIndex.open(root, ledger);
}

describe('importForm', () => {
  const packages = packageDirectories([
    'src/calc/__init__.py',
    'src/calc/ops.py',
    'pkg/__init__.py',
    'pkg/mod.py',
  ]);
  it('drops the leading directories that are not packages', () => {
    expect(importForm('src.calc.ops.Calc.add', 'src/calc/ops.py', packages)).toBe('calc.ops.Calc.add');
    expect(importForm('src.calc', 'src/calc/__init__.py', packages)).toBe('calc');
    expect(
      importForm(
        'lib.src.calc.ops.f',
        'lib/src/calc/ops.py',
        packageDirectories(['lib/src/calc/__init__.py']),
      ),
    ).toBe('calc.ops.f');
  });
  it('has none for a module at the root or inside a package from the root', () => {
    expect(importForm('pkg.mod.f', 'pkg/mod.py', packages)).toBeUndefined();
    expect(importForm('setup', 'setup.py', packages)).toBeUndefined();
  });
  it('without any package on the path, drops only a leading src', () => {
    expect(importForm('src.tool.main', 'src/tool.py', packages)).toBe('tool.main');
    expect(importForm('scripts.ns.run.go', 'scripts/ns/run.py', packages)).toBeUndefined();
    expect(importForm('tests.test_ops.test_add', 'tests/test_ops.py', packages)).toBeUndefined();
  });
});

describe('CodeIndex.resolve', () => {
  it('resolves the import form in a src layout to the indexed selector; the indexed one to itself', async () => {
    const index = await indexOf({}, 'srclayout');
    expect(index.resolve('src.calc.ops.Calc.add')).toBe('src.calc.ops.Calc.add');
    expect(index.resolve('calc.ops.Calc.add')).toBe('src.calc.ops.Calc.add');
    expect(index.resolve('calc')).toBe('src.calc');
    expect(index.resolve('calc.ops.Calc.mul')).toBeUndefined();
    expect(index.resolve('ops.Calc.add')).toBeUndefined();
  });

  it('an import form two entities share resolves to neither; an exact selector always wins', async () => {
    const index = await indexOf({
      'a/conftest.py': 'def fixture():\n    pass\n',
      'b/conftest.py': 'def fixture():\n    pass\n',
      'src/util.py': 'def f():\n    pass\n',
      'util.py': 'def f():\n    pass\n',
    });
    expect(index.resolve('conftest.fixture')).toBeUndefined();
    expect(index.resolve('util.f')).toBe('util.f');
    expect(index.resolve('src.util.f')).toBe('src.util.f');
  });
});
