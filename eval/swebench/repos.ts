// The repositories of a SWE-bench-format set: `--repos DIR` holds one clone or git bundle per
// repository, named `owner__name` or `name`, with or without `.bundle`. Each is cloned once, bare,
// into the run's own cache (the --repos copy is only ever read), and every instance gets a fresh
// directory holding the files of its base_commit and a new one-commit repository around them:
// no history, so no later commit (the fix itself) can be read from the work tree the agent sees.
// git runs with the hardened environment of runtime/host/safe-git.ts: the repositories are untrusted.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gitEnv, gitInOwnRepo, gitOverrides } from '../../runtime/host/safe-git.js';
import type { SweInstance } from './instance-file.js';

/** A precise, per-instance problem with its repository or commit (the instance is not run). */
class RepoSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RepoSourceError';
  }
}

const IDENTITY = { name: 'piper-agent', email: 'piper-agent@localhost' };

/** The names a repository may have under --repos, in the order they are tried. */
export function candidateNames(repo: string): string[] {
  const [owner, name] = repo.split('/') as [string, string];
  const stems = [`${owner}__${name}`, name];
  return stems.flatMap((s) => [s, `${s}.bundle`]);
}

function git(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  // A local clone reads the source through git's file transport, which protocol.allow=never refuses.
  const argv = [...gitOverrides(), '-c', 'protocol.file.allow=always', ...args];
  return execFileSync('git', argv, {
    cwd,
    env: { ...gitEnv(), ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
    timeout: 300_000,
  });
}

function gitError(error: unknown): string {
  // applyPatch's git runs without an encoding: its stderr is a Buffer.
  const stderr = (error as { stderr?: string | Buffer }).stderr;
  return (stderr ? String(stderr) : (error as Error).message).trim().split('\n').slice(-2).join(' ');
}

/** Bare clones of the --repos sources, made on first use and kept under `cacheDir`. */
export class RepoCache {
  private readonly clones = new Map<string, string>();

  constructor(
    readonly reposDir: string,
    readonly cacheDir: string,
  ) {}

  /** The source path under --repos for `repo`, or a RepoSourceError naming every name tried. */
  sourceOf(instance: SweInstance): string {
    const names = candidateNames(instance.repo);
    for (const name of names) {
      const path = join(this.reposDir, name);
      if (existsSync(path)) return path;
    }
    throw new RepoSourceError(
      `${instance.instance_id}: no repository ${instance.repo} in ${this.reposDir} (tried ${names.join(', ')})`,
    );
  }

  /** The bare clone of the instance's repository (cloned now if this is its first instance). */
  cloneOf(instance: SweInstance): string {
    const source = this.sourceOf(instance);
    const known = this.clones.get(source);
    if (known) return known;
    const dest = join(this.cacheDir, `${instance.repo.replace('/', '__')}.git`);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(this.cacheDir, { recursive: true });
    try {
      git(['clone', '--bare', '--quiet', '--no-hardlinks', source, dest], this.cacheDir);
    } catch (error) {
      throw new RepoSourceError(
        `${instance.instance_id}: cannot clone ${source} (${instance.repo}): ${gitError(error)}`,
      );
    }
    this.clones.set(source, dest);
    return dest;
  }

  /** The full id of the instance's base_commit, or a RepoSourceError when the repository lacks it. */
  baseCommit(instance: SweInstance): string {
    const clone = this.cloneOf(instance);
    try {
      return git(
        ['--git-dir', clone, 'rev-parse', '--verify', '-q', `${instance.base_commit}^{commit}`],
        clone,
      ).trim();
    } catch {
      throw new RepoSourceError(
        `${instance.instance_id}: base_commit ${instance.base_commit} is not in ${this.sourceOf(instance)} (${instance.repo})`,
      );
    }
  }

  /** A file's text at the instance's base_commit, read from the clone (null: not there). */
  fileAtBase(instance: SweInstance, path: string): string | null {
    const clone = this.cloneOf(instance);
    try {
      return git(['--git-dir', clone, 'show', `${this.baseCommit(instance)}:${path}`], clone);
    } catch {
      return null;
    }
  }

  /**
   * A new directory `dest` with the files of the instance's base_commit, as a one-commit repository.
   * The checkout uses a private index file, so the cache's clone is never changed by it.
   */
  checkout(instance: SweInstance, dest: string): string {
    const commit = this.baseCommit(instance);
    const clone = this.cloneOf(instance);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    const index = `${dest}.index`;
    const env = { GIT_INDEX_FILE: index };
    try {
      git(['--git-dir', clone, '--work-tree', dest, 'read-tree', commit], dest, env);
      git(['--git-dir', clone, '--work-tree', dest, 'checkout-index', '-a', '-f'], dest, env);
    } catch (error) {
      throw new RepoSourceError(
        `${instance.instance_id}: cannot check out ${commit} of ${instance.repo}: ${gitError(error)}`,
      );
    } finally {
      rmSync(index, { force: true });
    }
    gitInOwnRepo(dest, ['init', '-q'], IDENTITY);
    gitInOwnRepo(dest, ['add', '-A', '-f'], IDENTITY);
    gitInOwnRepo(
      dest,
      ['commit', '-q', '--allow-empty', '-m', `${instance.instance_id} at ${commit}`],
      IDENTITY,
    );
    // The version a clone of the project's history gives (setuptools-scm and its kin read the
    // nearest tag): without it the project is 0.0.0, and a test suite that requires its own
    // version (tox's minversion, a plugin's pin) stops. Only a tag reachable from base_commit:
    // nothing later than it, so nothing of the fix, is named.
    const tag = this.nearestTag(clone, commit);
    if (tag) gitInOwnRepo(dest, ['tag', tag], IDENTITY);
    return dest;
  }

  /** The nearest tag reachable from `commit`, when its name is a plain one (the name is untrusted). */
  private nearestTag(clone: string, commit: string): string | null {
    try {
      const tag = git(['--git-dir', clone, 'describe', '--tags', '--abbrev=0', commit], clone).trim();
      return /^[A-Za-z0-9][\w.+-]{0,99}$/.test(tag) ? tag : null;
    } catch {
      return null;
    }
  }
}

/** Applies a unified diff inside `dir` (our own one-commit repository); throws with git's reason. */
export function applyPatch(dir: string, patch: string, what: string): void {
  try {
    execFileSync(
      'git',
      [
        ...gitOverrides(),
        `--git-dir=${join(dir, '.git')}`,
        `--work-tree=${dir}`,
        'apply',
        '--whitespace=nowarn',
        '-',
      ],
      {
        cwd: dir,
        env: gitEnv(),
        input: patch.endsWith('\n') ? patch : `${patch}\n`,
        stdio: ['pipe', 'pipe', 'pipe'],
        timeout: 60_000,
      },
    );
  } catch (error) {
    throw new Error(`the ${what} does not apply: ${gitError(error)}`);
  }
}

/** Paths a unified diff touches (both sides of a rename), from its `diff --git` headers. */
export function patchedFiles(patch: string): string[] {
  const files = new Set<string>();
  for (const m of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    files.add(m[1]!);
    files.add(m[2]!);
  }
  return [...files].sort();
}
