// Which repository files the user trusts, remembered in the user's own config file
// (~/.config/piper-agent/config.json, key `trustedRepos`): the real path of the repository, the file
// inside it, and the sha256 of the file's bytes when the user said yes. A changed file is a new
// question. Only the user's file is ever read for this: a repository cannot vouch for itself.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../exit-codes.js';

const TrustedRepoSchema = z
  .object({
    /** The repository's real path (symlinks resolved). */
    path: z.string().min(1),
    /** The trusted file, relative to the repository root (`.piper/config.json`). */
    file: z.string().min(1),
    /** sha256 of the file's bytes, hex. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

export const TrustedReposSchema = z.array(TrustedRepoSchema);
type TrustedRepo = z.infer<typeof TrustedRepoSchema>;

/** The user's config file: $XDG_CONFIG_HOME/piper-agent/config.json, else ~/.config/piper-agent/config.json. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'piper-agent', 'config.json');
}

/** Whether the user trusts exactly these bytes as `relPath` of the repository at `repoRoot`. */
export function repoFileTrusted(
  repoRoot: string,
  relPath: string,
  bytes: Uint8Array,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const entry = trustEntry(repoRoot, relPath, bytes);
  return trustedRepos(readUserFile(userConfigPath(env))).some(
    (t) => t.path === entry.path && t.file === entry.file && t.sha256 === entry.sha256,
  );
}

/**
 * Remembers that the user trusts these bytes as `relPath` of the repository, replacing any earlier
 * answer for the same file. The rest of the user's config file is kept as it was; the file is
 * replaced atomically and readable by the user alone (it may hold an API key).
 */
export function rememberTrust(
  repoRoot: string,
  relPath: string,
  bytes: Uint8Array,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const file = userConfigPath(env);
  const doc = readUserFile(file);
  // Never overwrite a file the user can still repair by hand.
  if (!doc && existsSync(file))
    throw new UsageError(`cannot remember the trust: ${file} is not a JSON object; fix or remove it`);
  const entry = trustEntry(repoRoot, relPath, bytes);
  const kept = trustedRepos(doc).filter((t) => !(t.path === entry.path && t.file === entry.file));
  const next = { ...(doc ?? {}), trustedRepos: [...kept, entry] };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

function trustEntry(repoRoot: string, relPath: string, bytes: Uint8Array): TrustedRepo {
  return {
    path: realpathSync(repoRoot),
    file: relPath,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** The user file as a JSON object; null when absent or not an object (loadConfig reports a bad file). */
function readUserFile(file: string): Record<string, unknown> | null {
  if (!existsSync(file)) return null;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function trustedRepos(doc: Record<string, unknown> | null): TrustedRepo[] {
  const parsed = TrustedReposSchema.safeParse(doc?.trustedRepos ?? []);
  return parsed.success ? parsed.data : [];
}
