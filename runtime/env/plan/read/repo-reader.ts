// Reads the repository's files for the plan, and remembers each one read with its sha256 (the
// environment's cache key is computed over exactly these). The repository is untrusted input:
// a path whose real location (symlinks resolved) is outside the repository is never read.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { readRepoFile, type RepoFileKind } from '../../../host/inside-repo.js';
import { sizeText } from '../../../host/open-regular.js';
import { EnvPlanError } from '../errors.js';
import type { PlanInput } from '../types.js';

export type InputRole = PlanInput['role'];

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `rel` normalized to forward slashes and without `./`; null when it climbs out of the repo. */
export function cleanRelative(rel: string): string | null {
  if (isAbsolute(rel)) return null;
  const parts: string[] = [];
  for (const part of rel.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

/**
 * All the bytes one plan reads, declarations and test sources together: a repository that names the
 * same large file from many places, or thousands of files just under their limit, stops here.
 */
const PLAN_READ_BUDGET = 64 * 1024 * 1024;

export class RepoReader {
  readonly root: string;
  /** Files skipped because they are not regular files (a FIFO, a device), one line each. */
  readonly notes: string[] = [];
  private readonly inputs = new Map<string, PlanInput>();
  /** Each file read once per plan: a path named from several places is read the first time only. */
  private readonly cache = new Map<string, Buffer | null>();
  private spent = 0;

  constructor(root: string) {
    this.root = realpathSync(root);
  }

  /** The real absolute path of a repo-relative path, or null if missing or outside the repo. */
  private resolve(rel: string): string | null {
    const clean = cleanRelative(rel);
    if (clean === null) return null;
    let real: string;
    try {
      real = realpathSync(join(this.root, clean));
    } catch {
      return null;
    }
    const back = relative(this.root, real);
    if (back === '' || (!back.startsWith(`..${sep}`) && back !== '..' && !isAbsolute(back))) return real;
    return null;
  }

  /** Whether `rel` exists inside the repo but resolves outside it (a symlink out). */
  escapes(rel: string): boolean {
    const clean = cleanRelative(rel);
    if (clean === null) return true;
    try {
      realpathSync(join(this.root, clean));
    } catch {
      return false;
    }
    return this.resolve(clean) === null;
  }

  isFile(rel: string): boolean {
    const real = this.resolve(rel);
    return real !== null && statSync(real).isFile();
  }

  isDir(rel: string): boolean {
    const real = this.resolve(rel);
    return real !== null && statSync(real).isDirectory();
  }

  /** Entry names of a directory inside the repo, sorted; [] when it is not one. */
  list(rel: string): string[] {
    if (!this.isDir(rel)) return [];
    return readdirSync(this.resolve(rel) as string).sort();
  }

  /** A file's bytes, recorded as an input with `role`; null when it is absent or outside the repo. */
  read(rel: string, role: InputRole): Buffer | null {
    const path = cleanRelative(rel);
    if (path === null) return null;
    const bytes = this.bounded(path, role === 'wheelhouse' ? 'wheel' : 'declaration');
    if (bytes === null) return null;
    this.inputs.set(`${role}:${path}`, {
      path,
      sha256: sha256(bytes),
      role,
      ...(role === 'wheelhouse' ? { size: bytes.length } : {}),
    });
    return bytes;
  }

  readText(rel: string, role: InputRole): string | null {
    return this.read(rel, role)?.toString('utf8') ?? null;
  }

  /**
   * A file's text read for inference only (test modules): not recorded as an input, so editing a
   * test keeps the environment's cache key (what the edit changes in the plan, an inferred
   * requirement, is in the key already). Null when absent, outside the repo or over `maxBytes`.
   */
  peekText(rel: string, maxBytes: number): string | null {
    const path = cleanRelative(rel);
    const real = path === null ? null : this.resolve(path);
    if (real === null) return null;
    const stat = statSync(real);
    if (!stat.isFile() || stat.size > maxBytes) return null;
    return this.bounded(path!, 'source')?.toString('utf8') ?? null;
  }

  /**
   * The one read of repository content in the planner (runtime/host/inside-repo.ts): regular files
   * inside the repository only, each once, each under the limit of its kind and all under the plan's
   * budget. A FIFO or a device is skipped with a note; a file over its limit stops the plan, naming
   * it and its size.
   */
  private bounded(path: string, kind: RepoFileKind): Buffer | null {
    const cached = this.cache.get(path);
    if (cached !== undefined) return cached;
    const bytes = readRepoFile(this.root, path, kind);
    if (!Buffer.isBuffer(bytes)) {
      if (bytes.kind === 'too-large' || bytes.kind === 'unreadable')
        throw new EnvPlanError('bad_project_file', bytes.error, { file: path });
      if (bytes.kind === 'special') this.notes.push(`${bytes.error} (skipped)`);
      this.cache.set(path, null);
      return null;
    }
    this.spent += kind === 'wheel' ? 0 : bytes.length;
    if (this.spent > PLAN_READ_BUDGET)
      throw new EnvPlanError(
        'bad_project_file',
        `the plan read ${sizeText(this.spent)} of repository files (at ${path}), over its budget of ${sizeText(PLAN_READ_BUDGET)}; not read`,
        { file: path },
      );
    // Wheels are hashed, not kept: they are large, and nothing parses them.
    if (kind !== 'wheel') this.cache.set(path, bytes);
    return bytes;
  }

  /** Every file read so far, sorted by role then path (a stable order for the cache key). */
  recorded(): PlanInput[] {
    const order: InputRole[] = ['dependencies', 'lockfile', 'recipe', 'wheelhouse'];
    return [...this.inputs.values()].sort(
      (a, b) =>
        order.indexOf(a.role) - order.indexOf(b.role) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
    );
  }
}
