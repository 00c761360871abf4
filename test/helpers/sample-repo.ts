// A fresh git copy of the bundled sample repository, for runs that edit it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { packageRoot } from '../../runtime/package-root.js';

export const MODELS = join(packageRoot(), 'test', 'fixtures', 'models');

export function sampleRepo(): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'piper-sample-')), 'repo');
  return copyAsGitRepo(join(packageRoot(), 'test', 'fixtures', 'sample-repo'), dest, 'sample');
}

/** `fix` headless on a sample repo copy with a scripted model, the repro test and the issue file. */
export function sampleFixArgs(repo: string, script = 'sample-fix.jsonl', ...extra: string[]): string[] {
  return [
    'fix',
    '--repo',
    repo,
    '--model',
    `script:${join(MODELS, script)}`,
    '--test',
    'tests/test_words.py',
    '--non-interactive',
    ...extra,
    join(repo, 'ISSUE.md'),
  ];
}
