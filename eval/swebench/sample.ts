// `ab --sample N --seed S`: the §9 sample, drawn from the valid instances of a set. The instances
// are put in an order fixed by the seed and each id alone (sha256 of "seed:id"), and validated in
// that order until N are valid: the same seed over the same set gives the same N, an instance
// added to the set moves no other one, and only as many instances are validated as the draw needs.
import { createHash } from 'node:crypto';
import type { SweInstance } from './instance-file.js';

export interface SampleRequest {
  size: number;
  seed: string;
}

function rank(seed: string, id: string): string {
  return createHash('sha256').update(`${seed}:${id}`).digest('hex');
}

/** The set in the seed's order (a copy; ties cannot happen between distinct ids). */
export function sampleOrder(instances: readonly SweInstance[], seed: string): SweInstance[] {
  return [...instances]
    .map((instance) => ({ instance, key: rank(seed, instance.instance_id) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((e) => e.instance);
}
