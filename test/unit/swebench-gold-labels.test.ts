// Gold labels derived from the gold patch (eval/swebench/gold-labels.ts), on the committed
// Django-style and sympy-style fixture instances: a statement naming the patched function starts
// with search_symbol, one describing only behaviour with search_code; then read_entity and
// edit_entity. A fix with no def or class around it has no labels.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goldEditsOf } from '../../eval/swebench/gold-edits.js';
import { goldLabelsOf } from '../../eval/swebench/gold-labels.js';
import { loadInstances } from '../../eval/swebench/instance-file.js';

const FIXTURES = join(__dirname, '../fixtures/swebench');

function editsOf(style: string) {
  const [instance] = loadInstances(join(FIXTURES, style, 'instances.jsonl'));
  const read = (file: string) => readFileSync(join(FIXTURES, style, 'base', file), 'utf8');
  return { instance: instance!, edits: goldEditsOf(instance!.patch, read) };
}

describe('goldLabelsOf', () => {
  it('starts with search_symbol when the statement names the patched function', () => {
    for (const style of ['django-style', 'sympy-style']) {
      const { instance, edits } = editsOf(style);
      expect(edits.length).toBeGreaterThan(0);
      expect(goldLabelsOf(instance.problem_statement, edits)).toEqual([
        'search_symbol',
        'read_entity',
        'edit_entity',
      ]);
    }
  });

  it('starts with search_code when the statement only describes the behaviour', () => {
    const { edits } = editsOf('django-style');
    expect(goldLabelsOf('Rectangles come out with the wrong size.', edits)[0]).toBe('search_code');
    // A name inside a longer word is not a mention, nor is the module's name.
    expect(goldLabelsOf('The surface areas are wrong.', edits)[0]).toBe('search_code');
    expect(goldLabelsOf('Everything in geometry is wrong.', edits)[0]).toBe('search_code');
  });

  it("counts a method's class as naming it", () => {
    const edits = [{ selector: 'sympy.sets.contains.Contains.as_set', search: 'a', replace: 'b' }];
    expect(goldLabelsOf('Contains.as_set returns Contains', edits)[0]).toBe('search_symbol');
    expect(goldLabelsOf('Contains(x, Reals) is not a set', edits)[0]).toBe('search_symbol');
    expect(goldLabelsOf('the membership test is not a set', edits)[0]).toBe('search_code');
  });

  it('has no labels when the fix edits no def or class', () => {
    expect(goldLabelsOf('anything', [])).toEqual([]);
  });
});
