// Each A/B instance works on a fresh copy of its task's repository: a temporary directory, `git
// init`, one commit, so the agent's run records a HEAD and its edits show as a diff against the task
// as given. The copy is removed after the runner has judged it; the ledger keeps the run's diff.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RepoCopy {
  dir: string;
  remove(): void;
}

export function freshCopy(repoDir: string, label: string): RepoCopy {
  const root = mkdtempSync(join(tmpdir(), `piper-ab-${label.replace(/[^\w.-]/g, '_')}-`));
  const dir = join(root, 'repo');
  cpSync(repoDir, dir, {
    recursive: true,
    filter: (src) => !/[/\\](\.git|__pycache__|\.pytest_cache|\.piper)$/.test(src),
  });
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      [
        '-c',
        'user.name=piper-agent ab',
        '-c',
        'user.email=ab@piper-agent.invalid',
        '-c',
        'commit.gpgsign=false',
        '-c',
        'core.hooksPath=/dev/null',
        ...args,
      ],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', `task ${label} as given`);
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}
