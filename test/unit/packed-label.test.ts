// Text kept in an image label (runtime/text/packed-label.ts): it round-trips, and a label that is
// not one piper packed, or that unpacks past its bound (a gzip bomb in an image someone else made),
// reads as nothing instead of filling the host's memory.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packLabel, unpackLabel } from '../../runtime/text/packed-label.js';
import { shortfallsFromLabel } from '../../runtime/env/build/shortfall.js';

describe('packed labels', () => {
  it('round-trips text', () => {
    const text = 'piper-dpkg python3-numpy 1:1.24.2-1\n'.repeat(200);
    expect(unpackLabel(packLabel(text))).toBe(text);
  });

  it('reads garbage and a gzip bomb as nothing', () => {
    expect(unpackLabel('not base64 gzip')).toBeNull();
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)).toString('base64');
    expect(unpackLabel(bomb)).toBeNull();
    expect(shortfallsFromLabel(bomb)).toBeNull();
  });

  it('keeps only entries shaped as shortfalls', () => {
    const label = packLabel(JSON.stringify([{ kind: 'missing', name: 'foo' }, 3, { kind: 1 }]));
    expect(shortfallsFromLabel(label)).toEqual([{ kind: 'missing', name: 'foo' }]);
    expect(shortfallsFromLabel(packLabel('{"not": "a list"}'))).toBeNull();
  });
});
