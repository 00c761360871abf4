// git for the miner, with the product's safety (runtime/host/safe-git.ts): no hooks, pagers,
// external diffs or user configuration, whatever the mined repository's .git/config says.
import { execFileSync } from 'node:child_process';
import { gitEnv, gitOverrides } from '../../runtime/host/safe-git.js';

/** git's stdout as text; throws with git's stderr when git fails. */
export function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', [...gitOverrides(), '-C', dir, ...args], {
    env: gitEnv(),
    input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Whether git succeeds (e.g. `apply --check`, `cat-file -e`). */
export function gitOk(dir: string, args: string[], input?: string): boolean {
  try {
    git(dir, args, input);
    return true;
  } catch {
    return false;
  }
}

/** A clone of a local bundle: the one transport allowed (the overrides allow none by default). */
export function cloneBundle(bundle: string, dest: string, options: { checkout: boolean }): void {
  const noCheckout = options.checkout ? [] : ['--no-checkout'];
  git('/', ['-c', 'protocol.file.allow=always', 'clone', '-q', ...noCheckout, bundle, dest]);
}
