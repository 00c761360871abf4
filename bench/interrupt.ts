// node dist/bench/interrupt.js [--json] [--rounds N] [--cli PATH] [--baseline PATH]
// How promptly a headless `fix` stops on SIGTERM, and whether anything ran after it: the scripted
// sample run (real engine, real ledger) is sent SIGTERM once its stream reaches a moment —
//   init        its first event, before the code index and the first model call
//   proposal    the model's first proposal (read_entity), before its dispatch
//   edit        the edit's `execution started` (its lint check is in flight)
//   test        a run_test's `execution started` (pytest runs in a sandbox)
// and per moment it reports, over the rounds: SIGTERM → the handler's first stderr line
// (`handler_*`), SIGTERM → the process's exit (`exit_*`), the exit codes, and the ledger rows
// written after the interrupt (calls and turns created after the run's interrupted mark, edits
// committed after it) with how many runs left the file changed without a committed edit.
// --baseline PATH measures another build's bin/piper-agent.js in the same rounds (before/after).
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { copyAsGitRepo } from '../runtime/host/git.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { packageRoot } from '../runtime/package-root.js';
import { percentile, printTable } from './stats.js';
import { headlessEnv, headlessFixArgs } from './headless-fix.js';

const ROOT = packageRoot();

const MOMENTS = {
  init: /"type":"init"/,
  proposal: /"type":"proposal"[^\n]*"origin":"model"/,
  edit: /"phase":"started"[^\n]*"tool":"edit_entity"/,
  test: /"phase":"started"[^\n]*"tool":"run_test"/,
} as const;
type Moment = keyof typeof MOMENTS;

interface Sample {
  handlerMs: number | null;
  exitMs: number;
  code: number | null;
  after: AfterInterrupt;
}

/** What the ledger holds that the run wrote after its interrupted mark. */
interface AfterInterrupt {
  calls: number;
  turns: number;
  edits: number;
  /** The file differs from HEAD though no edit was committed before the mark. */
  strayChange: boolean;
}

/** One run, sent SIGTERM once its stdout matches the moment; null when it ended before that. */
function terminatedAt(cli: string, repo: string, moment: RegExp): Promise<Omit<Sample, 'after'> | null> {
  return new Promise((resolve, reject) => {
    const args = headlessFixArgs(cli, repo, ['--non-interactive', '--ledger', ledgerOf(repo)]);
    const child = spawn(process.execPath, args, {
      env: headlessEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let sentAt: number | undefined;
    let handlerMs: number | null = null;
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (sentAt === undefined && moment.test(out)) {
        sentAt = performance.now();
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      if (sentAt !== undefined && handlerMs === null && c.toString().includes('SIGTERM'))
        handlerMs = performance.now() - sentAt;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (sentAt === undefined) return resolve(null);
      resolve({ handlerMs, exitMs: performance.now() - sentAt, code });
    });
  });
}

/**
 * The run's ledger, named on its command line: beside the copy, in the bench's own temp directory,
 * wherever the build under test keeps its default one.
 */
function ledgerOf(repo: string): string {
  return `${repo}.ledger.db`;
}

function afterInterrupt(repo: string): AfterInterrupt {
  const ledger = Ledger.open(ledgerOf(repo));
  try {
    const db = ledger.database;
    const run = db.prepare(`SELECT id, ended_at FROM runs WHERE kind = 'fix'`).get() as {
      id: string;
      ended_at: string;
    };
    const count = (sql: string) => (db.prepare(sql).get(run.id, run.ended_at) as { n: number }).n;
    const edits = count(`SELECT count(*) AS n FROM edits WHERE run_id = ? AND created_at > ?`);
    const before = count(`SELECT count(*) AS n FROM edits WHERE run_id = ? AND created_at <= ?`);
    const changed = execFileSync('git', ['status', '--porcelain', '--', 'textstats'], { cwd: repo })
      .toString()
      .trim();
    return {
      calls: count(`SELECT count(*) AS n FROM calls WHERE run_id = ? AND created_at > ?`),
      turns: count(`SELECT count(*) AS n FROM turns WHERE run_id = ? AND created_at > ?`),
      edits,
      strayChange: changed !== '' && before === 0,
    };
  } finally {
    ledger.close();
  }
}

function summarize(samples: Sample[]) {
  const ms = (xs: number[]) => ({ p50: percentile(xs, 50), max: percentile(xs, 100) });
  const handler = samples.map((s) => s.handlerMs).filter((x): x is number => x !== null);
  return {
    runs: samples.length,
    handler_ms: ms(handler),
    exit_ms: ms(samples.map((s) => s.exitMs)),
    exit_codes: [...new Set(samples.map((s) => s.code))],
    calls_after: samples.reduce((n, s) => n + s.after.calls, 0),
    turns_after: samples.reduce((n, s) => n + s.after.turns, 0),
    edits_after: samples.reduce((n, s) => n + s.after.edits, 0),
    stray_changes: samples.filter((s) => s.after.strayChange).length,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '5' },
      cli: { type: 'string', default: join(ROOT, 'bin', 'piper-agent.js') },
      baseline: { type: 'string' },
    },
  });
  const builds = { this: values.cli, ...(values.baseline ? { baseline: values.baseline } : {}) };
  const samples = new Map<string, Sample[]>();
  const work = mkdtempSync(join(tmpdir(), 'piper-bench-interrupt-'));
  try {
    for (let i = 0; i < Number(values.rounds); i++) {
      // Interleaved round by round, so machine load hits both builds and every moment alike.
      for (const moment of Object.keys(MOMENTS) as Moment[]) {
        for (const [name, cli] of Object.entries(builds)) {
          const repo = copyAsGitRepo(
            join(ROOT, 'test', 'fixtures', 'sample-repo'),
            join(work, `${name}-${moment}-${i}`),
            'sample',
          );
          const run = await terminatedAt(cli, repo, MOMENTS[moment]);
          if (!run) throw new Error(`${name}: the run ended before ${moment}`);
          const key = `${name} ${moment}`;
          samples.set(key, [...(samples.get(key) ?? []), { ...run, after: afterInterrupt(repo) }]);
        }
      }
      process.stderr.write(`\rround ${i + 1}/${values.rounds}`);
    }
    process.stderr.write('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const result = Object.fromEntries([...samples].map(([key, s]) => [key, summarize(s)]));
  printTable(
    Object.entries(result).map(([key, s]) => [
      key,
      `exit p50 ${s.exit_ms.p50} max ${s.exit_ms.max} ms; handler p50 ${s.handler_ms.p50} max ` +
        `${s.handler_ms.max} ms; codes ${s.exit_codes.join(',')}; after the interrupt: ` +
        `${s.calls_after} call(s), ${s.turns_after} turn(s), ${s.edits_after} edit(s), ` +
        `${s.stray_changes} stray change(s)`,
    ]),
  );
  if (values.json) process.stdout.write(`${JSON.stringify({ cli: values.cli, ...result })}\n`);
}

await main();
