// Debian's package lists and downloaded packages, kept between environment builds on this machine
// so a build does not fetch what the last one fetched (issue 25): the lists (`/var/lib/apt/lists`)
// are reused while fresh — MAX_AGE_H hours, or `PIPER_APT_LISTS_MAX_AGE_H` (0 forces a refresh, as
// does `--env rebuild`) — and every .deb a build downloaded is offered to the next. Both live in
// the user's cache directory, one set per Debian suite; they enter a build container by the engine's
// archive endpoint and are deleted again before the container is committed, so no image holds them.
// Lists and packages come only from the networked, repository-code-free steps (apt verified the
// lists' signatures when it fetched them).
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { BuildBox } from './build-box.js';

const MAX_AGE_H = 6;
const LISTS = '/var/lib/apt/lists';
const DEBS = '/var/cache/apt/archives';
/** The lists, compressed (Acquire::GzipIndexes): a few tens of MB for a suite's main component. */
const MAX_LISTS_BYTES = 256 << 20;
/** The largest package cache kept: beyond it the next build fetches again. */
const MAX_DEBS_BYTES = 512 << 20;

export class AptCache {
  private readonly dir: string;
  private readonly primed = new WeakSet<BuildBox>();

  constructor(
    suite: string,
    private readonly opts: { refresh?: boolean; env?: NodeJS.ProcessEnv } = {},
  ) {
    const env = opts.env ?? process.env;
    const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
    this.dir = join(base, 'piper-agent', 'apt', suite);
  }

  private maxAgeMs(): number {
    const raw = (this.opts.env ?? process.env).PIPER_APT_LISTS_MAX_AGE_H;
    const hours = raw !== undefined && raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : MAX_AGE_H;
    return this.opts.refresh ? 0 : hours * 3600_000;
  }

  /** Whether the box already has fresh lists (put in now from the cache, or fetched earlier in this box). */
  async prime(box: BuildBox): Promise<boolean> {
    if (this.primed.has(box)) return true;
    const lists = join(this.dir, 'lists.tar');
    const debs = join(this.dir, 'debs.tar');
    if (existsSync(debs)) await box.put(DEBS, Readable.from([readFileSync(debs)])).catch(() => undefined);
    if (!existsSync(lists) || Date.now() - statSync(lists).mtimeMs > this.maxAgeMs()) return false;
    try {
      await box.put(LISTS, Readable.from([readFileSync(lists)]));
    } catch {
      return false;
    }
    this.primed.add(box);
    return true;
  }

  /** After an apt step in `box`: its lists (when it fetched them) and its packages, for the next build. */
  async save(box: BuildBox, fetchedLists: boolean): Promise<void> {
    this.primed.add(box);
    try {
      mkdirSync(this.dir, { recursive: true });
      if (fetchedLists) write(join(this.dir, 'lists.tar'), await box.read(`${LISTS}/.`, MAX_LISTS_BYTES));
      const debs = await box.read(`${DEBS}/.`, MAX_DEBS_BYTES);
      write(join(this.dir, 'debs.tar'), debs);
    } catch {
      // A cache that cannot be written costs the next build a fetch, nothing more.
    }
  }
}

/** Written whole, then renamed: a concurrent build reads the old file or the new one, never half. */
function write(path: string, bytes: Buffer): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}
