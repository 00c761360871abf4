// The gate switches inside each policy module (retrieve, validate, triggers, trust) and the runner's
// --gate-ablation parsing: a switch turns its own gate off, the default leaves every gate on, and the
// neighbouring checks keep working.
import { describe, expect, it } from 'vitest';
import { notApplicable, parseGateAblation, gateVariant } from '../../eval/ab/variants.js';
import { UsageError } from '../../core/exit-codes.js';
import { GATE_NAMES, withoutGate, withoutGateLoop } from '../../eval/ab/gates.js';
import { SPEC_LOOP } from '../../policy/loop-settings.js';
import { TOOL_NAMES } from '../../policy/registry.js';
import { retrieveByMap, retrieveTools } from '../../policy/retrieve.js';
import { TriggerGate } from '../../policy/triggers.js';
import { trustGate } from '../../policy/trust.js';
import { validateCall } from '../../policy/validate.js';

const EDIT = { tool: 'edit_entity', args: { selector: 'pkg.mod.f', search: 'a', replace: 'b' } };
const noEvidence = { selectorExists: () => true, hasEvidence: () => false };
const EDITED = { editId: 'e1', selector: 'pkg.mod.f', path: 'pkg/mod.py' };

describe('gate names and switches', () => {
  it('lists the spec-order gates, the two weakest cases first, all on by default', () => {
    expect(GATE_NAMES.slice(0, 2)).toEqual(['trust_round_trip_search_symbol', 'retrieval_embed_fallback']);
    expect(GATE_NAMES).toHaveLength(8);
    expect(withoutGate('evidence_gate')).toEqual({ evidence_gate: false });
  });

  it("each gate's loop differs from the spec's loop in exactly one setting", () => {
    for (const g of GATE_NAMES) {
      const loop = withoutGateLoop(g);
      const changed = Object.keys(SPEC_LOOP).filter(
        (k) =>
          JSON.stringify(loop[k as keyof typeof loop]) !== JSON.stringify(SPEC_LOOP[k as keyof typeof loop]),
      );
      expect(changed, g).toHaveLength(1);
    }
    expect(withoutGateLoop('evidence_gate').evidenceGate).toBe(false);
    expect(withoutGateLoop('trust_gate').trustSkip).toEqual(['all']);
  });
});

describe('validate: evidence gate switch', () => {
  it('rejects an edit without evidence by default, lets it through with the gate off', () => {
    expect(validateCall(EDIT, noEvidence)).toMatchObject({
      ok: false,
      rejection: { reason: 'precondition failed: no evidence for selector pkg.mod.f' },
    });
    expect(validateCall(EDIT, noEvidence, { evidenceGate: false })).toMatchObject({
      ok: true,
    });
  });

  it('with the gate off, every other rule still applies', () => {
    const unknownSelector = { selectorExists: () => false, hasEvidence: () => false };
    expect(
      validateCall({ tool: 'read_entity', args: { selector: 'x.y' } }, unknownSelector, {
        evidenceGate: false,
      }),
    ).toMatchObject({ ok: false, rejection: { reason: 'precondition failed: unknown selector x.y' } });
    expect(
      validateCall({ tool: 'edit_entity', args: { selector: 'a.b', search: 'x' } }, noEvidence, {
        evidenceGate: false,
      }),
    ).toMatchObject({ ok: false, rejection: { reason: 'missing required arg: replace' } });
  });
});

describe('triggers: one switch per trigger', () => {
  it('post_edit_lint off: no lint, but the edit still forms a patch for the post-patch test', () => {
    const gate = new TriggerGate({ reproTarget: 'tests/test_x.py', off: ['post_edit_lint'] });
    expect(gate.onEditCommitted(EDITED)).toEqual([]);
    expect(gate.onModelAction({ kind: 'stop' }).map((c) => c.trigger)).toEqual(['post_patch_test']);
    expect(gate.onText('see pkg.mod.f').map((c) => c.trigger)).toEqual(['symbol_token']);
  });

  it('post_patch_test off: the patch is formed and nothing runs; lint and symbols still fire', () => {
    const gate = new TriggerGate({ reproTarget: 'tests/test_x.py', off: ['post_patch_test'] });
    expect(gate.onEditCommitted(EDITED).map((c) => c.trigger)).toEqual(['post_edit_lint']);
    expect(gate.patchPending).toBe(true);
    expect(gate.onModelAction({ kind: 'stop' })).toEqual([]);
    expect(gate.patchPending).toBe(false);
    expect(gate.onText('see pkg.mod.f').map((c) => c.trigger)).toEqual(['symbol_token']);
  });

  it('symbol_token off: no search_symbol for dotted tokens; the edit triggers still fire', () => {
    const gate = new TriggerGate({ reproTarget: 'tests/test_x.py', off: ['symbol_token'] });
    expect(gate.onText('`pkg.mod.f` and `pkg.mod.g` are wrong')).toEqual([]);
    expect(gate.onEditCommitted(EDITED).map((c) => c.trigger)).toEqual(['post_edit_lint']);
    expect(gate.onModelAction({ kind: 'stop' }).map((c) => c.trigger)).toEqual(['post_patch_test']);
  });

  it('no switch: every trigger fires as before', () => {
    const gate = new TriggerGate({ reproTarget: 'tests/test_x.py' });
    expect(gate.onText('pkg.mod.f').map((c) => c.trigger)).toEqual(['symbol_token']);
    expect(gate.onEditCommitted(EDITED).map((c) => c.trigger)).toEqual(['post_edit_lint']);
    expect(gate.onModelAction({ kind: 'stop' }).map((c) => c.trigger)).toEqual(['post_patch_test']);
  });
});

