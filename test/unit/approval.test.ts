// The authorization stage without a terminal: the three modes, the scope of a file approval, the
// reasons the model reads, and the ledger's record of every decision (a real SQLite file, migrated
// from a ledger written before approvals existed).
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createEditAuthorizer,
  NO_REASON_GIVEN,
  READ_ONLY_REASON,
  type ApprovalRecord,
  type UserVerdict,
} from '../../policy/approval.js';
import { deniedMessage, type EditApprovalRequest } from '../../primitives/edit-approval.js';
import { approvalsForRun, recordApproval } from '../../runtime/ledger/approvals.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { MIGRATIONS } from '../../runtime/ledger/migrations.js';
import { dispatchCall, endCall, getCall, markCompleted } from '../../runtime/ledger/calls.js';

const request = (path: string, selector: string, n = 1): EditApprovalRequest => ({
  callId: `c${n}`,
  path,
  selector,
  diff: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-old${n}\n+new${n}\n`,
});

function harness(mode: 'ask' | 'auto' | 'read-only', answers: UserVerdict[] = []) {
  const records: ApprovalRecord[] = [];
  const asked: EditApprovalRequest[] = [];
  const authorize = createEditAuthorizer({
    mode,
    ask: async (r) => {
      asked.push(r);
      const next = answers.shift();
      if (!next) throw new Error('asked more often than the test expected');
      return next;
    },
    record: (d) => records.push(d),
  });
  return { authorize, records, asked };
}

describe('createEditAuthorizer', () => {
  it('auto approves every edit and records each as the policy decision', async () => {
    const h = harness('auto');
    expect(await h.authorize(request('a.py', 'a.f'))).toEqual({ approved: true });
    expect(h.asked).toEqual([]);
    expect(h.records.map((r) => [r.decision, r.scope, r.decidedBy])).toEqual([
      ['approved', 'once', 'policy:auto'],
    ]);
  });

  it('read-only refuses every edit with the reason the model reads, without asking', async () => {
    const h = harness('read-only');
    const decision = await h.authorize(request('a.py', 'a.f'));
    expect(decision).toEqual({ approved: false, by: 'policy', reason: READ_ONLY_REASON });
    expect(deniedMessage(decision as { by: 'policy'; reason: string })).toBe(
      `denied by the approval policy: ${READ_ONLY_REASON}`,
    );
    expect(h.records.map((r) => [r.decision, r.decidedBy, r.reason])).toEqual([
      ['denied', 'policy:read-only', READ_ONLY_REASON],
    ]);
  });

  it('ask: once covers one edit, file covers later edits of that file only, deny carries the reason', async () => {
    const h = harness('ask', [
      { verdict: 'once' },
      { verdict: 'file' },
      { verdict: 'deny', reason: '  not\tthis\nfile\u001b[31m ' },
      { verdict: 'deny', reason: '' },
    ]);
    expect(await h.authorize(request('a.py', 'a.f', 1))).toEqual({ approved: true });
    expect(await h.authorize(request('a.py', 'a.g', 2))).toEqual({ approved: true }); // asked: once was one edit
    expect(await h.authorize(request('a.py', 'a.h', 3))).toEqual({ approved: true }); // covered by the file approval
    expect(await h.authorize(request('b.py', 'b.f', 4))).toEqual({
      approved: false,
      by: 'user',
      reason: 'not this file [31m',
    });
    expect(await h.authorize(request('b.py', 'b.g', 5))).toEqual({
      approved: false,
      by: 'user',
      reason: NO_REASON_GIVEN,
    });
    expect(h.asked.map((r) => r.callId)).toEqual(['c1', 'c2', 'c4', 'c5']);
    expect(h.records.map((r) => [r.callId, r.decision, r.scope, r.decidedBy, r.basis])).toEqual([
      ['c1', 'approved', 'once', 'user', undefined],
      ['c2', 'approved', 'file', 'user', undefined],
      ['c3', 'approved', 'file', 'user', 2],
      ['c4', 'denied', 'once', 'user', undefined],
      ['c5', 'denied', 'once', 'user', undefined],
    ]);
    // Each decision names the exact change it was made on.
    expect(new Set(h.records.map((r) => r.diffSha256)).size).toBe(5);
  });

  it('a file approval does not outlive its authorizer (a resumed run asks again)', async () => {
    const first = harness('ask', [{ verdict: 'file' }]);
    await first.authorize(request('a.py', 'a.f'));
    const second = harness('ask', [{ verdict: 'once' }]);
    await second.authorize(request('a.py', 'a.g', 2));
    expect(second.asked).toHaveLength(1);
  });

  it('ask without a way to ask is a programming error, not a silent auto', () => {
    expect(() => createEditAuthorizer({ mode: 'ask', record: () => 0 })).toThrow(/needs a way to ask/);
  });
});

describe('the approvals table and the denied status (migration 6)', () => {
  it('migrates a ledger with calls from before it, keeping every row and reference', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'piper-approvals-')), 'ledger.db');
    // A ledger as the previous schema left it: five migrations, a run, a call, an edit of that call.
    const old = new Database(path);
    old.pragma('foreign_keys = ON');
    for (let v = 0; v < 5; v++) old.exec(MIGRATIONS[v]!);
    old.pragma('user_version = 5');
    const t = '2026-01-01T00:00:00.000Z';
    old
      .prepare(
        `INSERT INTO runs (id, kind, repo, owner, config, started_at) VALUES ('r1', 'fix', '/r', 'h:1:1', '{}', ?)`,
      )
      .run(t);
    old
      .prepare(
        `INSERT INTO calls (id, run_id, origin, tool, args, verdict, status, owner, created_at, updated_at)
         VALUES ('k1', 'r1', 'model', 'edit_entity', '{}', 'valid', 'completed', 'h:1:1', ?, ?)`,
      )
      .run(t, t);
    old
      .prepare(
        `INSERT INTO edits (run_id, call_id, path, selector, before_sha256, after_sha256, diff, created_at)
         VALUES ('r1', 'k1', 'a.py', 'a.f', 'x', 'y', 'd', ?)`,
      )
      .run(t);
    old.close();

    const ledger = Ledger.open(path);
    try {
      expect(getCall(ledger, 'k1')?.status).toBe('completed');
      expect(ledger.database.pragma('foreign_key_check')).toEqual([]);
      const call = dispatchCall(ledger, {
        runId: 'r1',
        tool: 'edit_entity',
        args: {},
        origin: 'model',
        owner: 'h:1:1',
      });
      endCall(ledger, call, 'denied', 'denied by the user: no');
      expect(getCall(ledger, call)).toMatchObject({
        status: 'denied',
        status_reason: 'denied by the user: no',
      });
      // Still only forward: a denied call cannot be reopened.
      expect(() => markCompleted(ledger, call)).toThrow(/only moves forward/);
      const id = recordApproval(ledger, {
        runId: 'r1',
        callId: call,
        operation: 'edit_entity',
        path: 'a.py',
        selector: 'a.f',
        decision: 'denied',
        scope: 'once',
        decidedBy: 'user',
        reason: 'no',
        diffSha256: 'e'.repeat(64),
      });
      expect(approvalsForRun(ledger, 'r1')).toMatchObject([
        { id, call_id: call, decision: 'denied', reason: 'no' },
      ]);
      expect(() =>
        recordApproval(ledger, {
          runId: 'r1',
          callId: 'no-such-call',
          operation: 'edit_entity',
          path: 'a.py',
          selector: 'a.f',
          decision: 'approved',
          scope: 'once',
          decidedBy: 'user',
          diffSha256: 'e'.repeat(64),
        }),
      ).toThrow(/FOREIGN KEY/);
    } finally {
      ledger.close();
    }
  });
});
