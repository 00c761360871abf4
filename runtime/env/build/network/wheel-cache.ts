// Wheels downloaded by earlier builds, kept on this machine so a new environment key does not fetch
// them again. Content-addressed: `sha256/<hex>/<file name>`, written to a temporary name and renamed,
// and read back only when its bytes still hash to <hex>, are a zip and carry a wheel's file name.
// Which files a build may be offered is filed per set of pip sources (the index URLs without their
// credentials, the find-links URLs): `sources/<fingerprint>/files/<file name>` holds the hex, so a
// wheel is only ever offered under the same file name from the sources it came from, never one a
// company index serves to a build that asks the public one. `names.json` there remembers which
// distributions a download of each requirement brought, so the offer covers dependencies too. A
// wheel built offline from an sdist is filed by the sdist's sha256 and the image it was built on
// (`built/<sdist hex>-<image>`): the same bytes on the same image are not built again.
//
// The offer is data put into the networked box's download directory, where pip finds it as "already
// downloaded" (it checks the index's hash when the page gives one, and downloads again on a
// mismatch); what pip did not take is removed before the downloads leave the box (the step's script,
// download-steps.ts). Only the files pip downloaded from the sources come back as downloads (a wheel
// built from an sdist is filed only under that sdist), never a file of the user's wheel directories. Nothing here is in a key,
// and no image holds the cache beyond the wheels the dependency phase installs anyway.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { padding, TAR_END, tarHeader } from '../../../workspace/tar-header.js';
import type { PipSettings } from '../../plan/pip-settings.js';
import type { BuildBox } from '../build-box.js';
import { normalize } from '../step-output.js';
import { readTar } from '../tar-files.js';
import { SEEDED } from '../deps/download-steps.js';

/** A wheel's file name (PEP 427), one path segment. */
const WHEEL_FILE = /^[A-Za-z0-9][A-Za-z0-9_.+!]*-[A-Za-z0-9_.+!]+(-[A-Za-z0-9_.+!]+){2,3}\.whl$/;
const HEX = /^[0-9a-f]{64}$/;
/** The most a build is offered, and the largest wheel kept. */
const MAX_OFFER_BYTES = 1024 ** 3;
const MAX_NAMES_PER_DIST = 500;

/** The cache directory: PIPER_WHEEL_CACHE, else $XDG_CACHE_HOME/piper-agent/wheels, else ~/.cache/piper-agent/wheels. */
export function wheelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PIPER_WHEEL_CACHE) return env.PIPER_WHEEL_CACHE;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'piper-agent', 'wheels');
}

/** The distribution a wheel's file name holds, normalized. */
function wheelDist(file: string): string {
  return normalize(file.split('-')[0] ?? '');
}

function isWheelFile(name: string): boolean {
  return WHEEL_FILE.test(name) && !name.includes('..');
}

/** Which pip sources a build asks: the index URLs (credentials left out) and the find-links URLs. */
export function sourcesFingerprint(
  pip: Pick<PipSettings, 'indexUrl' | 'extraIndexUrls' | 'findLinkUrls'>,
): string {
  const bare = (u: string) => {
    try {
      const url = new URL(u);
      url.username = '';
      url.password = '';
      return url.toString();
    } catch {
      return u;
    }
  };
  const sources = {
    index: pip.indexUrl ? bare(pip.indexUrl) : "pip's default",
    extra: pip.extraIndexUrls.map(bare),
    links: pip.findLinkUrls.map(bare),
  };
  return createHash('sha256').update(JSON.stringify(sources)).digest('hex').slice(0, 32);
}

export interface CachedWheel {
  file: string;
  data: Buffer;
}

export class WheelCache {
  constructor(readonly dir: string) {}

  private blob(hex: string, file: string): string {
    return join(this.dir, 'sha256', hex, file);
  }

  private files(fp: string): string {
    return join(this.dir, 'sources', fp, 'files');
  }

