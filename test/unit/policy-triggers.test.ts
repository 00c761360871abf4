import { describe, expect, it } from 'vitest';
import { patchKey, SYMBOL_REGEX, symbolTokens, TriggerGate } from '../../policy/triggers.js';

describe('symbol regex (exact)', () => {
  it('is the spec regex, character for character', () => {
    expect(SYMBOL_REGEX.source).toBe('[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+');
  });
  it('finds dotted identifiers, in order, once each', () => {
    expect(
      symbolTokens('memstore.MemStore.remember drops items; see memstore.MemStore.remember and os.path.'),
    ).toEqual(['memstore.MemStore.remember', 'os.path']);
    expect(symbolTokens('plain words, no dots. 3.14 is a number')).toEqual([]);
    expect(symbolTokens('_private._x and a1.b2')).toEqual(['_private._x', 'a1.b2']);
  });
  it('adds bare CamelCase only when asked (SYMBOL_CAMEL=1)', () => {
    const text = 'The MemStore class forgets; calc.ops.add too';
    expect(symbolTokens(text)).toEqual(['calc.ops.add']);
    expect(symbolTokens(text, { camel: true })).toEqual(['The', 'MemStore', 'calc.ops.add']);
  });
});

describe('symbol-token trigger', () => {
  it('an issue naming memstore.MemStore.remember → one search_symbol trigger call', () => {
    const gate = new TriggerGate();
    expect(gate.onText('Bug: memstore.MemStore.remember drops the last item')).toEqual([
      {
        trigger: 'symbol_token',
        tool: 'search_symbol',
        args: { query: 'memstore.MemStore.remember', k: 10 },
        origin: 'trigger',
        key: 'symbol:memstore.MemStore.remember',
      },
    ]);
  });
  it('fires for the first ≤ 3 new tokens of a string, at most once per token', () => {
    const gate = new TriggerGate();
    const first = gate.onText('a.b c.d e.f g.h a.b');
    expect(first.map((c) => c.args)).toEqual([
      { query: 'a.b', k: 10 },
      { query: 'c.d', k: 10 },
      { query: 'e.f', k: 10 },
    ]);
    // g.h was fourth: not fired, so still new; the others never fire again.
    expect(gate.onText('observation: a.b c.d e.f g.h i.j').map((c) => c.key)).toEqual([
      'symbol:g.h',
      'symbol:i.j',
    ]);
    expect(gate.onText('a.b c.d e.f g.h i.j')).toEqual([]);
  });
  it('uses the CamelCase signal only with the option', () => {
    expect(new TriggerGate().onText('MemStore forgets')).toEqual([]);
    expect(new TriggerGate({ symbolCamel: true }).onText('MemStore forgets').map((c) => c.key)).toEqual([
      'symbol:MemStore',
    ]);
  });
});

describe('post-edit lint trigger', () => {
  it('a committed edit → one lint call keyed by selector + edit id, once', () => {
    const gate = new TriggerGate();
    const edit = { editId: 'e1', selector: 'src.calc.ops.Calc.add', path: 'src/calc/ops.py' };
    expect(gate.onEditCommitted(edit)).toEqual([
      {
        trigger: 'post_edit_lint',
        tool: 'lint',
        args: { selector: 'src.calc.ops.Calc.add', path: 'src/calc/ops.py' },
        origin: 'trigger',
        key: 'lint:src.calc.ops.Calc.add@e1',
      },
    ]);
    expect(gate.onEditCommitted(edit)).toEqual([]);
    expect(gate.onEditCommitted({ ...edit, editId: 'e2' }).map((c) => c.key)).toEqual([
      'lint:src.calc.ops.Calc.add@e2',
    ]);
  });
});

describe('post-patch test trigger: the definition of "formed"', () => {
  const edit = (id: string) => ({ editId: id, selector: 'src.calc.ops.Calc.add', path: 'src/calc/ops.py' });

  it('fires on the first non-edit action after committed edits, once per set of edits', () => {
    const gate = new TriggerGate({ reproTarget: 'tests/test_ops.py::test_add' });
    gate.onEditCommitted(edit('e1'));
    expect(gate.onModelAction({ kind: 'call', tool: 'edit_entity' })).toEqual([]);
    gate.onEditCommitted(edit('e2'));
    const fired = gate.onModelAction({ kind: 'call', tool: 'read_entity' });
    expect(fired).toEqual([
      {
        trigger: 'post_patch_test',
        tool: 'run_test',
        args: { target: 'tests/test_ops.py::test_add', timeout: 120 },
        origin: 'trigger',
        key: patchKey(['e1', 'e2']),
      },
    ]);
    // The next non-edit actions find no untested edit: nothing fires.
    expect(gate.onModelAction({ kind: 'call', tool: 'run_test' })).toEqual([]);
    expect(gate.onModelAction({ kind: 'stop' })).toEqual([]);
    // A further edit forms a new patch (the whole set e1, e2, e3), which stop then tests.
    gate.onEditCommitted(edit('e3'));
    expect(gate.onModelAction({ kind: 'stop' }).map((c) => c.key)).toEqual([patchKey(['e1', 'e2', 'e3'])]);
  });
  it('stop and ask_user form a patch too; no edits means no patch', () => {
    const gate = new TriggerGate({ reproTarget: 't' });
    expect(gate.onModelAction({ kind: 'stop' })).toEqual([]);
    gate.onEditCommitted(edit('e1'));
    expect(gate.onModelAction({ kind: 'ask_user' })).toHaveLength(1);
  });
  it('never fires without a repro target', () => {
    const gate = new TriggerGate({ reproTarget: null });
    gate.onEditCommitted(edit('e1'));
    expect(gate.onModelAction({ kind: 'stop' })).toEqual([]);
    const blank = new TriggerGate({ reproTarget: '  ' });
    blank.onEditCommitted(edit('e1'));
    expect(blank.onModelAction({ kind: 'call', tool: 'execute' })).toEqual([]);
  });
  it('keys the patch by the set of edit ids, whatever the order', () => {
    expect(patchKey(['b', 'a'])).toBe(patchKey(['a', 'b', 'a']));
    expect(patchKey(['a'])).not.toBe(patchKey(['a', 'b']));
    expect(patchKey(['a'])).toMatch(/^test:[0-9a-f]{64}$/);
  });
  it('a restored gate (resume) does not fire a key again', () => {
    const gate = new TriggerGate({ reproTarget: 't' });
    gate.onText('a.b');
    gate.onEditCommitted(edit('e1'));
    const snapshot = gate.snapshot();
    expect(snapshot).toEqual({
      fired: ['symbol:a.b', 'lint:src.calc.ops.Calc.add@e1'],
      committedEdits: ['e1'],
      untestedEdits: 1,
    });
    const resumed = new TriggerGate({ reproTarget: 't' }, JSON.parse(JSON.stringify(snapshot)));
    expect(resumed.onText('a.b')).toEqual([]);
    expect(resumed.onEditCommitted(edit('e1'))).toEqual([]);
    expect(resumed.patchPending).toBe(true);
    expect(resumed.onModelAction({ kind: 'stop' })).toHaveLength(1);
  });
});
