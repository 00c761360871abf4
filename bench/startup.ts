// node dist/bench/startup.js [--json] [--rounds N] [--no-fix] [--cli PATH] [--baseline PATH]
// Start-up of the CLI against a bare `node -e 0`, measured side by side in this process, the
// commands interleaved round by round so machine load hits all of them alike:
//   --help, --version   spawn to exit        target: p50 within 100 ms of node -e 0's
//   fix (headless)      spawn to its first stream-json event (`init`), on a fresh copy of the
//                       sample repository per round, scripted model, `--env base` (an environment
//                       build is not start-up)      target: p50 within 400 ms of node -e 0's
// The fix process is stopped (SIGTERM, which it handles) once its first event is out. --cli PATH
// measures another build's bin/piper-agent.js (a checkout before a change, say) the same way;
// --baseline PATH measures that build's headless fix too, in the same rounds, so a before/after
// comparison sees the same machine load (its summary is `baseline_fix_first_event`).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { probeEngine } from '../runtime/engine/bootstrap.js';
import { DockerEngine } from '../runtime/engine/docker-engine.js';
import { copyAsGitRepo } from '../runtime/host/git.js';
import { loadRecipe } from '../runtime/images/recipe.js';
import { packageRoot } from '../runtime/package-root.js';
import { percentile, printTable } from './stats.js';
import { headlessEnv, headlessFixArgs } from './headless-fix.js';

const ROOT = packageRoot();
const TARGETS = { help_ms: 100, version_ms: 100, fix_first_event_ms: 400 };

/** Milliseconds from spawn to exit (or to the first stdout bytes with `untilOutput`). */
function timed(args: string[], opts: { cwd?: string; untilOutput?: boolean } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: opts.cwd,
      env: headlessEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let elapsed: number | undefined;
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.on('data', () => {
      if (!opts.untilOutput || elapsed !== undefined) return;
      elapsed = performance.now() - t0;
      child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (opts.untilOutput) {
        if (elapsed === undefined) reject(new Error(`no event from ${args.join(' ')}: ${err.slice(-400)}`));
        else resolve(elapsed);
      } else if (code === 0) resolve(performance.now() - t0);
      else reject(new Error(`${args.join(' ')} exited ${code ?? signal}: ${err.slice(-400)}`));
    });
  });
}

async function fixAvailable(): Promise<string | null> {
  const engine = new DockerEngine();
  if (!(await probeEngine(engine).catch(() => null))) return 'no Docker engine answers';
  if (!(await engine.imageId(loadRecipe().ref))) return `sandbox image ${loadRecipe().ref} is not built`;
  return null;
}

function summary(samples: number[], base: number, target: number) {
  const p50 = percentile(samples, 50);
  const delta = Math.round((p50 - base) * 10) / 10;
  return {
    p50_ms: p50,
    delta_vs_node_ms: delta,
    ratio_vs_node: Math.round((p50 / base) * 100) / 100,
    target_delta_ms: target,
    met: delta <= target,
  };
}

type StartupSamples = Record<'node' | 'help' | 'version' | 'fix' | 'baseline', number[]>;

/** Each command's p50 over `node -e 0` against its target (and against the baseline CLI when given). */
function startupResult(
  { cli, rounds, baseline }: { cli: string; rounds: number; baseline: string | undefined },
  samples: StartupSamples,
  base: number,
  skipFix: string | null,
) {
  return {
    cli,
    rounds,
    node_e0_p50_ms: base,
    help: summary(samples.help, base, TARGETS.help_ms),
    version: summary(samples.version, base, TARGETS.version_ms),
    fix_first_event: skipFix ? { skipped: skipFix } : summary(samples.fix, base, TARGETS.fix_first_event_ms),
    ...(baseline && !skipFix
      ? {
          baseline,
          baseline_fix_first_event: summary(samples.baseline, base, TARGETS.fix_first_event_ms),
          // Round by round (the two runs of a round see about the same load): baseline − this build.
          paired_saving_p50_ms: percentile(
            samples.baseline.map((b, i) => b - samples.fix[i]!),
            50,
          ),
        }
      : {}),
  };
}

function printStartupTable(result: ReturnType<typeof startupResult>, base: number): void {
  const row = (name: string, s: { p50_ms: number; delta_vs_node_ms: number; target_delta_ms: number }) =>
    [name, `${s.p50_ms} ms (+${s.delta_vs_node_ms} ms; target ≤ +${s.target_delta_ms})`] as [string, string];
  printTable([
    ['node -e 0 p50', `${base} ms`],
    row('--help p50', result.help),
    row('--version p50', result.version),
    'skipped' in result.fix_first_event
      ? ['fix first event', `skipped: ${result.fix_first_event.skipped}`]
      : row('fix first event p50', result.fix_first_event),
    ...(result.baseline_fix_first_event
      ? [
          row('baseline fix first event p50', result.baseline_fix_first_event),
          ['paired saving p50', `${result.paired_saving_p50_ms} ms`] as [string, string],
        ]
      : []),
  ]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '7' },
      'no-fix': { type: 'boolean', default: false },
      cli: { type: 'string', default: join(ROOT, 'bin', 'piper-agent.js') },
      baseline: { type: 'string' },
    },
  });
  const cli = values.cli;
  const rounds = Number(values.rounds);
  const skipFix = values['no-fix'] ? '--no-fix' : await fixAvailable();
  const work = mkdtempSync(join(tmpdir(), 'piper-bench-startup-'));
  const samples = {
    node: [] as number[],
    help: [] as number[],
    version: [] as number[],
    fix: [] as number[],
    baseline: [] as number[],
  };
  try {
    // One unmeasured round: the OS file cache warm for every command alike.
    await timed(['-e', '0']);
    await timed([cli, '--help']);
    for (let i = 0; i < rounds; i++) {
      samples.node.push(await timed(['-e', '0']));
      samples.help.push(await timed([cli, '--help']));
      samples.version.push(await timed([cli, '--version']));
      if (!skipFix) {
        const repo = copyAsGitRepo(
          join(ROOT, 'test', 'fixtures', 'sample-repo'),
          join(work, `r${i}`),
          'sample',
        );
        samples.fix.push(await timed(headlessFixArgs(cli, repo, ['--env', 'base']), { untilOutput: true }));
        if (values.baseline) {
          const copy = copyAsGitRepo(
            join(ROOT, 'test', 'fixtures', 'sample-repo'),
            join(work, `b${i}`),
            'sample',
          );
          samples.baseline.push(
            await timed(headlessFixArgs(values.baseline, copy, ['--env', 'base']), { untilOutput: true }),
          );
        }
      }
      process.stderr.write(`\rround ${i + 1}/${rounds}`);
    }
    process.stderr.write('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const base = percentile(samples.node, 50);
  const result = startupResult({ cli, rounds, baseline: values.baseline }, samples, base, skipFix);
  printStartupTable(result, base);
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