  /**
   * Keeps `data` as `file` (downloaded from the sources `fp`); false when it is not a wheel. `expect`:
   * a sha256 the file must have (an index's), else nothing is kept.
   */
  store(fp: string, file: string, data: Buffer, expect?: string): boolean {
    if (!isWheelFile(file) || !isZip(data) || data.length > MAX_OFFER_BYTES) return false;
    const hex = sha256(data);
    if (expect && expect.toLowerCase() !== hex) return false;
    const path = this.blob(hex, file);
    if (!existsSync(path)) {
      mkdirSync(join(this.dir, 'sha256', hex), { recursive: true });
      writeWhole(path, data);
    }
    mkdirSync(this.files(fp), { recursive: true });
    writeWhole(join(this.files(fp), file), Buffer.from(`${hex}\n`));
    return true;
  }

  /** The wheel `file` as the sources `fp` gave it, when its entry is whole and intact. */
  lookup(fp: string, file: string): CachedWheel | null {
    if (!isWheelFile(file)) return null;
    let hex: string;
    try {
      hex = readFileSync(join(this.files(fp), file), 'utf8').trim();
    } catch {
      return null;
    }
    if (!HEX.test(hex)) return null;
    return this.intact(hex, file);
  }

  /**
   * Keeps the wheel built offline from the sdist of sha256 `sdist` on the image `image` (its id):
   * the same sdist's bytes built on the same image give it back instead of a build.
   */
  storeBuilt(sdist: string, image: string, file: string, data: Buffer): boolean {
    if (!HEX.test(sdist) || !isWheelFile(file) || !isZip(data) || data.length > MAX_OFFER_BYTES) return false;
    const hex = sha256(data);
    const path = this.blob(hex, file);
    if (!existsSync(path)) {
      mkdirSync(join(this.dir, 'sha256', hex), { recursive: true });
      writeWhole(path, data);
    }
    mkdirSync(join(this.dir, 'built'), { recursive: true });
    writeWhole(this.builtEntry(sdist, image), Buffer.from(`${hex} ${file}\n`));
    return true;
  }

  /** The wheel once built from the sdist `sdist` on `image`, when its entry is whole and intact. */
  lookupBuilt(sdist: string, image: string): CachedWheel | null {
    if (!HEX.test(sdist)) return null;
    let entry: string;
    try {
      entry = readFileSync(this.builtEntry(sdist, image), 'utf8').trim();
    } catch {
      return null;
    }
    const [hex = '', file = ''] = entry.split(' ');
    if (!HEX.test(hex) || !isWheelFile(file)) return null;
    return this.intact(hex, file);
  }

  private builtEntry(sdist: string, image: string): string {
    const on = createHash('sha256').update(image).digest('hex').slice(0, 16);
    return join(this.dir, 'built', `${sdist}-${on}`);
  }

  /** `sha256/<hex>/<file>` when its bytes still hash to <hex> and are a zip; a corrupt one removed. */
  /**
   * The wheels kept under the sha256 `hex`, whichever sources gave them: for a lockfile's hash,
   * which names these exact bytes (and pip checks them against it again), the sources do not matter.
   */
  byHash(hex: string): CachedWheel[] {
    if (!HEX.test(hex)) return [];
    let files: string[];
    try {
      files = readdirSync(join(this.dir, 'sha256', hex)).filter(isWheelFile);
    } catch {
      return [];
    }
    return files.flatMap((file) => this.intact(hex, file) ?? []);
  }

  private intact(hex: string, file: string): CachedWheel | null {
    const path = this.blob(hex, file);
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch {
      return null;
    }
    if (sha256(data) !== hex || !isZip(data)) {
      // Corrupt: never offered, and gone so the next download replaces it.
      rmSync(path, { force: true });
      return null;
    }
    return { file, data };
  }

  /** Every intact wheel of the sources `fp` whose distribution is one of `dists` (at most MAX_OFFER_BYTES). */
  offer(fp: string, dists: Set<string>): CachedWheel[] {
    let names: string[];
    try {
      names = readdirSync(this.files(fp));
    } catch {
      return [];
    }
    const out: CachedWheel[] = [];
    let bytes = 0;
    // Newest first: when the cap cuts, the versions a resolution is likeliest to pick stay.
    const wanted = names
      .filter((n) => isWheelFile(n) && dists.has(wheelDist(n)))
      .map((n) => ({ n, t: mtimeOf(join(this.files(fp), n)) }))
      .sort((a, b) => b.t - a.t);
    for (const { n } of wanted) {
      const w = this.lookup(fp, n);
      if (!w || bytes + w.data.length > MAX_OFFER_BYTES) continue;
      bytes += w.data.length;
      out.push(w);
    }
    return out;
  }

