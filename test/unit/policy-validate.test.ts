import { describe, expect, it } from 'vitest';
import { LOOPS } from '../../policy/loop-settings.js';
import type { Proposal } from '../../policy/proposal.js';
import { classifyProposal, validateCall, type PreconditionChecks } from '../../policy/validate.js';

const KNOWN = new Set(['repo.memstore.MemStore.remember', 'src.calc.ops.Calc.add']);
const CITED = new Set(['src.calc.ops.Calc.add']);
const checks: PreconditionChecks = {
  selectorExists: (s) => KNOWN.has(s),
  hasEvidence: (s) => CITED.has(s),
};

const reason = (tool: string, args: Record<string, unknown>, policy?: 'policy' | 'current') => {
  const v = validateCall({ tool, args }, checks, { evidenceGate: LOOPS[policy ?? 'policy'].evidenceGate });
  return v.ok ? null : v.rejection.reason;
};

describe('validation rule 1: registry', () => {
  it('rejects an unknown tool with the exact observation shape', () => {
    const v = validateCall({ tool: 'bash', args: { cmd: 'ls' } }, checks);
    expect(v).toEqual({
      ok: false,
      rejection: { ok: false, rejected: true, tool: 'bash', reason: 'unknown tool: bash' },
    });
    expect(JSON.stringify(!v.ok && v.rejection)).toBe(
      '{"ok":false,"rejected":true,"tool":"bash","reason":"unknown tool: bash"}',
    );
  });
  it('is case-sensitive and does not accept inherited property names or reserved names', () => {
    expect(reason('Read_Entity', {})).toBe('unknown tool: Read_Entity');
    expect(reason('constructor', {})).toBe('unknown tool: constructor');
    expect(reason('ask_user', { question: 'q' })).toBe('unknown tool: ask_user');
  });
});

describe('validation rule 2: args', () => {
  it('rejects an arg not in the schema', () => {
    expect(reason('read_entity', { selector: 'src.calc.ops.Calc.add', path: 'x.py' })).toBe(
      'unknown arg: path',
    );
    expect(reason('execute', { code: 'print(1)', network: true })).toBe('unknown arg: network');
  });
  it('reports a missing required arg (the spec example)', () => {
    expect(reason('read_entity', {})).toBe('missing required arg: selector');
    expect(reason('edit_entity', { selector: 'src.calc.ops.Calc.add', search: 'a' })).toBe(
      'missing required arg: replace',
    );
    expect(reason('run_test', { timeout: 5 })).toBe('missing required arg: target');
  });
  it('checks unknown before missing before invalid', () => {
    expect(reason('read_entity', { window: 0, bogus: 1 })).toBe('unknown arg: bogus');
    expect(reason('read_entity', { window: 0 })).toBe('missing required arg: selector');
  });
  it('rejects out-of-range numbers instead of clamping them (the spec example)', () => {
    expect(reason('read_entity', { selector: 'src.calc.ops.Calc.add', window: 0 })).toBe(
      'invalid arg: window (expected int 1..100, got 0)',
    );
    expect(reason('read_entity', { selector: 'src.calc.ops.Calc.add', window: 101 })).toBe(
      'invalid arg: window (expected int 1..100, got 101)',
    );
    expect(reason('search_symbol', { query: 'x', k: 11 })).toBe(
      'invalid arg: k (expected int 1..10, got 11)',
    );
    expect(reason('search_code', { query: 'x', cap: 9 })).toBe('invalid arg: cap (expected int 1..8, got 9)');
    expect(reason('run_test', { target: 't', timeout: 301 })).toBe(
      'invalid arg: timeout (expected int 1..300, got 301)',
    );
    expect(reason('execute', { code: 'x', timeout: 31 })).toBe(
      'invalid arg: timeout (expected int 1..30, got 31)',
    );
    expect(reason('execute', { code: 'x', timeout: -1 })).toBe(
      'invalid arg: timeout (expected int 1..30, got -1)',
    );
  });
  it('rejects non-integers and wrong types naming what came', () => {
    expect(reason('read_entity', { selector: 'src.calc.ops.Calc.add', window: 1.5 })).toBe(
      'invalid arg: window (expected int 1..100, got 1.5)',
    );
    expect(reason('read_entity', { selector: 'src.calc.ops.Calc.add', window: '10' })).toBe(
      'invalid arg: window (expected int 1..100, got string)',
    );
    expect(reason('read_entity', { selector: 'src.calc.ops.Calc.add', body: 'true' })).toBe(
      'invalid arg: body (expected bool, got string)',
    );
    expect(reason('read_entity', { selector: 42 })).toBe('invalid arg: selector (expected str, got number)');
    expect(reason('read_entity', { selector: null })).toBe('invalid arg: selector (expected str, got null)');
    expect(reason('search_symbol', { query: 'x', keywords: 'a' })).toBe(
      'invalid arg: keywords (expected list[str], got string)',
    );
    expect(reason('search_symbol', { query: 'x', keywords: ['a', 2] })).toBe(
      'invalid arg: keywords (expected list[str], got array with number at index 1)',
    );
  });
  it('enforces the edit caps: search ≤ 400, replace ≤ 2000', () => {
    const base = { selector: 'src.calc.ops.Calc.add', search: 'a', replace: 'b' };
    expect(reason('edit_entity', { ...base, search: 'x'.repeat(512) })).toBe(
      'invalid arg: search (expected str of at most 400 chars, got 512)',
    );
    expect(reason('edit_entity', { ...base, replace: 'y'.repeat(2001) })).toBe(
      'invalid arg: replace (expected str of at most 2000 chars, got 2001)',
    );
    expect(reason('edit_entity', { ...base, search: 'x'.repeat(400), replace: 'y'.repeat(2000) })).toBeNull();
    expect(reason('edit_entity', { ...base, search: 3 })).toBe(
      'invalid arg: search (expected str of at most 400 chars, got number)',
    );
  });
});

