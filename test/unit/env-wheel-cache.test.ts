// The host's wheel cache as data: what it keeps, what it offers back and when it refuses (a name that
// is not a wheel's, bytes that are not a zip, a hash that does not match, a corrupt or half-written
// entry, other pip sources).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  keepWheels,
  sourcesFingerprint,
  WheelCache,
  wheelCacheDir,
} from '../../runtime/env/build/network/wheel-cache.js';
import { pipDownloadStep, SEEDED } from '../../runtime/env/build/deps/download-steps.js';

const PIP = { indexUrl: 'https://index.example/simple/', extraIndexUrls: [], findLinkUrls: [] };
const wheel = (text: string) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(text)]);
const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function tarOf(files: Record<string, Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, data] of Object.entries(files)) pack.entry({ name: `downloads/${name}` }, data);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

let dir: string;
let cache: WheelCache;
const fp = sourcesFingerprint(PIP);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'piper-wheel-cache-unit-'));
  cache = new WheelCache(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('where it is', () => {
  it('PIPER_WHEEL_CACHE, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(wheelCacheDir({ PIPER_WHEEL_CACHE: '/x', XDG_CACHE_HOME: '/c' })).toBe('/x');
    expect(wheelCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/piper-agent/wheels');
    expect(wheelCacheDir({ HOME: '/h' })).toBe('/h/.cache/piper-agent/wheels');
  });
});

describe('store and lookup', () => {
  it('keeps a wheel under its sha256 and gives back the same bytes for the same file name', () => {
    const data = wheel('a');
    expect(cache.store(fp, 'a-1.0-py3-none-any.whl', data)).toBe(true);
    expect(existsSync(join(dir, 'sha256', hex(data), 'a-1.0-py3-none-any.whl'))).toBe(true);
    expect(cache.lookup(fp, 'a-1.0-py3-none-any.whl')?.data.equals(data)).toBe(true);
    expect(cache.lookup(fp, 'a-1.1-py3-none-any.whl')).toBeNull();
  });

  it('keeps nothing that is not a wheel: another name, bytes that are not a zip, a path', () => {
    expect(cache.store(fp, 'a-1.0.tar.gz', wheel('a'))).toBe(false);
    expect(cache.store(fp, 'evil.pth', wheel('a'))).toBe(false);
    expect(cache.store(fp, '../a-1.0-py3-none-any.whl', wheel('a'))).toBe(false);
    expect(cache.store(fp, 'a-1.0-py3-none-any.whl', Buffer.from('#!/bin/sh'))).toBe(false);
    expect(existsSync(join(dir, 'sha256'))).toBe(false);
  });

  it("refuses a wheel whose sha256 is not the index's", () => {
    const data = wheel('a');
    expect(cache.store(fp, 'a-1.0-py3-none-any.whl', data, '0'.repeat(64))).toBe(false);
    expect(cache.store(fp, 'a-1.0-py3-none-any.whl', data, hex(data).toUpperCase())).toBe(true);
  });

  it('a corrupt entry is ignored and removed; a half-written one is never read', () => {
    const data = wheel('a');
    cache.store(fp, 'a-1.0-py3-none-any.whl', data);
    const blob = join(dir, 'sha256', hex(data), 'a-1.0-py3-none-any.whl');
    writeFileSync(blob, wheel('tampered'));
    expect(cache.lookup(fp, 'a-1.0-py3-none-any.whl')).toBeNull();
    expect(existsSync(blob)).toBe(false);
    // A temporary name a crashed writer left is not a wheel's name: never offered.
    writeFileSync(join(dir, 'sources', fp, 'files', 'b-1.0-py3-none-any.whl.123.x.tmp'), hex(data));
    expect(cache.offer(fp, new Set(['a', 'b']))).toEqual([]);
    // An index entry naming a hash with no blob, or no hash at all.
    writeFileSync(join(dir, 'sources', fp, 'files', 'c-1.0-py3-none-any.whl'), 'not a hash');
    expect(cache.lookup(fp, 'c-1.0-py3-none-any.whl')).toBeNull();
  });
});

describe('a wheel built from an sdist', () => {
  const sdist = 'a'.repeat(64);
  it('is found by the sdist sha256 and the image it was built on, and only so', () => {
    const data = wheel('built');
    expect(cache.storeBuilt(sdist, 'sha256:image1', 'p-1.0-py3-none-any.whl', data)).toBe(true);
    expect(cache.lookupBuilt(sdist, 'sha256:image1')?.data.equals(data)).toBe(true);
    expect(cache.lookupBuilt(sdist, 'sha256:image2')).toBeNull();
    expect(cache.lookupBuilt('b'.repeat(64), 'sha256:image1')).toBeNull();
    // Not a download: never offered as one.
    expect(cache.offer(fp, new Set(['p']))).toEqual([]);
  });

  it('refuses what is not a wheel, and a corrupt entry', () => {
    expect(cache.storeBuilt(sdist, 'i', 'p-1.0.tar.gz', wheel('x'))).toBe(false);
    expect(cache.storeBuilt('not-hex', 'i', 'p-1.0-py3-none-any.whl', wheel('x'))).toBe(false);
    const data = wheel('built');
    cache.storeBuilt(sdist, 'i', 'p-1.0-py3-none-any.whl', data);
    writeFileSync(join(dir, 'sha256', hex(data), 'p-1.0-py3-none-any.whl'), wheel('other'));
    expect(cache.lookupBuilt(sdist, 'i')).toBeNull();
  });
});

describe('what a build is offered', () => {
  it('only from the same pip sources (their credentials aside)', () => {
    cache.store(fp, 'a-1.0-py3-none-any.whl', wheel('a'));
    const withLogin = sourcesFingerprint({ ...PIP, indexUrl: 'https://u:secret@index.example/simple/' });
    expect(withLogin).toBe(fp);
    const other = sourcesFingerprint({ ...PIP, indexUrl: 'https://company.example/simple/' });
    expect(cache.offer(other, new Set(['a']))).toEqual([]);
    expect(cache.offer(fp, new Set(['a'])).map((w) => w.file)).toEqual(['a-1.0-py3-none-any.whl']);
  });

  it('the asked distributions and those their last download brought', () => {
    cache.store(fp, 'a-1.0-py3-none-any.whl', wheel('a'));
    cache.store(fp, 'b-2.0-py3-none-any.whl', wheel('b'));
    cache.store(fp, 'c-3.0-py3-none-any.whl', wheel('c'));
    expect(cache.offer(fp, cache.closure(fp, ['a'])).map((w) => w.file)).toEqual(['a-1.0-py3-none-any.whl']);
    cache.remember(fp, ['a'], ['a', 'b']);
    const offered = cache.offer(fp, cache.closure(fp, ['a'])).map((w) => w.file);
    expect(offered.sort()).toEqual(['a-1.0-py3-none-any.whl', 'b-2.0-py3-none-any.whl']);
  });
});

describe('what comes back from the box', () => {
  it('the downloaded wheels only: not an offered one, a built one, or a file that is not a wheel', async () => {
    const offered = { fp, asked: ['a'], files: new Set(['b-2.0-py3-none-any.whl']) };
    const downloads = await tarOf({
      'a-1.0-py3-none-any.whl': wheel('a'),
      'b-2.0-py3-none-any.whl': wheel('b'),
      'built-1.0-py3-none-any.whl': wheel('built'),
      'c-1.0.tar.gz': Buffer.from('sdist'),
      'notes.txt': Buffer.from('x'),
    });
    const kept = await keepWheels(cache, offered, downloads, new Set(['built-1.0-py3-none-any.whl']));
    expect(kept).toBe(1);
    const blobs = readdirSync(join(dir, 'sha256')).flatMap((h) => readdirSync(join(dir, 'sha256', h)));
    expect(blobs).toEqual(['a-1.0-py3-none-any.whl']);
    expect(cache.closure(fp, ['a'])).toEqual(new Set(['a', 'b', 'built']));
  });

  it('nothing without a cache or downloads', async () => {
    expect(await keepWheels(null, null, null, new Set())).toBe(0);
    expect(await keepWheels(cache, { fp, asked: [], files: new Set() }, null, new Set())).toBe(0);
  });
});

describe('the download step', () => {
  it('removes the offered wheels pip did not take, and its script does not depend on the cache', () => {
    const step = pipDownloadStep(['a==1'], [], { text: (s: string) => s } as never);
    expect(step.script).toContain(`if [ -f ${SEEDED} ]`);
    expect(step.script).toContain('File was already downloaded /opt/piper/downloads/$f');
    expect(step.script).not.toContain('--quiet');
  });
});
