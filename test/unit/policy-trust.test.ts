import { describe, expect, it } from 'vitest';
import { BASELINE_LOOP } from '../../policy/loop-settings.js';
import { editRoundTrip } from '../../primitives/tools/edit-entity/round-trip.js';
import { lastQueryToken } from '../../primitives/tools/search-symbol/tool.js';
import { trustGate, type RecordedCall } from '../../policy/trust.js';

const runTest = (result: Record<string, unknown>, receipt?: RecordedCall['receipt']): RecordedCall => ({
  tool: 'run_test',
  args: { target: 'tests/test_ops.py::test_add', timeout: 120 },
  result,
  receipt,
});

const CLEAN_FAIL = {
  passed: false,
  exit_code: 1,
  output: 'E   assert 3 == 4\n1 failed in 0.02s',
  timed_out: false,
};

describe('exit-code consistency (phase 5)', () => {
  it('a clean captured run_test is trusted, with the exact shape', () => {
    const gated = trustGate(runTest(CLEAN_FAIL, { exit_code: 1, timed_out: false }));
    expect(gated).toEqual({ ok: true, trust: 'trusted', data: CLEAN_FAIL });
    const ok = {
      passed: true,
      exit_code: 0,
      output: '1 passed',
      timed_out: false,
      counts: { passed: 1, failed: 0, errors: 0 },
    };
    expect(trustGate(runTest(ok)).ok && trustGate(runTest(ok))).toMatchObject({ trust: 'trusted' });
  });
  it('a run_test whose passed contradicts its exit code → unverified with a caveat, data as captured', () => {
    const lying = { ...CLEAN_FAIL, passed: true };
    const gated = trustGate(runTest(lying));
    expect(gated).toEqual({
      ok: true,
      trust: 'unverified',
      caveat: 'exit-code consistency: passed is true but exit_code is 1',
      data: lying,
    });
    expect(Object.keys(gated)).toEqual(['ok', 'trust', 'caveat', 'data']);
  });
  it('timed_out must come with the kill exit code 137, for execute and run_test', () => {
    const exec: RecordedCall = {
      tool: 'execute',
      args: { code: 'while True: pass', timeout: 1 },
      result: { stdout: '', stderr: '', exit_code: 0, timed_out: true },
    };
    expect(trustGate(exec)).toMatchObject({
      trust: 'unverified',
      caveat: 'exit-code consistency: timed_out is true but exit_code is 0, not 137',
    });
    expect(
      trustGate({ ...exec, result: { stdout: '', stderr: '', exit_code: 137, timed_out: true } }),
    ).toMatchObject({
      trust: 'trusted',
    });
    expect(trustGate(runTest({ passed: false, exit_code: 137, output: '', timed_out: true }))).toMatchObject({
      trust: 'trusted',
    });
  });
  it('the result must agree with the sandbox receipt the ledger holds', () => {
    expect(trustGate(runTest(CLEAN_FAIL, { exit_code: 2, timed_out: false }))).toMatchObject({
      trust: 'unverified',
      caveat: 'exit-code consistency: exit_code is 1 but the sandbox receipt says 2',
    });
  });
});

describe('schema conformance', () => {
  it('flags a result that does not have its tool shape, naming where', () => {
    expect(trustGate(runTest({ passed: 'yes', exit_code: 0, output: '', timed_out: false }))).toMatchObject({
      trust: 'unverified',
      caveat: expect.stringMatching(/^schema conformance: passed: /),
    });
    const search: RecordedCall = {
      tool: 'search_symbol',
      args: { query: 'add', k: 10 },
      result: {
        ok: true,
        error: null,
        data: {
          matches: [
            { selector: 'a.add', kind: 'function', signature: 'def add():', path: 'a.py', line: '3' },
          ],
        },
      },
    };
    expect(trustGate(search)).toMatchObject({
      caveat: expect.stringMatching(/^schema conformance: data\.matches\.0\.line: /),
    });
  });
  it('checks envelope consistency: ok with no data, failed with no error', () => {
    const read = (result: unknown): RecordedCall => ({
      tool: 'read_entity',
      args: { selector: 'a.b', body: false, window: 100 },
      result,
    });
    expect(trustGate(read({ ok: true, error: null, data: null }))).toMatchObject({
      caveat: 'schema conformance: data: an ok envelope has no data',
    });
    expect(trustGate(read({ ok: false, error: null, data: null }))).toMatchObject({
      caveat: 'schema conformance: error: a failed envelope has no error',
    });
    expect(trustGate(read({ ok: false, error: 'unknown selector a.b', data: null }))).toMatchObject({
      trust: 'trusted',
    });
    expect(
      trustGate(
        read({
          ok: true,
          error: null,
          data: {
            entity: {
              selector: 'a.b',
              kind: 'function',
              name: 'b',
              path: 'a.py',
              startLine: 1,
              endLine: 2,
              startByte: 0,
              endByte: 20,
              signature: 'def b():',
              doc: null,
              async: false,
            },
            body: null,
          },
        }),
      ),
    ).toMatchObject({ trust: 'trusted' });
  });
  it('accepts a search_code envelope with retrieval and note', () => {
    const code: RecordedCall = {
      tool: 'search_code',
      args: { query: 'rounding', cap: 8 },
      result: {
        ok: true,
        error: null,
        data: {
          results: [{ selector: 'a.r', signature: 'def r():', doc: null, score: 1.5 }],
          retrieval: 'lexical',
          note: 'fell back',
        },
      },
    };
    expect(trustGate(code)).toMatchObject({ trust: 'trusted' });
  });
});

