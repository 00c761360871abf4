// `.piper/`, the directory piper keeps its state in inside a repository (the ledger, the run lock).
// When piper creates it, it also writes `.piper/.gitignore` ignoring everything, as pytest does for
// `.pytest_cache/`: a run must never leave the user's `git status` dirty. A `.piper/` that already
// existed is the user's (it may hold a committed config.json or sandbox.toml) and is left alone.
import { existsSync, lstatSync, realpathSync, writeFileSync } from 'node:fs';
import { RuntimeError } from '../errors.js';
import { basename, dirname, join } from 'node:path';
import { adoptOwner, makeOwnedDirectory, type FileOwner } from './checkout-owner.js';

const PIPER_DIRECTORY = '.piper';

const GITIGNORE = '# Created by piper-agent automatically.\n*\n';

/**
 * `mkdir -p dir` as makeOwnedDirectory does, plus the `.gitignore` when this call created a
 * directory named `.piper`. Returns the owner files created in `dir` should get.
 */
export function makeStateDirectory(dir: string): FileOwner | null {
  if (basename(dir) === PIPER_DIRECTORY) assertPiperDirectory(dirname(dir));
  const created = !existsSync(dir);
  const owner = makeOwnedDirectory(dir);
  if (created && basename(dir) === PIPER_DIRECTORY) {
    const file = join(dir, '.gitignore');
    try {
      // `wx`: a second process that created it first wins; its file is the same.
      writeFileSync(file, GITIGNORE, { flag: 'wx' });
      adoptOwner(file, owner);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return owner;
}

/**
 * `.piper` must be the repository's own directory: a committed `.piper` symlink (or one anywhere on
 * the way to its ledger or lock) would move piper's state, and what it writes, outside the
 * checkout. Refused before anything is written, with the fix.
 */
function assertPiperDirectory(repoRoot: string): void {
  const dir = join(repoRoot, PIPER_DIRECTORY);
  for (const path of [dir, join(dir, 'ledger.db'), join(dir, 'run.lock')]) {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (st.isSymbolicLink())
      throw new RuntimeError(
        'ledger_error',
        `${path} is a symbolic link: piper keeps its state only in a real .piper/ directory inside the repository`,
        `remove the link (\`rm ${path}\`); piper creates the directory itself`,
      );
  }
  if (existsSync(dir)) {
    const real = realpathSync(dir);
    const root = realpathSync(repoRoot);
    if (real !== join(root, PIPER_DIRECTORY))
      throw new RuntimeError(
        'ledger_error',
        `${dir} resolves to ${real}, outside the repository ${root}`,
        'remove it; piper creates .piper/ itself inside the repository',
      );
  }
}
