// `.piper/`, the directory piper keeps its state in inside a repository (the ledger, the run lock).
// When piper creates it, it also writes `.piper/.gitignore` ignoring everything, as pytest does for
// `.pytest_cache/`: a run must never leave the user's `git status` dirty. A `.piper/` that already
// existed is the user's (it may hold a committed config.json or sandbox.toml) and is left alone.
import { existsSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { adoptOwner, makeOwnedDirectory, type FileOwner } from './checkout-owner.js';

export const PIPER_DIRECTORY = '.piper';

const GITIGNORE = '# Created by piper-agent automatically.\n*\n';

/**
 * `mkdir -p dir` as makeOwnedDirectory does, plus the `.gitignore` when this call created a
 * directory named `.piper`. Returns the owner files created in `dir` should get.
 */
export function makeStateDirectory(dir: string): FileOwner | null {
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