describe('trust gate: skipping the search_symbol round trip, or the whole gate', () => {
  const match = (selector: string) => ({
    selector,
    kind: 'function' as const,
    signature: `def ${selector.split('.').at(-1)}()`,
    path: 'pkg/mod.py',
    line: 1,
  });
  const symbolCall = {
    tool: 'search_symbol' as const,
    args: { query: 'remember', k: 10 },
    result: { ok: true, error: null, data: { matches: [match('pkg.mod.recall')] } },
  };
  const badTest = {
    tool: 'run_test' as const,
    args: { target: 't', timeout: 120 },
    result: { passed: true, exit_code: 1, output: '', timed_out: false },
    receipt: { exit_code: 1, timed_out: false },
  };
  const badEdit = {
    tool: 'edit_entity' as const,
    args: { selector: 'pkg.mod.f', search: 'a', replace: 'b' },
    result: {
      ok: true,
      error: null,
      data: { committed: true, lint_clean: false, diff: '@@ -1 +1 @@\n-a\n+b\n' },
    },
  };

  it('on: the lacking match is caveated', () => {
    expect(trustGate(symbolCall)).toMatchObject({
      trust: 'unverified',
      caveat: expect.stringMatching(/^round-trip:/),
    });
  });

  it('round trip skipped: search_symbol trusted; schema, exit code, edit round trip and lint still checked', () => {
    const skip = ['search_symbol_round_trip'] as const;
    expect(trustGate(symbolCall, { skip })).toEqual({ ok: true, trust: 'trusted', data: symbolCall.result });
    expect(trustGate({ ...symbolCall, result: { ok: true } }, { skip })).toMatchObject({
      trust: 'unverified',
      caveat: expect.stringMatching(/^schema conformance:/),
    });
    expect(trustGate(badTest, { skip })).toMatchObject({
      trust: 'unverified',
      caveat: expect.stringMatching(/^exit-code consistency:/),
    });
    expect(trustGate(badEdit, { skip })).toMatchObject({
      trust: 'unverified',
      caveat: expect.stringMatching(/lint:/),
    });
  });

  it('the whole gate off: every result trusted as captured', () => {
    for (const c of [symbolCall, badTest, badEdit])
      expect(trustGate(c, { skip: ['all'] })).toEqual({ ok: true, trust: 'trusted', data: c.result });
  });
});

describe('retrieval: the embed branch with and without its map fallback', () => {
  const input = { issueText: 'the test fails after my edit', latestObservation: '' };
  const failing = { embed: () => Promise.reject(new Error('down')) };

  it('on: a failing embedder falls back to the keyword map, with a note', async () => {
    const r = await retrieveTools(input, { mode: 'embed', embedder: failing });
    expect(r).toMatchObject({
      ...retrieveByMap(input),
      note: 'embedding retrieval failed (down); used the keyword map',
    });
  });

  it('off: a failing or missing embedder presents every tool unranked, with a note', async () => {
    const r = await retrieveTools(input, { mode: 'embed', embedder: failing, mapFallback: false });
    expect(r).toMatchObject({ tools: [...TOOL_NAMES], source: 'all', truncated: false });
    expect(r.note).toMatch(/map fallback is off/);
    const none = await retrieveTools(input, { mode: 'embed', mapFallback: false });
    expect(none).toMatchObject({ source: 'all' });
  });

  it('the switch does nothing in map mode or when the embedder works', async () => {
    expect(await retrieveTools(input, { mode: 'map', mapFallback: false })).toEqual(retrieveByMap(input));
    const working = { embed: (texts: string[]) => Promise.resolve(texts.map((_, i) => [1, i])) };
    expect(
      await retrieveTools(input, { mode: 'embed', embedder: working, mapFallback: false }),
    ).toMatchObject({
      source: 'embed',
    });
  });
});

describe('--gate-ablation parsing and applicability', () => {
  it('all: every gate in the spec order; a list: the named gates in that order, once', () => {
    expect(parseGateAblation('all')).toEqual([...GATE_NAMES]);
    expect(parseGateAblation('evidence_gate, trust_round_trip_search_symbol,evidence_gate')).toEqual([
      'trust_round_trip_search_symbol',
      'evidence_gate',
    ]);
  });

  it('an unknown or empty list is a usage error naming the gates', () => {
    expect(() => parseGateAblation('nope')).toThrow(UsageError);
    expect(() => parseGateAblation('nope')).toThrow(/unknown gate 'nope'.*trust_gate/);
    expect(() => parseGateAblation(' , ')).toThrow(/names no gate/);
  });

  it('a variant has its own arm key and switches off its gate alone', () => {
    expect(gateVariant('trust_gate')).toEqual({
      key: 'policy-no-trust_gate',
      arm: 'policy',
      gate: 'trust_gate',
      loop: { settings: { ...SPEC_LOOP, trustSkip: ['all'] }, gates: { trust_gate: false } },
    });
  });

  it('the embed fallback is not applicable without embedding retrieval; every other gate is', () => {
    expect(notApplicable('retrieval_embed_fallback', { embedConfigured: false })).toMatch(
      /^not applicable here/,
    );
    expect(notApplicable('retrieval_embed_fallback', { embedConfigured: true })).toBeNull();
    for (const g of GATE_NAMES.filter((n) => n !== 'retrieval_embed_fallback'))
      expect(notApplicable(g, { embedConfigured: false })).toBeNull();
  });
});
