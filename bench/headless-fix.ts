// How the benches start a headless `fix` of the sample repository: the command line (scripted
// model, its reproduction test, stream-json) and the environment a script or CI job gives it.
import { join } from 'node:path';
import { packageRoot } from '../runtime/package-root.js';

/** `cli fix` on `repo` with the sample's scripted model and test, stream-json, plus `extra` flags. */
export function headlessFixArgs(cli: string, repo: string, extra: string[] = []): string[] {
  return [
    cli,
    'fix',
    '--repo',
    repo,
    '--model',
    `script:${join(packageRoot(), 'test', 'fixtures', 'models', 'sample-fix.jsonl')}`,
    '--test',
    'tests/test_words.py',
    '--output',
    'stream-json',
    ...extra,
    join(repo, 'ISSUE.md'),
  ];
}

/** CI=true: headless, as a script or CI job runs it; PIP_* of the host do not reach a run; the default ledger. */
export function headlessEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PIP_')));
  return { ...env, CI: 'true', PIPER_LEDGER: '' };
}
