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
