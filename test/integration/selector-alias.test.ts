// The import form of a selector through the real CLI, in a src layout: `calc.ops.Calc.add` reads,
// searches and edits `src.calc.ops.Calc.add` (evidence from either form counts for the other, and
// the ledger records the indexed selector), while a name no entity has keeps the exact rejection.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runCli } from '../helpers/cli.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const env = { PIPER_LEDGER: '', CI: 'true' };

function srcLayoutRepo(): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'piper-alias-cli-')), 'repo');
  return copyAsGitRepo(join(packageRoot(), 'test', 'fixtures', 'repos', 'srclayout'), dest, 'src layout');
}

const tool = (repo: string, name: string, args: unknown, ...extra: string[]) =>
  runCli(['tool', name, JSON.stringify(args), '--repo', repo, ...extra], { env });

describe('selectors in their import form (src layout)', () => {
  it('read_entity, search_symbol and edit_entity take calc.ops.Calc.add for src.calc.ops.Calc.add', async () => {
    const repo = srcLayoutRepo();
    const read = await tool(repo, 'read_entity', { selector: 'calc.ops.Calc.add' });
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({
      kind: 'read',
      ok: true,
      data: { ok: true, data: { entity: { selector: 'src.calc.ops.Calc.add', path: 'src/calc/ops.py' } } },
    });
    const readRun = /run (r-\S+)/.exec(read.stderr)![1]!;

    // The evidence the read recorded (under the indexed selector) lets the import form be edited.
    const edit = await tool(
      repo,
      'edit_entity',
      { selector: 'calc.ops.Calc.add', search: 'self.last = a + b', replace: 'self.last = b + a' },
      '--run',
      readRun,
    );
    expect(edit.code).toBe(0);
    expect(JSON.parse(edit.stdout)).toMatchObject({
      kind: 'edit',
      data: { ok: true, data: { committed: true } },
    });

    // Evidence from a search (which names the indexed selector) counts for the import form too.
    const search = await tool(repo, 'search_symbol', { query: 'calc.ops.Calc.sub' });
    expect(search.stdout).toContain('src.calc.ops.Calc.sub');
    const searchRun = /run (r-\S+)/.exec(search.stderr)![1]!;
    const edit2 = await tool(
      repo,
      'edit_entity',
      {
        selector: 'calc.ops.Calc.sub',
        search: 'self.last = a - b',
        replace: 'self.last = a - b  # difference',
      },
      '--run',
      searchRun,
    );
    expect(edit2.code).toBe(0);

    const ledger = Ledger.open(defaultLedgerPath(repo));
    try {
      const edits = ledger.database.prepare('SELECT selector FROM edits ORDER BY id').all();
      expect(edits).toEqual([{ selector: 'src.calc.ops.Calc.add' }, { selector: 'src.calc.ops.Calc.sub' }]);
      const cited = ledger.database
        .prepare('SELECT DISTINCT selector FROM evidence WHERE run_id = ?')
        .all(readRun);
      expect(cited).toEqual([{ selector: 'src.calc.ops.Calc.add' }]);
    } finally {
      ledger.close();
    }
    // Four CLI processes, two of them through the lint gate: bounded generously for a loaded machine.
  }, 300_000);

  it('a selector no entity has, in either form, keeps the exact rejection', async () => {
    const repo = srcLayoutRepo();
    const unknown = await tool(repo, 'read_entity', { selector: 'calc.ops.Calc.mul' });
    expect(unknown.code).toBe(4);
    expect(JSON.parse(unknown.stdout)).toEqual({
      ok: false,
      rejected: true,
      tool: 'read_entity',
      reason: 'precondition failed: unknown selector calc.ops.Calc.mul',
    });
    const noEvidence = await tool(repo, 'edit_entity', {
      selector: 'calc.ops.Calc.add',
      search: 'a + b',
      replace: 'b + a',
    });
    expect(JSON.parse(noEvidence.stdout).reason).toBe(
      'precondition failed: no evidence for selector calc.ops.Calc.add',
    );
  });
});
