// A proposal names its call before the call runs: on the real CLI's stream-json, every proposal
// that was executed or rejected carries the id of its row in the ledger's calls table (the real
// SQLite file) and of its `execution` events; ask_user and stop make no call row and carry null.
// Model calls and trigger calls alike, and every call row of the run was announced exactly once.
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../policy/events.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { callsOf } from '../../runtime/ledger/turns.js';
import { runCli } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const RESERVED = ['ask_user', 'stop'];

type Proposal = Extract<LoopEvent, { type: 'proposal' }>;
type Execution = Extract<LoopEvent, { type: 'execution' }>;
type Rejection = Extract<LoopEvent, { type: 'rejection' }>;

async function streamAndCalls(script: string) {
  const repo = sampleRepo();
  const r = await runCli(sampleFixArgs(repo, script, '--output', 'stream-json'), {
    env: { CI: 'true', PIPER_APPROVAL: '', PIPER_LEDGER: '' },
  });
  const events = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as LoopEvent);
  const runId = (events[0] as { run_id: string }).run_id;
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    const calls = callsOf(ledger, runId);
    return {
      code: r.code,
      stderr: r.stderr,
      proposals: events.filter((e): e is Proposal => e.type === 'proposal'),
      rejections: events.filter((e): e is Rejection => e.type === 'rejection'),
      executions: events.filter((e): e is Execution => e.type === 'execution'),
      calls: new Map(calls.map((c) => [String(c.id), c])),
    };
  } finally {
    ledger.close();
  }
}

describe('call id on proposal (real CLI, real ledger)', () => {
  it.each([
    ['sample-fix.jsonl', 0],
    ['rejections.jsonl', 4],
    ['sample-ask.jsonl', 3],
  ] as const)('%s: each proposal names its ledger row and execution events', async (script, exit) => {
    const { code, stderr, proposals, rejections, executions, calls } = await streamAndCalls(script);
    expect(code, stderr).toBe(exit);
    const reserved = proposals.filter((p) => RESERVED.includes(p.tool));
    expect(reserved.length).toBeGreaterThan(0);
    for (const p of reserved) expect(p.call_id).toBeNull();

    const announced = proposals.filter((p) => !RESERVED.includes(p.tool));
    // The issue text's symbol tokens set off trigger calls in every run, before the model's first.
    expect(new Set(announced.map((p) => p.origin))).toEqual(new Set(['model', 'trigger']));
    for (const p of announced) {
      expect(p.call_id).toMatch(/^c-[0-9a-f]{12}$/);
      const row = calls.get(p.call_id!);
      expect(row, `${p.tool} ${p.call_id} has no row`).toMatchObject({ tool: p.tool, origin: p.origin });
      const phases = executions.filter((e) => e.call_id === p.call_id);
      if (row!.verdict === 'rejected') {
        expect(phases).toEqual([]);
        // Its rejection event names the same call.
        expect(rejections.filter((e) => e.call_id === p.call_id).map((e) => e.tool)).toEqual([p.tool]);
      } else
        expect(phases.map((e) => [e.phase, e.tool, e.origin])).toEqual([
          ['started', p.tool, p.origin],
          ['finished', p.tool, p.origin],
        ]);
    }
    expect(rejections.length).toBe([...calls.values()].filter((c) => c.verdict === 'rejected').length);
    // Every call row of the run was announced by exactly one proposal.
    expect(announced.map((p) => p.call_id).sort()).toEqual([...calls.keys()].sort());
  });
});