describe('validation rule 3: preconditions', () => {
  it('read_entity needs a known selector', () => {
    expect(reason('read_entity', { selector: 'no.such.thing' })).toBe(
      'precondition failed: unknown selector no.such.thing',
    );
  });
  it('searches need a non-empty query after strip', () => {
    expect(reason('search_symbol', { query: '  \n' })).toBe('precondition failed: empty query');
    expect(reason('search_code', { query: '' })).toBe('precondition failed: empty query');
  });
  it('edit_entity needs evidence for the selector (the spec example)', () => {
    expect(
      reason('edit_entity', { selector: 'repo.memstore.MemStore.remember', search: 'a', replace: 'b' }),
    ).toBe('precondition failed: no evidence for selector repo.memstore.MemStore.remember');
  });
  it('run_test needs a target, execute needs code', () => {
    expect(reason('run_test', { target: ' ' })).toBe('precondition failed: empty target');
    expect(reason('execute', { code: '' })).toBe('precondition failed: empty code');
  });
  it('the baseline arm (current) turns the evidence gate off and keeps every other rule', () => {
    const edit = { selector: 'repo.memstore.MemStore.remember', search: 'a', replace: 'b' };
    expect(reason('edit_entity', edit, 'current')).toBeNull();
    expect(reason('read_entity', { selector: 'no.such.thing' }, 'current')).toBe(
      'precondition failed: unknown selector no.such.thing',
    );
    expect(reason('bash', {}, 'current')).toBe('unknown tool: bash');
    expect(reason('read_entity', { selector: 'src.calc.ops.Calc.add', window: 0 }, 'current')).toBe(
      'invalid arg: window (expected int 1..100, got 0)',
    );
  });
  it('a lookup that throws counts as no, and validation itself never throws', () => {
    const broken: PreconditionChecks = {
      selectorExists: () => {
        throw new Error('index gone');
      },
      hasEvidence: () => {
        throw new Error('ledger gone');
      },
    };
    const v = validateCall({ tool: 'read_entity', args: { selector: 'a.b' } }, broken);
    expect(!v.ok && v.rejection.reason).toBe('precondition failed: unknown selector a.b');
  });
});

describe('accepted calls', () => {
  it('apply defaults and keep optional args absent', () => {
    expect(
      validateCall({ tool: 'read_entity', args: { selector: 'src.calc.ops.Calc.add' } }, checks),
    ).toEqual({
      ok: true,
      call: { tool: 'read_entity', args: { selector: 'src.calc.ops.Calc.add', body: false, window: 100 } },
    });
    expect(validateCall({ tool: 'search_symbol', args: { query: 'Calc.add' } }, checks)).toEqual({
      ok: true,
      call: { tool: 'search_symbol', args: { query: 'Calc.add', k: 10 } },
    });
    const run = validateCall({ tool: 'run_test', args: { target: 'tests/test_ops.py::test_add' } }, checks);
    expect(run.ok && run.call.args).toEqual({ target: 'tests/test_ops.py::test_add', timeout: 120 });
    const exec = validateCall({ tool: 'execute', args: { code: 'print(1)' } }, checks);
    expect(exec.ok && exec.call.args).toEqual({ code: 'print(1)', timeout: 10 });
    const edit = validateCall(
      { tool: 'edit_entity', args: { selector: 'src.calc.ops.Calc.add', search: 'a - b', replace: 'a + b' } },
      checks,
    );
    expect(edit.ok).toBe(true);
  });
  it('accept the edge values of every range', () => {
    for (const window of [1, 100])
      expect(reason('read_entity', { selector: 'src.calc.ops.Calc.add', window })).toBeNull();
    for (const timeout of [1, 300]) expect(reason('run_test', { target: 't', timeout })).toBeNull();
  });
});

describe('classifyProposal: the reserved names never reach validation', () => {
  const classify = (p: Proposal) => classifyProposal(p);
  it('recognises ask_user and stop with their text', () => {
    expect(classify({ tool: 'ask_user', args: { question: 'Which version?' } })).toEqual({
      kind: 'ask_user',
      question: 'Which version?',
    });
    expect(classify({ tool: 'stop', args: { reason: 'fixed' } })).toEqual({ kind: 'stop', reason: 'fixed' });
  });
  it('accepts them with empty args ({}), as section 5 allows', () => {
    expect(classify({ tool: 'stop', args: {} })).toEqual({ kind: 'stop', reason: '' });
    expect(classify({ tool: 'ask_user', args: { question: 7 } })).toEqual({
      kind: 'ask_user',
      question: '7',
    });
  });
  it('passes everything else on as a call, unknown names included', () => {
    expect(classify({ tool: 'bash', args: {} })).toEqual({
      kind: 'call',
      proposal: { tool: 'bash', args: {} },
    });
    expect(classify({ tool: 'STOP', args: {} }).kind).toBe('call');
  });
});
