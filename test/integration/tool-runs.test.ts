// `piper-agent tool` calls as runs of their own kind, from the shell: each call is a `tool` run
// that ends with it (listed as such by `ledger runs`, never left running or swept as interrupted),
// `resume` refuses one with what to do instead, and `undo` takes a run-id prefix as `ledger` does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { runCli } from '../helpers/cli.js';
import { sampleRepo } from '../helpers/sample-repo.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const SELECTOR = 'textstats.words.top_words';
const EDIT = JSON.stringify({
  selector: SELECTOR,
  search: 'return ranked[: n - 1]',
  replace: 'return ranked[:n]',
});
const env = { PIPER_LEDGER: '', CI: 'true' };

function runsOf(
  repo: string,
): Array<{ id: string; kind: string; outcome: string | null; ended_at: string | null }> {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    return ledger.database
      .prepare('SELECT id, kind, outcome, ended_at FROM runs ORDER BY rowid')
      .all() as Array<{ id: string; kind: string; outcome: string | null; ended_at: string | null }>;
  } finally {
    ledger.close();
  }
}

describe('tool runs', () => {
  it('each call is a tool run ended with the call; ledger runs shows the kind; resume refuses it', async () => {
    const repo = sampleRepo();
    const read = await runCli(
      ['tool', 'read_entity', JSON.stringify({ selector: SELECTOR }), '--repo', repo],
      {
        env,
      },
    );
    expect(read.code).toBe(0);
    const rejected = await runCli(['tool', 'read_entity', '{"selector": "nope.nothing"}', '--repo', repo], {
      env,
    });
    expect(rejected.code).toBe(4);
    expect(rejected.stderr).toMatch(/── run r-\S+ · call c-\S+ \(rejected\)/);

    const runs = runsOf(repo);
    expect(runs.map((r) => [r.kind, r.outcome])).toEqual([
      ['tool', 'completed'],
      ['tool', 'rejected'],
    ]);
    for (const r of runs) expect(r.ended_at).not.toBeNull();

    const list = await runCli(['ledger', 'runs', '--repo', repo, '--json'], { env });
    expect(list.code).toBe(0);
    expect(JSON.stringify(JSON.parse(list.stdout))).toContain('"kind":"tool"');
    const table = await runCli(['ledger', 'runs', '--repo', repo], { env });
    expect(table.stdout).toMatch(new RegExp(`^${runs[0]!.id} .* tool +completed `, 'm'));

    const resume = await runCli(['resume', runs[0]!.id, '--repo', repo], { env });
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain(
      `piper-agent: run ${runs[0]!.id} is a tool run: one \`piper-agent tool\` call, which ended with it (completed); there is no loop to continue`,
    );
    expect(resume.stderr).toContain(`--run ${runs[0]!.id}`);
  });

  it('undo takes a unique run-id prefix, and refuses one that several runs share', async () => {
    const repo = sampleRepo();
    const file = join(repo, 'textstats', 'words.py');
    const before = readFileSync(file, 'utf8');
    const read = await runCli(
      ['tool', 'read_entity', JSON.stringify({ selector: SELECTOR }), '--repo', repo],
      {
        env,
      },
    );
    const runId = /run (r-\S+)/.exec(read.stderr)![1]!;
    const edit = await runCli(['tool', 'edit_entity', EDIT, '--repo', repo, '--run', runId], { env });
    expect(edit.code).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toBe(before);

    // Every run id starts with `r-`: that prefix is shared by both runs here.
    await runCli(['tool', 'search_symbol', '{"query": "top_words"}', '--repo', repo], { env });
    const shared = await runCli(['undo', 'r-', '--repo', repo], { env });
    expect(shared.code).toBe(1);
    expect(shared.stderr).toMatch(/undo refused: 'r-' matches 2 runs .*; give more of the run id/);

    const prefix = runId.slice(0, -3);
    const undo = await runCli(['undo', prefix, '--repo', repo], { env });
    expect(undo.stderr).toBe('');
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain(`undid 1 edit(s) of run ${runId}:`);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
