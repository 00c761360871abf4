// The approval modes headless, on the real CLI and the real engine: read-only writes nothing and
// tells the model why; ask with no terminal is a usage error before any work (never a hang); a
// resumed run keeps the mode it started with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approvalsForRun } from '../../runtime/ledger/approvals.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { callsOf, observationsOf } from '../../runtime/ledger/turns.js';
import { READ_ONLY_REASON } from '../../policy/approval.js';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const env = { CI: 'true', PIPER_APPROVAL: '' };

function fixRun(repo: string): { id: string; config: Record<string, unknown> } {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    const row = ledger.database.prepare("SELECT id, config FROM runs WHERE kind = 'fix'").get() as {
      id: string;
      config: string;
    };
    return { id: row.id, config: JSON.parse(row.config) as Record<string, unknown> };
  } finally {
    ledger.close();
  }
}

describe('approval modes headless (real engine)', () => {
  it('read-only: the edit is refused with its reason, nothing is written, the run goes on to an honest end', async () => {
    const repo = sampleRepo();
    const before = readFileSync(join(repo, 'textstats', 'words.py'));
    const r = await runCli(
      sampleFixArgs(repo, 'sample-fix.jsonl', '--approval', 'read-only', '--output', 'json'),
      {
        env,
      },
    );
    expect(r.code, r.stderr).toBe(4);
    const result = JSON.parse(r.stdout) as { outcome: string; verified: boolean; diff: string };
    expect(result).toMatchObject({ outcome: 'stop', verified: false, diff: '' });
    expect(readFileSync(join(repo, 'textstats', 'words.py')).equals(before)).toBe(true);

    const { id, config } = fixRun(repo);
    expect(config.approval).toBe('read-only');
    const ledger = Ledger.open(defaultLedgerPath(repo));
    try {
      expect(
        approvalsForRun(ledger, id).map((a) => [a.selector, a.decision, a.decided_by, a.reason]),
      ).toEqual([['textstats.words.top_words', 'denied', 'policy:read-only', READ_ONLY_REASON]]);
      const edits = callsOf(ledger, id).filter((c) => c.tool === 'edit_entity');
      expect(edits.map((c) => c.status)).toEqual(['denied']);
      expect(ledger.database.prepare('SELECT count(*) AS n FROM edits').get()).toEqual({ n: 0 });
      const denied = observationsOf(ledger, id).filter((o) => o.kind === 'denied');
      expect(denied.map((o) => JSON.parse(o.result))).toEqual([
        { denied: true, reason: `denied by the approval policy: ${READ_ONLY_REASON}` },
      ]);
      // The model's run_test after the refusal still ran: the run went on.
      expect(callsOf(ledger, id).filter((c) => c.tool === 'run_test' && c.origin === 'model')).toHaveLength(
        1,
      );
    } finally {
      ledger.close();
    }
  });

  it('ask with no terminal is a usage error before any run starts', async () => {
    const repo = sampleRepo();
    const r = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--approval', 'ask'), { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('approval mode ask needs a terminal to ask on');
    expect(r.stderr).toContain('--approval auto');
    const bad = await runCli(sampleFixArgs(repo, 'sample-fix.jsonl', '--approval', 'sometimes'), { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--approval must be ask, auto or read-only, got 'sometimes'");
  });

  it('auto is the headless default: the edit is written and its approval recorded as the policy', async () => {
    const repo = sampleRepo();
    const r = await runCli(sampleFixArgs(repo), { env });
    expect(r.code, r.stderr).toBe(0);
    const { id, config } = fixRun(repo);
    expect(config.approval).toBe('auto');
    const ledger = Ledger.open(defaultLedgerPath(repo));
    try {
      expect(approvalsForRun(ledger, id).map((a) => [a.decision, a.scope, a.decided_by])).toEqual([
        ['approved', 'once', 'policy:auto'],
      ]);
    } finally {
      ledger.close();
    }
  });

  it('resume keeps the mode the run started with and refuses another', async () => {
    const repo = sampleRepo();
    const first = await runCli(sampleFixArgs(repo, 'sample-ask.jsonl', '--approval', 'read-only'), { env });
    expect(first.code, first.stderr).toBe(3);
    const { id } = fixRun(repo);
    const changed = await runCli(['resume', id, '--repo', repo, '--answer', 'yes', '--approval', 'auto'], {
      env,
    });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(`run ${id} started with --approval read-only`);
    const kept = await runCli(['resume', id, '--repo', repo, '--answer', 'yes', '--non-interactive'], {
      env,
    });
    expect(kept.code, kept.stderr).toBe(4); // the edit after the answer is refused: no verified fix
    const ledger = Ledger.open(defaultLedgerPath(repo));
    try {
      expect(approvalsForRun(ledger, id).map((a) => a.decided_by)).toEqual(['policy:read-only']);
    } finally {
      ledger.close();
    }
  });
});
