// Where an instance's base tree lives: one stable directory per repository and commit, under the user's
// cache (PIPER_SWE_CACHE, default ~/.cache/piper-agent/swebench). Stable, because an environment
// image is named by its project's path as well as its content key (runtime/env/names.ts): the same
// path gives `ab validate`, every `ab` run and every judgement the same image after one build,
// where a fresh temporary path would build the environment again each time.
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SweInstance } from './instance-file.js';

/** One directory per repository and commit: instances at the same commit share it and its image. */
export function baseTreeDir(instance: SweInstance): string {
  const root = process.env.PIPER_SWE_CACHE ?? join(homedir(), '.cache', 'piper-agent', 'swebench');
  return join(root, instance.repo.replace('/', '__'), instance.base_commit);
}
