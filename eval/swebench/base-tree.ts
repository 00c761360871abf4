// Where an instance's base tree lives: one stable directory per repository and commit, under the user's
// cache (PIPER_SWE_CACHE, default ~/.cache/piper-agent/swebench), checked out once and read by
// `ab validate`, every `ab` run and every judgement. (Its environment image is filed under the
// repository's name, environment.ts, so trees of one repository share images by content key.)
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SweInstance } from './instance-file.js';

/** One directory per repository and commit: instances at the same commit share it and its image. */
export function baseTreeDir(instance: SweInstance): string {
  const root = process.env.PIPER_SWE_CACHE ?? join(homedir(), '.cache', 'piper-agent', 'swebench');
  return join(root, instance.repo.replace('/', '__'), instance.base_commit);
}