describe('round-trip of search_symbol matches (phase 5)', () => {
  const search = (query: string, matches: Array<{ selector: string; signature: string }>): RecordedCall => ({
    tool: 'search_symbol',
    args: { query, k: 10 },
    result: {
      ok: true,
      error: null,
      data: { matches: matches.map((m) => ({ ...m, kind: 'method', path: 'memstore.py', line: 10 })) },
    },
  });
  it('a match lacking the query token is flagged', () => {
    const gated = trustGate(
      search('memstore.MemStore.remember', [
        { selector: 'memstore.MemStore.remember', signature: 'def remember(self, item):' },
        { selector: 'memstore.MemStore.forget', signature: 'def forget(self, item):' },
      ]),
    );
    expect(gated).toMatchObject({
      trust: 'unverified',
      caveat: 'round-trip: search_symbol match memstore.MemStore.forget lacks the query token "remember"',
    });
  });
  it('matches holding the token in name or signature, in any case, are trusted', () => {
    expect(
      trustGate(
        search('REMEMBER', [
          { selector: 'memstore.MemStore.remember', signature: 'def remember(self):' },
          { selector: 'memstore.recall', signature: 'def recall(remember_all=False):' },
        ]),
      ),
    ).toMatchObject({ trust: 'trusted' });
    expect(lastQueryToken('memstore.MemStore.remember')).toBe('remember');
    expect(lastQueryToken('  parse config ')).toBe('config');
  });
});

const DIFF = `--- a/src/calc/ops.py
+++ b/src/calc/ops.py
@@ -1,5 +1,5 @@
 class Calc:
     def add(self, a, b):
-        return a - b
+        return a + b
 
     def sub(self, a, b):
`;

describe('round-trip and lint of committed edits', () => {
  const edit = (
    data: Record<string, unknown>,
    args = { search: 'return a - b', replace: 'return a + b' },
  ): RecordedCall => ({
    tool: 'edit_entity',
    args: { selector: 'src.calc.ops.Calc.add', ...args },
    result: { ok: true, error: null, data },
  });
  it('a committed, lint-clean edit whose diff shows search → replace once is trusted', () => {
    expect(trustGate(edit({ committed: true, lint_clean: true, diff: DIFF }))).toMatchObject({
      trust: 'trusted',
    });
    expect(editRoundTrip('a - b', 'a + b', DIFF)).toBeNull();
  });
  it('flags a diff that does not contain the replace text', () => {
    expect(
      trustGate(
        edit(
          { committed: true, lint_clean: true, diff: DIFF },
          { search: 'return a - b', replace: 'return a * b' },
        ),
      ),
    ).toMatchObject({
      trust: 'unverified',
      caveat: 'round-trip: committed edit diff does not show the search text replaced by the replace text',
    });
  });
  it('flags a replacement shown twice, and a committed edit without a hunk', () => {
    const twice = `${DIFF}@@ -20,3 +20,3 @@\n x = 1\n-        return a - b\n+        return a + b\n`;
    expect(editRoundTrip('a - b', 'a + b', twice)).toBe(
      'committed edit diff shows the replacement 2 times, not once',
    );
    expect(editRoundTrip('a - b', 'a + b', '')).toBe('committed edit has no diff hunk');
  });
  it('only the changed part must show, so wide search strings with short context pass', () => {
    const search = [
      '    def add(self, a, b):',
      '        return a - b',
      '',
      '    def sub(self, a, b):',
      '        return a - b',
      '',
      '',
      'X = 1',
    ].join('\n');
    const replace = search.replace('return a - b', 'return a + b');
    expect(editRoundTrip(search, replace, DIFF)).toBeNull();
  });
  it('a committed edit without the harness lint verdict clean is flagged by the lint check', () => {
    expect(trustGate(edit({ committed: true, lint_clean: false, diff: DIFF }))).toMatchObject({
      trust: 'unverified',
      caveat: 'lint: committed edit carries lint_clean false from the harness lint',
    });
    expect(trustGate(edit({ committed: true, diff: DIFF }))).toMatchObject({
      caveat: expect.stringMatching(/^schema conformance: data\.lint_clean: /),
    });
  });
  it('a refused edit (not committed) has nothing to round-trip', () => {
    const refused: RecordedCall = {
      tool: 'edit_entity',
      args: { selector: 'a.b', search: 'x', replace: 'y' },
      result: {
        ok: false,
        error: 'edit refused by the lint gate: 1 new diagnostic(s)',
        data: { committed: false, lint_clean: false, diff: '' },
      },
    };
    expect(trustGate(refused)).toMatchObject({ trust: 'trusted' });
  });
  it('joins several failed checks', () => {
    expect(trustGate(edit({ committed: true, lint_clean: false, diff: '' }))).toMatchObject({
      caveat:
        'round-trip: committed edit has no diff hunk; lint: committed edit carries lint_clean false from the harness lint',
    });
  });
});

describe("the baseline loop's trust settings", () => {
  it('check nothing: the data as captured, trusted (and the baseline shows no marks)', () => {
    const lying = { ...CLEAN_FAIL, passed: true };
    expect(trustGate(runTest(lying), { skip: BASELINE_LOOP.trustSkip })).toEqual({
      ok: true,
      trust: 'trusted',
      data: lying,
    });
    expect(BASELINE_LOOP.trustMarks).toBe(false);
  });
});
