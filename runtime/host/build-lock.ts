// One build of an image at a time on this machine (an environment, a Debian-package layer, a sandbox
// base image): two piper processes that need one key (two terminals, parallel CI steps, two `ab`
// runs) would otherwise build it twice, each tagging over the other's image. The lock is a file in the user's cache directory, named
// by the image the build makes, created with O_EXCL and holding its owner (host:pid:start, as a
// container's owner label) and since when. A waiting process says once whose build it waits for;
// a lock whose owner is dead is taken over; the wait is bounded (PIPER_ENV_BUILD_WAIT_S).
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { RuntimeError } from '../errors.js';
import { currentOwner, formatOwner, ownerAlive, parseOwner } from '../sandbox/owner.js';

const WAIT_ENV = 'PIPER_ENV_BUILD_WAIT_S';
const DEFAULT_WAIT_S = 30 * 60;
const POLL_MS = 500;
/** A takeover that its taker died in the middle of is itself taken over after this long. */
const STALE_BREAK_MS = 30_000;

const LockText = z.object({ owner: z.string(), since: z.string() });
type LockText = z.infer<typeof LockText>;

export interface BuildLock {
  /** Whether another build held the lock when this one asked: it may have made the image. */
  waited: boolean;
  release(): void;
}

export interface LockOptions {
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Injected by tests; this process's own otherwise. */
  owner?: string;
  /** What is built, for the waiting line: 'environment' unless said. */
  what?: string;
}

/** The lock of one image (`name`: its repository and key), acquired once free. */
export async function acquireBuildLock(name: string, opts: LockOptions): Promise<BuildLock> {
  const env = opts.env ?? process.env;
  const file = join(lockDir(env), `${name.replace(/[^\w.-]/g, '_')}.lock`);
  const mine: LockText = {
    owner: opts.owner ?? formatOwner(currentOwner()),
    since: new Date().toISOString(),
  };
  const deadline = Date.now() + waitSeconds(env) * 1000;
  let said = false;
  let contended = false;
  for (;;) {
    if (create(file, mine)) return { waited: contended, release: () => release(file, mine) };
    contended = true;
    const held = read(file);
    if (held && !holderAlive(held)) {
      takeOver(file, held);
      continue;
    }
    if (held && !said) {
      said = true;
      opts.log(
        `waiting for the build of this ${opts.what ?? 'environment'} by process ${describe(held)} (lock ${file})`,
      );
    }
    if (Date.now() > deadline)
      throw new RuntimeError(
        'env_build_failed',
        `waited ${waitSeconds(env)} s for the build of this ${opts.what ?? 'environment'} by process ${held ? describe(held) : 'unknown'}, and it has not ended`,
        `let that build finish, or stop it (a dead process's lock is taken over); ${WAIT_ENV} sets the wait in seconds`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function lockDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  const dir = join(base, 'piper-agent', 'env-locks');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function waitSeconds(env: NodeJS.ProcessEnv): number {
  const raw = Number(env[WAIT_ENV]);
  return env[WAIT_ENV] && Number.isFinite(raw) && raw >= 0 ? raw : DEFAULT_WAIT_S;
}

/**
 * Whole or not at all: the text is written to a file of this process's own, then linked to the
 * lock's name, which fails when the name exists (a reader never sees a half-written lock).
 */
function create(file: string, mine: LockText): boolean {
  const own = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(own, JSON.stringify(mine), { flag: 'wx' });
  try {
    linkSync(own, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(own, { force: true });
  }
}

function read(file: string): LockText | null {
  try {
    const parsed = LockText.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // released meanwhile (or not a lock of ours: the wait bounds it)
  }
}

/** Owners on another host count as alive (ownerAlive): a lock never goes on a guess. */
function holderAlive(held: LockText): boolean {
  const owner = parseOwner(held.owner);
  return owner ? ownerAlive(owner) : true;
}

/**
 * A dead owner's lock goes, and only that one: the takers race for a side file (O_EXCL), and the
 * winner removes the lock only while it still holds the dead owner's text.
 */
function takeOver(file: string, dead: LockText): void {
  const breaker = `${file}.break`;
  try {
    writeFileSync(breaker, '', { flag: 'wx' });
  } catch {
    const age = ageMs(breaker);
    if (age !== null && age > STALE_BREAK_MS) rmSync(breaker, { force: true });
    return;
  }
  try {
    const now = read(file);
    if (now && now.owner === dead.owner && now.since === dead.since) rmSync(file, { force: true });
  } finally {
    rmSync(breaker, { force: true });
  }
}

function ageMs(path: string): number | null {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** Removed only while it is still this build's own (a takeover may have replaced a lock thought dead). */
function release(file: string, mine: LockText): void {
  const now = read(file);
  if (now && now.owner === mine.owner && now.since === mine.since) rmSync(file, { force: true });
}

function describe(held: LockText): string {
  const owner = parseOwner(held.owner);
  const who = owner ? `${owner.pid} on ${owner.host}` : held.owner;
  return `${who}, since ${held.since.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`;
}
