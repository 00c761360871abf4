// Each A/B instance works on a fresh copy of its task's repository: a temporary directory, `git
// init`, one commit, so the agent's run records a HEAD and its edits show as a diff against the task
// as given. The copy is removed after the runner has judged it; the ledger keeps the run's diff.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyAsGitRepo } from '../../runtime/host/git.js';

export interface RepoCopy {
  dir: string;
  remove(): void;
}

export function freshCopy(repoDir: string, label: string): RepoCopy {
  const root = mkdtempSync(join(tmpdir(), `piper-ab-${label.replace(/[^\w.-]/g, '_')}-`));
  const dir = copyAsGitRepo(repoDir, join(root, 'repo'), `task ${label} as given`);
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}
