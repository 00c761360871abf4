// A fresh git copy of the bundled sample repository, for runs that edit it.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../runtime/package-root.js';

export const MODELS = join(packageRoot(), 'test', 'fixtures', 'models');

export function sampleRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'piper-sample-'));
  cpSync(join(packageRoot(), 'test', 'fixtures', 'sample-repo'), repo, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], {
      cwd: repo,
      stdio: 'ignore',
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'sample');
  return repo;
}
