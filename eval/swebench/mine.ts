// node dist/eval/swebench/mine.js --out DIR [--env auto|base] [--since DATE] [--max N] BUNDLE=owner/name[:MAX[:SINCE[:SUBJECT]]] ...
// SUBJECT, a regular expression, keeps only the commits whose subject matches (e.g. fix|bug|#\d):
// SWE-bench takes pull requests that resolve an issue; a fix's subject is this history's sign of one.
// Mines SWE-bench-format instances from projects' own history (docs: eval/tasks/real/README.md):
// for each bundle, its fix commits with tests are run in the real sandbox at the parent with the
// test patch, then with the gold patch too. Writes DIR/mined.jsonl (instances without a problem
// statement, with what the failing tests showed) and DIR/MINING.md, and prints a line per project.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cloneBundle } from './git.js';
import type { MinedInstance } from './instance.js';
import { mineProject, type Tried } from './mine-project.js';
import { miningMarkdown, summaryLine } from './mining-report.js';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      out: { type: 'string' },
      since: { type: 'string', default: '2019-01-01' },
      max: { type: 'string', default: '15' },
      env: { type: 'string', default: 'auto' },
    },
    allowPositionals: true,
  });
  if (!values.out || !positionals.length)
    throw new Error('usage: mine.js --out DIR [--since DATE] [--max N] BUNDLE=owner/name ...');
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'mined.jsonl'), '');
  const found = (instance: MinedInstance) =>
    appendFileSync(join(out, 'mined.jsonl'), `${JSON.stringify(instance)}\n`);
  const work = mkdtempSync(join(tmpdir(), 'piper-mine-'));
  const started = Date.now();
  const projects: { repo: string; tried: Tried[] }[] = [];
  try {
    const mined = await Promise.all(
      positionals.map((spec) =>
        mineBundle(spec, work, { since: values.since, max: Number(values.max), env: values.env, found }),
      ),
    );
    projects.push(...mined);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const minutes = (Date.now() - started) / 60_000;
  const command = `node dist/eval/swebench/mine.js --env ${values.env} --since ${values.since} --max ${values.max} ${positionals.map((p) => `'${basename(p)}'`).join(' ')}`;
  writeFileSync(join(out, 'MINING.md'), miningMarkdown(projects, command, minutes));
  for (const p of projects) process.stdout.write(`${summaryLine(p.repo, p.tried)}\n`);
}

/** One bundle, in its own clone and ledger (projects run side by side). */
async function mineBundle(
  spec: string,
  work: string,
  defaults: { since: string; max: number; env: string; found: (instance: MinedInstance) => void },
): Promise<{ repo: string; tried: Tried[] }> {
  const [bundle, target] = spec.split('=');
  const [repo, max, since, subject] = (target ?? '').split(':');
  if (!bundle || !repo || !/^[\w.-]+\/[\w.-]+$/.test(repo))
    throw new Error(`not BUNDLE=owner/name[:MAX[:SINCE[:SUBJECT]]]: ${spec}`);
  const clone = join(work, basename(bundle, '.bundle'));
  cloneBundle(resolve(bundle), clone, { checkout: true });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const ledgerPath = join(work, `${basename(clone)}-ledger.db`);
  const options = {
    since: since || defaults.since,
    max: max ? Number(max) : defaults.max,
    subject: new RegExp(subject || '', 'i'),
  };
  const tried = await mineProject({
    clone,
    repo,
    ...options,
    ledgerPath,
    log,
    env: defaults.env,
    found: defaults.found,
  });
  log(summaryLine(repo, tried));
  return { repo, tried };
}

main().catch((error: unknown) => {
  process.stderr.write(`mine: ${(error as Error).message}\n`);
  process.exit(1);
});
