// `piper-agent tool`: one call through validation, execution and the trust gate, from the shell.
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { runCli } from '../helpers/cli.js';
import { sampleRepo } from '../helpers/sample-repo.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const EDIT =
  '{"selector": "textstats.words.top_words", "search": "return ranked[: n - 1]", "replace": "return ranked[:n]"}';

describe('piper-agent tool (real sandbox, real ledger)', () => {
  it('rejects with the spec strings and exit 4, runs a valid call and prints the gated observation', async () => {
    const repo = sampleRepo();
    const noEvidence = await runCli(['tool', 'edit_entity', EDIT, '--repo', repo]);
    expect(noEvidence.code).toBe(4);
    expect(JSON.parse(noEvidence.stdout)).toEqual({
      ok: false,
      rejected: true,
      tool: 'edit_entity',
      reason: 'precondition failed: no evidence for selector textstats.words.top_words',
    });
    for (const [name, args, reason] of [
      ['bash', '{}', 'unknown tool: bash'],
      ['read_entity', '{}', 'missing required arg: selector'],
      ['read_entity', '{"selector": "textstats.words.top_words", "colour": 1}', 'unknown arg: colour'],
      ['search_code', '{"query": "   "}', 'precondition failed: empty query'],
      ['run_test', '{"target": " "}', 'precondition failed: empty target'],
      ['execute', '{"code": ""}', 'precondition failed: empty code'],
    ] as const) {
      const r = await runCli(['tool', name, args, '--repo', repo]);
      expect(JSON.parse(r.stdout).reason, name).toBe(reason);
    }

    const read = await runCli([
      'tool',
      'read_entity',
      '{"selector": "textstats.words.top_words", "body": true}',
      '--repo',
      repo,
    ]);
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ kind: 'read', ok: true, trust: 'verified' });
    const runId = /run (r-\S+)/.exec(read.stderr)![1]!;
    const edit = await runCli(['tool', 'edit_entity', EDIT, '--repo', repo, '--run', runId]);
    expect(edit.code).toBe(0);
    expect(JSON.parse(edit.stdout)).toMatchObject({
      kind: 'edit',
      trust: 'verified',
      data: { ok: true, data: { committed: true, lint_clean: true } },
    });
    const test = await runCli([
      'tool',
      'run_test',
      '{"target": "tests/test_words.py"}',
      '--repo',
      repo,
      '--run',
      runId,
    ]);
    expect(JSON.parse(test.stdout)).toMatchObject({
      kind: 'test',
      trust: 'verified',
      data: { passed: true, exit_code: 0 },
    });

    const ledger = Ledger.open(defaultLedgerPath(repo));
    const calls = ledger.database
      .prepare('SELECT tool, verdict, status FROM calls WHERE run_id = ? ORDER BY rowid')
      .all(runId);
    ledger.close();
    expect(calls).toEqual([
      { tool: 'read_entity', verdict: 'valid', status: 'completed' },
      { tool: 'edit_entity', verdict: 'valid', status: 'completed' },
      { tool: 'run_test', verdict: 'valid', status: 'completed' },
    ]);
  });
});
