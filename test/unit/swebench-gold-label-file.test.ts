// The committed gold-label file of the real set (eval/tasks/real/gold-labels.json, read by
// eval/swebench/gold-label-file.ts): it names exactly the 20 instances `ab --sample 20 --seed 1`
// draws from the set, each with three labels that locate, read and edit (or read twice), a note of
// the hand check, and no expected abstention; a file that breaks the schema is refused by path and field.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGoldLabelFile } from '../../eval/swebench/gold-label-file.js';
import { loadInstances } from '../../eval/swebench/instance-file.js';
import { sampleOrder } from '../../eval/swebench/sample.js';
import { packageRoot } from '../../runtime/package-root.js';

const BENCH = join(packageRoot(), 'eval', 'tasks', 'real', 'instances.jsonl');

describe('the real set gold-label file', () => {
  const file = readGoldLabelFile(BENCH)!;

  it('labels the 20 instances of the seed-1 sample, each checked by hand', () => {
    const draw = sampleOrder(loadInstances(BENCH), '1')
      .slice(0, 20)
      .map((i) => i.instance_id);
    expect([...file.instances.keys()]).toEqual(draw);
    for (const [id, entry] of file.instances) {
      expect(entry.labels, id).toHaveLength(3);
      expect(['search_symbol', 'search_code']).toContain(entry.labels[0]);
      expect(entry.labels[1]).toBe('read_entity');
      expect(['edit_entity', 'read_entity']).toContain(entry.labels[2]);
      expect(entry.abstention).toBeNull();
      expect(entry.checked.length, id).toBeGreaterThan(100);
    }
    // What the hand check changed against the derivation is written in each note.
    const changed = [...file.instances].filter(([, e]) => e.labels.join() !== e.derived.join());
    expect(changed.length).toBeGreaterThan(0);
    for (const [id, e] of changed) expect(e.checked, id).toMatch(/Corrected: /);
  });

  it('is absent for a set without one, and refused by field when malformed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-gold-file-'));
    expect(readGoldLabelFile(join(dir, 'set.jsonl'))).toBeNull();
    const entry = {
      labels: ['grep'],
      entity: 'm.f',
      derived: [],
      then: 'run_test',
      abstention: null,
      checked: 'x',
    };
    writeFileSync(
      join(dir, 'gold-labels.json'),
      JSON.stringify({ about: '', sample: { size: 1, seed: '1' }, instances: { a: entry } }),
    );
    expect(() => readGoldLabelFile(join(dir, 'set.jsonl'))).toThrow(
      /gold-labels\.json: instances\.a\.labels\.0: not a tool/,
    );
  });
});
