// summarize(): the one-line summary the TUI, the text output and `ledger show` print for an
// observation. A missing optional field never reads `undefined`; a refusal says who refused.
import { describe, expect, it } from 'vitest';
import { summarize } from '../../policy/observation-text.js';

const refusedEnvelope = (by: 'user' | 'policy', reason: string) => ({
  ok: false,
  error: by === 'user' ? `denied by the user: ${reason}` : `denied by the approval policy: ${reason}`,
  data: { committed: false, lint_clean: true, diff: '', denied: { by, reason } },
});

describe('summarize', () => {
  it('says a refusal was yours, with the reason only when one was given', () => {
    expect(summarize('denied', refusedEnvelope('user', 'no reason given'))).toBe('denied by you');
    expect(summarize('denied', refusedEnvelope('user', 'keep the format'))).toBe(
      'denied by you: keep the format',
    );
    expect(summarize('denied', refusedEnvelope('policy', 'read-only'))).toBe(
      'denied by the approval policy: read-only',
    );
  });

  it("reads the ledger's note of a refusal the same way", () => {
    expect(summarize('denied', { denied: true, reason: 'denied by the user: no reason given' })).toBe(
      'denied by you',
    );
    expect(summarize('denied', { denied: true, reason: 'denied by the user: not this file' })).toBe(
      'denied by you: not this file',
    );
    expect(summarize('denied', { denied: true, reason: null })).toBe('denied');
  });

  it('never prints undefined for a missing exit code or error', () => {
    expect(summarize('test', { passed: false, timed_out: true })).toBe('timed out');
    expect(summarize('execute', { stdout: 'hi', timed_out: false })).toBe('no exit code: hi');
    expect(summarize('execute', { stdout: 'hi', exit_code: 0 })).toBe('exit 0: hi');
    expect(summarize('read', { ok: false })).toBe('error (no message)');
    expect(summarize('read', null)).toBe('(no result)');
    for (const text of [
      summarize('test', { passed: false }),
      summarize('denied', {}),
      summarize('edit', { ok: false, error: 'x' }),
    ])
      expect(text).not.toContain('undefined');
  });
});
