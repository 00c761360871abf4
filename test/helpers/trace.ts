// Trace completeness (docs/ledger.md): every model proposal — one turns row per model call —
// ends in exactly one terminal record: an executed or failed call, a rejected call, or the turn's
// own no-op / stop / ask_user observation; and no call is left `dispatched`.
import { expect } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { callsOf, observationsOf, turnsOf } from '../../runtime/ledger/turns.js';

export function expectTraceComplete(ledgerFile: string, runId: string): number {
  const ledger = Ledger.open(ledgerFile);
  try {
    const turns = turnsOf(ledger, runId);
    const calls = callsOf(ledger, runId);
    const observations = observationsOf(ledger, runId);
    for (const turn of turns) {
      const id = turn.id as number;
      if (turn.raw_output === null && turn.action !== null) continue; // the model call itself failed (error outcome)
      const modelCalls = calls.filter((c) => c.turn_id === id && c.origin === 'model');
      const own = observations.filter(
        (o) => o.turn_id === id && ['noop', 'stop', 'ask_user'].includes(o.kind),
      );
      expect(modelCalls.length + own.length, `turn row ${id}: ${String(turn.raw_output)}`).toBe(1);
      for (const c of modelCalls) expect(['completed', 'failed', 'not_executed']).toContain(c.status);
    }
    for (const c of calls) expect(c.status, `call ${String(c.id)}`).not.toBe('dispatched');
    return turns.length;
  } finally {
    ledger.close();
  }
}
