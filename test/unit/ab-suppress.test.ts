// The A/B ablation's wrapper passes the dispatch options on: a suppressed call's row takes the id
// its proposal announced and tells `execution started`, and a call it lets through gets both too,
// so a re-run's stream names the same call ids as its ledger (a real SQLite file).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUPPRESSED, suppressNth } from '../../eval/ab/suppress.js';
import { MemoryRun, MemoryTools } from '../helpers/in-memory-loop.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { createRun } from '../../runtime/ledger/runs.js';
import { getCall, newCallId } from '../../runtime/ledger/calls.js';

const OWNER = 'h:1:1';

describe('suppressNth', () => {
  it('writes the suppressed call under its announced id and tells the dispatch hook; forwards both otherwise', async () => {
    const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-suppress-')), 'ledger.db'));
    try {
      const runId = createRun(ledger, { kind: 'fix', repo: '/r', owner: OWNER });
      const memory = new MemoryRun();
      const inner = new MemoryTools({ selectors: [], answer: () => ({ result: { ok: true } }) }, memory);
      const { wrap, suppression } = suppressNth(0, ledger, OWNER, () => runId);
      const tools = wrap(inner);
      const told: string[] = [];
      const onDispatched = (id: string) => told.push(id);

      const first = newCallId();
      const suppressed = await tools.run(
        { tool: 'read_entity', args: { selector: 'a.b', body: false, window: 100 } },
        'model',
        undefined,
        { callId: first, onDispatched },
      );
      expect(suppressed.callId).toBe(first);
      expect(getCall(ledger, first)).toMatchObject({ status: 'not_executed', status_reason: SUPPRESSED });
      expect(suppression.suppressed?.callId).toBe(first);

      const second = newCallId();
      const through = await tools.run(
        { tool: 'read_entity', args: { selector: 'a.c', body: false, window: 100 } },
        'model',
        undefined,
        { callId: second, onDispatched },
      );
      expect(through.callId).toBe(second);
      expect(memory.calls.map((c) => c.id)).toEqual([second]);

      const third = newCallId();
      await tools.lintFile('a.c', 'a.py', undefined, { callId: third, onDispatched });
      expect(told).toEqual([first, second, third]);
    } finally {
      ledger.close();
    }
  });
});
