// `piper-agent demo`: the whole product on a bundled example. Copies the sample repository (a small
// package with a real bug and a failing test) to a temp dir, makes it a git repository, and runs
// `fix` on it with the bundled scripted model: real sandbox, real ledger, the TUI on a terminal,
// headless elsewhere (CI).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { packageRoot } from '../../runtime/package-root.js';
import { loadConfig } from '../../core/config.js';
import { FIX_OPTIONS, flagsConfig, runWithRenderer } from './fix.js';

export const DEMO_HELP = `Usage: piper-agent demo [--output text|json|stream-json] [--non-interactive] [--policy policy|current]

Copies the bundled sample repository (test/fixtures/sample-repo: textstats, whose top_words returns
one word too few) to a temp dir and runs \`fix\` on it with the bundled scripted model
(test/fixtures/models/sample-fix.jsonl) and the repro target tests/test_words.py. Everything is
real but the model: the sandbox runs the tests, the ledger records every call. The copy is kept, so
you can look at the diff and the ledger afterwards (its path is printed). Exit status as for fix.`;

export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      output: FIX_OPTIONS.output,
      'non-interactive': FIX_OPTIONS['non-interactive'],
      policy: FIX_OPTIONS.policy,
    },
  });
  const root = packageRoot();
  const repo = copyAsGitRepo(
    join(root, 'test', 'fixtures', 'sample-repo'),
    join(mkdtempSync(join(tmpdir(), 'piper-demo-')), 'textstats'),
    'sample repository',
  );
  process.stderr.write(`demo: the sample repository is at ${repo}\n`);
  // The demo's ledger stays beside its copy, in the same temp dir: a demo run is not one of the
  // user's repositories, so it leaves nothing in the state directory.
  const ledger = join(dirname(repo), 'ledger.db');
  const flags = flagsConfig({
    ...values,
    model: `script:${join(root, 'test', 'fixtures', 'models', 'sample-fix.jsonl')}`,
    test: 'tests/test_words.py',
    ledger,
  });
  // The demo's own settings win over the user's configuration: it must show the same run everywhere.
  // The repository is our own bundled copy, so its config file (if any) is trusted.
  const { config } = loadConfig({ repo, flags, env: {}, trustRepo: true });
  const issue = readFileSync(join(repo, 'ISSUE.md'), 'utf8').trim();
  const result = await runWithRenderer({ issue, repo, config, reproTarget: 'tests/test_words.py' }, values);
  process.stderr.write(`demo: repository ${repo} · ledger ${ledger}\n`);
  return result.exit_code;
}
