// The content keys of a project environment: hashes of its build spec (spec/build-spec.ts), which
// holds everything an image is made from, the build's own scripts among them. The declarations key
// leaves out what only this checkout gives (the snapshot's hash, the VCS version): it keys the
// dependency images, in which no repository code ran. The image key is the whole spec's.
import { createHash } from 'node:crypto';
import { redactSpec, type BuildSpec } from '../spec/spec-schema.js';

const sha256 = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

export function declarationsKey(spec: BuildSpec): string {
  const { checkout: _checkout, ...declared } = redactSpec(spec);
  return sha256(declared);
}

/** Equal to the declarations key when no repository code runs in the build. */
export function imageKey(spec: BuildSpec): string {
  return spec.checkout.snapshot === null ? declarationsKey(spec) : sha256(redactSpec(spec));
}
