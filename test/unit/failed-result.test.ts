// A set-up step that fails after a run's `init` still ends the run with a result (outcome error,
// exit 1) and closes the run's row in the ledger (a real SQLite file) with the reason and its fix.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failedResult } from '../../core/fix/failed-result.js';
import { IndexError } from '../../primitives/index/index-error.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { RunRecord } from '../../runtime/ledger/run-record.js';
import { createRun, getRun } from '../../runtime/ledger/runs.js';

describe('failedResult', () => {
  it('ends the run as an error with the reason and its fix, numbers from the ledger', () => {
    const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-failed-')), 'ledger.db'));
    try {
      const runId = createRun(ledger, { kind: 'fix', repo: '/r', owner: 'h:1:1' });
      const record = new RunRecord(ledger, runId, 'h:1:1');
      record.usage(10, 2, null);
      const error = new IndexError(
        'grammar_unavailable',
        'the Python grammar could not be loaded',
        'reinstall',
      );
      const result = failedResult({ runId, turns: 0, reproTarget: 't', record, error });
      expect(result).toEqual({
        run_id: runId,
        outcome: 'error',
        reason: 'the Python grammar could not be loaded (reinstall)',
        verified: false,
        exit_code: 1,
        turns: 0,
        tokens: 12,
        cost_usd: null,
        diff: '',
      });
      expect(getRun(ledger, runId)).toMatchObject({ outcome: 'error', outcome_reason: result.reason });
    } finally {
      ledger.close();
    }
  });
});
