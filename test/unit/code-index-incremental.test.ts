// An edit updates the index's selectors file by file (selector-table.ts) instead of rebuilding
// them over every file: after each kind of change — a new def, a selector defined in a second file,
// a file removed, a directory that becomes a package — the index answers exactly as one opened
// afresh on the same tree, and only the changed file was parsed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { Ledger } from '../../runtime/ledger/ledger.js';

const temps: string[] = [];
const ledgers: Ledger[] = [];

afterEach(() => {
  for (const l of ledgers.splice(0)) l.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'piper-index-incr-'));
  temps.push(dir);
  return dir;
}

function ledger(): Ledger {
  const l = Ledger.open(join(tempDir(), 'ledger.db'));
  ledgers.push(l);
  return l;
}

/** What a caller can ask the index, as one comparable value. */
function answers(index: CodeIndex, probes: string[]) {
  return {
    all: index.all(),
    visible: index.visible(),
    duplicates: index.duplicates(),
    counts: probes.map((p) => [p, index.definitionCount(p)]),
    resolved: probes.map((p) => [
      p,
      index.resolve(p) ?? null,
      index.get(index.resolve(p) ?? '')?.path ?? null,
    ]),
  };
}

function probesOf(index: CodeIndex): string[] {
  const out = new Set<string>();
  for (const e of index.all()) {
    const parts = e.selector.split('.');
    for (let i = 0; i < parts.length; i++) out.add(parts.slice(i).join('.'));
  }
  return [...out].sort();
}

async function expectSameAsFresh(repo: string, index: CodeIndex): Promise<void> {
  const fresh = await CodeIndex.open(repo, ledger());
  const probes = [...new Set([...probesOf(index), ...probesOf(fresh)])].sort();
  expect(answers(index, probes)).toEqual(answers(fresh, probes));
}

describe('refresh after an edit', () => {
  it('answers as a freshly opened index after each kind of change, parsing only the changed file', async () => {
    const repo = join(tempDir(), 'repo');
    mkdirSync(join(repo, 'src', 'app', 'util'), { recursive: true });
    writeFileSync(join(repo, 'src', 'app', '__init__.py'), '');
    writeFileSync(join(repo, 'src', 'app', 'core.py'), 'class Core:\n    def run(self):\n        return 1\n');
    writeFileSync(join(repo, 'src', 'app', 'util', 'text.py'), 'def clean(s):\n    return s.strip()\n');
    writeFileSync(join(repo, 'conftest.py'), 'def fixture():\n    pass\n');
    writeFileSync(join(repo, 'other.py'), 'def helper():\n    pass\n');
    const index = await CodeIndex.open(repo, ledger());
    // Before util/ is a package, its module's import form is `util.text` under a src root.
    await expectSameAsFresh(repo, index);

    const edits: Array<[string, () => void]> = [
      [
        'a new def',
        () => appendFileSync(join(repo, 'src', 'app', 'core.py'), '\ndef added():\n    return 2\n'),
      ],
      [
        'a def defined twice in one file',
        () => appendFileSync(join(repo, 'other.py'), '\ndef helper():\n    return 3\n'),
      ],
      [
        'a method renamed',
        () =>
          writeFileSync(
            join(repo, 'src', 'app', 'core.py'),
            'class Core:\n    def go(self):\n        return 1\n',
          ),
      ],
      [
        'a directory becomes a package',
        () => writeFileSync(join(repo, 'src', 'app', 'util', '__init__.py'), 'def shared():\n    pass\n'),
      ],
      [
        'a second conftest, sharing the import form',
        () => {
          mkdirSync(join(repo, 'tests'), { recursive: true });
          writeFileSync(join(repo, 'tests', 'conftest.py'), 'def fixture():\n    pass\n');
        },
      ],
    ];
    const touched = [
      'src/app/core.py',
      'other.py',
      'src/app/core.py',
      'src/app/util/__init__.py',
      'tests/conftest.py',
    ];
    for (const [i, [, edit]] of edits.entries()) {
      edit();
      await index.refresh([touched[i]!]);
      expect(index.lastUpdate.parsed).toBe(1);
      await expectSameAsFresh(repo, index);
    }
    expect(index.resolve('app.core.Core.go')).toBe('src.app.core.Core.go');
    expect(index.resolve('app.util.shared')).toBe('src.app.util.shared');

    // Removals: a module, then the package marker (import forms change back).
    rmSync(join(repo, 'src', 'app', 'util', 'text.py'));
    await index.refresh(['src/app/util/text.py']);
    expect(index.lastUpdate).toMatchObject({ parsed: 0, removed: 1 });
    await expectSameAsFresh(repo, index);
    rmSync(join(repo, 'src', 'app', 'util', '__init__.py'));
    await index.refresh(['src/app/util/__init__.py']);
    await expectSameAsFresh(repo, index);
    expect(index.resolve('app.util.shared')).toBeUndefined();
  });
});
