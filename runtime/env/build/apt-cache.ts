// Debian's package lists and downloaded packages, kept between environment builds on this machine
// so a build does not fetch what the last one fetched: the lists (`/var/lib/apt/lists`)
// are reused while fresh — MAX_AGE_H hours, or `PIPER_APT_LISTS_MAX_AGE_H` (0 forces a refresh, as
// does `--env rebuild`) — and every .deb a build downloaded is offered to the next. With the lists
// goes apt's binary cache of them (`/var/cache/apt/*.bin`): parsing a suite's lists into it takes
// apt 1.3–1.6 s, which every build paid again. apt checks it against the lists and dpkg's status
// before use and rebuilds it when they differ; the step then says so and copies the rebuilt cache
// aside before its install rewrites it (steps.ts APT_CACHE_REBUILT), and that copy is kept. All of
// it lives in the user's cache directory, one set per Debian suite; it enters a build container by
// the engine's archive endpoint and is deleted again before the container is committed, so no image
// holds it. Lists, caches and packages come only from the networked, repository-code-free steps
// (apt verified the lists' signatures when it fetched them).
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { BuildBox } from './build-box.js';
import { APT_CACHE_COPY } from './steps.js';

const MAX_AGE_H = 6;
const LISTS = '/var/lib/apt/lists';
const DEBS = '/var/cache/apt/archives';
const BINARY_CACHE = '/var/cache/apt';
const PACKAGES = 'packages.tar';
/** The lists, compressed (Acquire::GzipIndexes): a few tens of MB for a suite's main component. */
const MAX_LISTS_BYTES = 256 << 20;
/** The largest package cache kept: beyond it the next build fetches again. */
const MAX_DEBS_BYTES = 512 << 20;
/** apt's two binary caches of a suite's lists: about 47 MB each for trixie's main. */
const MAX_BINARY_CACHE_BYTES = 512 << 20;

export class AptCache {
  private readonly dir: string;
  /** Per box, its priming: started early (deps-phase.ts), awaited by the first apt step. */
  private readonly priming = new WeakMap<BuildBox, Promise<boolean>>();

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

  /**
   * Whether the box has fresh lists (put in from the cache, or fetched earlier in this box): the
   * packages, the lists and their binary cache put in, once per box.
   */
  prime(box: BuildBox): Promise<boolean> {
    let priming = this.priming.get(box);
    if (!priming) {
      priming = this.put(box);
      this.priming.set(box, priming);
    }
    return priming;
  }

  private async put(box: BuildBox): Promise<boolean> {
    const file = (name: string) => join(this.dir, name);
    const putFile = (name: string, at: string) =>
      box.put(at, Readable.from([readFileSync(file(name))])).then(
        () => true,
        () => false,
      );
    // The sandbox image has no archives directory: the tar carries it (`archives/...`), put into
    // its parent. (debs.tar, an earlier form of this cache with bare entries, went nowhere: 404.)
    if (existsSync(file(PACKAGES))) await putFile(PACKAGES, BINARY_CACHE);
    const lists = file('lists.tar');
    if (!existsSync(lists) || Date.now() - statSync(lists).mtimeMs > this.maxAgeMs()) return false;
    if (!(await putFile('lists.tar', LISTS))) return false;
    // The binary cache only with the lists it was made from (apt would rebuild it anyway).
    if (existsSync(file('bincache.tar'))) await putFile('bincache.tar', BINARY_CACHE);
    return true;
  }

  /**
   * After an apt step in `box`: its lists (when it fetched them), apt's binary cache (when it
   * rebuilt it) and its packages (when it downloaded any), for the next build.
   */
  async save(box: BuildBox, made: { lists: boolean; binaryCache: boolean; debs: boolean }): Promise<void> {
    this.priming.set(box, Promise.resolve(true));
    try {
      mkdirSync(this.dir, { recursive: true });
      if (made.lists) write(join(this.dir, 'lists.tar'), await box.read(`${LISTS}/.`, MAX_LISTS_BYTES));
      if (made.binaryCache)
        write(join(this.dir, 'bincache.tar'), await box.read(`${APT_CACHE_COPY}/.`, MAX_BINARY_CACHE_BYTES));
      if (made.debs) write(join(this.dir, PACKAGES), await box.read(DEBS, MAX_DEBS_BYTES));
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
