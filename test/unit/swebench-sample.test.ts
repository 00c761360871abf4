// The §9 sample's order (eval/swebench/sample.ts) over 40 instances in the committed Django-style
// fixture's shape with SWE-bench-style ids: the same seed gives the same order whatever the file's
// order, another seed another, and an instance added to the set moves no other one.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInstances, type SweInstance } from '../../eval/swebench/instance-file.js';
import { sampleOrder } from '../../eval/swebench/sample.js';

const [base] = loadInstances(join(__dirname, '../fixtures/swebench/django-style/instances.jsonl'));
const ids = Array.from({ length: 40 }, (_, i) => `sympy__sympy-${12000 + i * 37}`);
const set: SweInstance[] = ids.map((instance_id) => ({ ...base!, instance_id }));

describe('sampleOrder', () => {
  it('orders the same set the same way for the same seed, whatever order the file has', () => {
    const a = sampleOrder(set, '1').map((i) => i.instance_id);
    const b = sampleOrder([...set].reverse(), '1').map((i) => i.instance_id);
    expect(a).toEqual(b);
    expect([...a].sort()).toEqual([...ids].sort());
    expect(sampleOrder(set, '2').map((i) => i.instance_id)).not.toEqual(a);
  });

  it('keeps the relative order of the others when an instance joins the set', () => {
    const before = sampleOrder(set, '7').map((i) => i.instance_id);
    const after = sampleOrder([...set, { ...base!, instance_id: 'django__django-11099' }], '7')
      .map((i) => i.instance_id)
      .filter((id) => id !== 'django__django-11099');
    expect(after).toEqual(before);
  });
});