  /** The distributions a download of each of `asked` brought last time, with `asked` themselves. */
  closure(fp: string, asked: string[]): Set<string> {
    const names = this.names(fp);
    const out = new Set(asked);
    for (const a of asked) for (const d of names[a] ?? []) out.add(d);
    return out;
  }

  /** Records that downloading `asked` brought the distributions `got`. */
  remember(fp: string, asked: string[], got: string[]): void {
    if (!asked.length || !got.length) return;
    const names = this.names(fp);
    for (const a of asked) names[a] = [...new Set([...(names[a] ?? []), ...got])].slice(-MAX_NAMES_PER_DIST);
    mkdirSync(join(this.dir, 'sources', fp), { recursive: true });
    writeWhole(join(this.dir, 'sources', fp, 'names.json'), Buffer.from(JSON.stringify(names)));
  }

  private names(fp: string): Record<string, string[]> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(join(this.dir, 'sources', fp, 'names.json'), 'utf8'));
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
      const out: Record<string, string[]> = {};
      for (const [k, v] of Object.entries(parsed))
        if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
      return out;
    } catch {
      return {};
    }
  }
}

/** What a networked box was offered: the file names put into its download directory. */
export interface Offered {
  fp: string;
  asked: string[];
  files: Set<string>;
}

/**
 * The cached wheels the download of `asked` (normalized names) may take, put into the box's
 * download directory with their list (SEEDED). Only for builds that ask an index (`sources = index`):
 * a build that reads only find-links must not find wheels an index once gave.
 */
export async function offerWheels(
  box: BuildBox,
  cache: WheelCache | null,
  pip: PipSettings,
  asked: string[],
): Promise<Offered | null> {
  if (!cache) return null;
  const fp = sourcesFingerprint(pip);
  const wheels = cache.offer(fp, cache.closure(fp, asked));
  const offered: Offered = { fp, asked, files: new Set(wheels.map((w) => w.file)) };
  if (!wheels.length) return offered;
  await box.put('/opt/piper', offerTar(wheels));
  return offered;
}

/** The wheels pip downloaded (`downloads`: the tar of the download directory), kept in the cache. */
export async function keepWheels(
  cache: WheelCache | null,
  offered: Offered | null,
  downloads: Buffer | null,
  notDownloaded: Set<string>,
): Promise<number> {
  if (!cache || !offered || !downloads) return 0;
  let kept = 0;
  const got: string[] = [];
  try {
    for (const f of await readTar(downloads)) {
      const file = f.name.split('/').at(-1) ?? '';
      if (f.type !== 'file' || !isWheelFile(file)) continue;
      got.push(wheelDist(file));
      // A wheel built here from an sdist, a file of the user's wheel directories, or one the cache gave.
      if (notDownloaded.has(file) || offered.files.has(file)) continue;
      if (cache.store(offered.fp, file, f.data)) kept++;
    }
    cache.remember(offered.fp, offered.asked, [...new Set(got)]);
  } catch {
    // A cache that cannot be written costs the next build a download, nothing more.
  }
  return kept;
}

/** `downloads/<file>` for each wheel and the SEEDED list, to unpack at /opt/piper. */
function offerTar(wheels: CachedWheel[]): Readable {
  const parts: Buffer[] = [tarHeader({ name: 'downloads', type: 'directory', mode: 0o755 })];
  const add = (name: string, data: Buffer) => {
    parts.push(tarHeader({ name, type: 'file', mode: 0o644, size: data.length }));
    parts.push(data, Buffer.alloc(padding(data.length)));
  };
  for (const w of wheels) add(`downloads/${w.file}`, w.data);
  add(SEEDED.slice('/opt/piper/'.length), Buffer.from(wheels.map((w) => `${w.file}\n`).join('')));
  parts.push(TAR_END);
  return Readable.from([Buffer.concat(parts)]);
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function isZip(data: Buffer): boolean {
  return data.length >= 4 && data.readUInt32LE(0) === 0x04034b50;
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Written whole, then renamed: a concurrent build reads the old entry or the new one, never half. */
function writeWhole(path: string, data: Buffer): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
