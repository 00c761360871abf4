// The one way the JavaScript planner reads a repository file: through the host's guarded read
// (regular files inside the repository only, each under the limit of its kind), kept with its
// sha256 so the plan can name exactly the bytes the builder is to copy. A file that cannot be read
// (missing, outside the repository, over its limit) is absent, and a refusal other than "missing"
// is a decision.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { insideRepo, readRepoFile, type RepoFileKind } from '../../../host/inside-repo.js';

export interface RepoText {
  path: string;
  sha256: string;
  text: string;
}

export class JsFiles {
  readonly root: string;
  private readonly cache = new Map<string, RepoText | null>();

  constructor(
    root: string,
    private readonly decisions: string[],
  ) {
    this.root = realpathSync(root);
  }

  /** `path` (repo-relative, '/' separators) as text; null when it cannot be read. */
  read(path: string, kind: RepoFileKind = 'declaration'): RepoText | null {
    const cached = this.cache.get(path);
    if (cached !== undefined) return cached;
    const bytes = readRepoFile(this.root, path, kind);
    let found: RepoText | null = null;
    if (Buffer.isBuffer(bytes))
      found = {
        path,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        text: bytes.toString('utf8'),
      };
    else if (bytes.kind !== 'missing') this.decisions.push(`${path} not read: ${bytes.error}`);
    this.cache.set(path, found);
    return found;
  }

  /** Entry names of a directory inside the repository, sorted; [] when it is not one. */
  list(dir: string): string[] {
    const real = insideRepo(this.root, dir);
    if (real === null || !statSync(real).isDirectory()) return [];
    return readdirSync(real).sort();
  }

  /** `path` parsed as JSON (an object); null when absent or not a JSON object, the latter said. */
  readJson(path: string): { file: RepoText; data: Record<string, unknown> } | null {
    const file = this.read(path);
    if (!file) return null;
    try {
      const data: unknown = JSON.parse(file.text.replace(/^\uFEFF/, ''));
      if (isRecord(data)) return { file, data };
    } catch {
      // said below
    }
    this.decisions.push(`${path} not read: not a JSON object`);
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
