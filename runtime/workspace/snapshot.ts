// The repository as the sandbox sees it: tracked files plus untracked files git does not ignore,
// never .git, streamed as a tar (no host path is mounted). Outside a git repository every file is
// taken except .git, .piper and virtual environments. Files are read when packed, so the snapshot
// is the working tree as it is at that moment, edits included.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { packFiles } from './pack-files.js';

const SKIP_DIRS = new Set([
  '.git',
  '.piper',
  '.venv',
  'venv',
  '.tox',
  'node_modules',
  '__pycache__',
  '.pytest_cache',
]);

export function snapshotFiles(repoRoot: string): string[] {
  let listed: string[];
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 256 << 20,
    })
      .split('\0')
      .filter(Boolean);
  } catch {
    listed = walk(repoRoot, '');
  }
  // Deleted-but-tracked files are listed by git yet absent on disk; a snapshot is what is on disk.
  return listed
    .filter(
      (p) =>
        !p.split('/').some((part) => part === '.git' || part === '.piper') && existsSync(join(repoRoot, p)),
    )
    .sort();
}

export function snapshotTar(repoRoot: string): { files: string[]; tar: Readable } {
  const files = snapshotFiles(repoRoot);
  return { files, tar: packFiles(repoRoot, files) };
}

function walk(root: string, rel: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, rel)).sort()) {
    const path = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(root, path));
    if (st.isDirectory()) {
      if (SKIP_DIRS.has(name) || existsSync(join(root, path, 'pyvenv.cfg'))) continue;
      out.push(...walk(root, path));
    } else if (st.isFile() || st.isSymbolicLink()) {
      out.push(path);
    }
  }
  return out;
}
