// One package of piper's toolchain from the user's registry, on the host: its packument's
// `dist.integrity` (sha512) is what the tarball must hash to, and the tarball is kept in piper's
// cache under that hash, so a second toolchain of the same version downloads nothing. Only the
// configured registry is asked: a packument whose tarball lives elsewhere is fetched from the
// registry's own path for it, never from the other host.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import type { NpmRegistry } from './npm-registry.js';

const MAX_TARBALL = 256 * 1024 * 1024;
const MAX_PACKUMENT = 64 * 1024 * 1024;

/** PIPER_NPM_CACHE, else $XDG_CACHE_HOME/piper-agent/npm, else ~/.cache/piper-agent/npm. */
function toolchainCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PIPER_NPM_CACHE) return env.PIPER_NPM_CACHE;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'piper-agent', 'npm');
}

export interface Downloaded {
  name: string;
  version: string;
  integrity: string;
  data: Buffer;
  /** Read from the cache, not downloaded. */
  cached: boolean;
}

/** The sha512 of an SRI string `sha512-<base64>`, as hex; null for another algorithm. */
export function sha512Of(integrity: string): string | null {
  const m = /^sha512-([A-Za-z0-9+/=]+)$/.exec(integrity.trim());
  return m ? Buffer.from(m[1]!, 'base64').toString('hex') : null;
}

async function get(url: string, reg: NpmRegistry, dispatcher: Dispatcher, accept: string, max: number) {
  const { request } = await import('undici');
  const headers: Record<string, string> = { accept };
  if (reg.token) headers.authorization = `Bearer ${reg.token}`;
  const res = await request(url, { headers, dispatcher, maxRedirections: 0 } as Parameters<
    typeof request
  >[1]);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new Error(`${shown(url, reg)} is over ${max >> 20} MiB`);
    chunks.push(chunk);
  }
  if (res.statusCode !== 200)
    throw new Error(`the registry answered ${res.statusCode} for ${shown(url, reg)}`);
  return Buffer.concat(chunks);
}

/** A URL as said in messages: the registry's part of it left out (its address is the user's). */
function shown(url: string, reg: NpmRegistry): string {
  return url.startsWith(reg.url) ? `<registry>/${url.slice(reg.url.length)}` : '<registry URL>';
}

/** The tarball's URL under the registry: the packument's own when it is there, else the registry's path. */
export function tarballUrl(reg: NpmRegistry, name: string, given: string): string {
  if (given.startsWith(reg.url)) return given;
  const file = given.slice(given.lastIndexOf('/') + 1);
  return `${reg.url}${name}/-/${file}`;
}

/** The package `name@version` from the registry (or piper's cache), its bytes checked against its integrity. */
export async function downloadPackage(
  reg: NpmRegistry,
  dispatcher: Dispatcher,
  name: string,
  version: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Downloaded> {
  const encoded = name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
  const doc = JSON.parse(
    (
      await get(`${reg.url}${encoded}`, reg, dispatcher, 'application/vnd.npm.install-v1+json', MAX_PACKUMENT)
    ).toString('utf8'),
  ) as { versions?: Record<string, { dist?: { integrity?: string; tarball?: string } }> };
  const dist = doc.versions?.[version]?.dist;
  const hex = dist?.integrity ? sha512Of(dist.integrity) : null;
  if (!dist?.tarball || !hex || !dist.integrity)
    throw new Error(`the registry has no ${name}@${version} with a sha512 integrity`);
  const dir = join(toolchainCacheDir(env), 'sha512');
  const path = join(dir, `${hex}.tgz`);
  const kept = readKept(path, hex);
  if (kept) return { name, version, integrity: dist.integrity, data: kept, cached: true };
  const data = await get(tarballUrl(reg, name, dist.tarball), reg, dispatcher, '*/*', MAX_TARBALL);
  if (createHash('sha512').update(data).digest('hex') !== hex)
    throw new Error(
      `${name}@${version}: the tarball does not match the registry's integrity; nothing is kept`,
    );
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
  return { name, version, integrity: dist.integrity, data, cached: false };
}

/** The cached tarball when its bytes still hash to its name. */
function readKept(path: string, hex: string): Buffer | null {
  try {
    const data = readFileSync(path);
    return createHash('sha512').update(data).digest('hex') === hex ? data : null;
  } catch {
    return null;
  }
}
