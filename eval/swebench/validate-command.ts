// `piper-agent ab validate --bench FILE --repos DIR`: checks every instance of a SWE-bench-format set
// (validate.ts) and prints one line per instance — valid, or what failed and why — then a summary.
// Exit 0 only if every instance is valid. The results are kept in OUT/validation.json, where `ab`
// reads them instead of validating the same instances again.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { openSession } from '../../core/session.js';
import { parseDebian, type DebianChoice } from './debian.js';
import { instanceDebian } from './debian-choice.js';
import { environmentTag } from './spec-tree.js';
import { InstanceSetError, instanceDigest, loadInstances, type SweInstance } from './instance-file.js';
import { PhaseProgress, type Phase } from './phase-progress.js';
import { RepoCache } from './repos.js';
import type { SampleRequest } from './sample.js';
import { validateInstance, type Validation } from './validate.js';
import { ValidationCache } from './validation-cache.js';
import { inert } from '../../runtime/text/inert.js';

export const VALIDATE_HELP = `Usage: piper-agent ab validate --bench FILE.jsonl --repos DIR [--debian R|MAP] [--instances IDS] [--out DIR]

Checks that each instance of a SWE-bench-format set measures what it claims: its environment builds;
at base_commit with the test patch every FAIL_TO_PASS test fails; with the gold patch and the test
patch every FAIL_TO_PASS and PASS_TO_PASS test passes (as the public harness validates a set). A
PASS_TO_PASS test failing at base_commit that passes with the gold patch is noted on a valid line.
Prints one line per instance (valid, or what failed and why) and a summary.

  --bench FILE     instances in SWE-bench's format: .jsonl (one a line) or .json (an array)
  --repos DIR      one clone or git bundle per repository: owner__name or name, with or without .bundle
  --debian R|MAP   the sandbox's Debian release: bookworm (Python 3.11) or trixie (Python 3.13), or by
                   the instance's version: 0.12=bookworm,*=trixie (default: chosen per instance from
                   its project's requires-python and classifiers, then its date)
  --instances IDS  comma-separated instance ids (default: every instance)
  --out DIR        where validation.json and ledger.db go (default ab-out); ab reads validation.json

Exit status: 0 every instance is valid; 1 some instance is invalid; 2 usage error; 5 no sandbox engine.`;

const OPTIONS = {
  bench: { type: 'string' },
  repos: { type: 'string' },
  debian: { type: 'string' },
  instances: { type: 'string' },
  out: { type: 'string' },
} as const;

export interface SetOptions {
  bench: string;
  repos: string;
  debian: DebianChoice;
  instances: SweInstance[];
  /** --sample N --seed S: draw N valid instances in the seed's order (sample.ts). */
  sample?: SampleRequest;
}

/** The --bench, --repos, --debian and --instances flags of `ab` and `ab validate`, checked. */
export function readSetOptions(values: {
  bench?: string;
  repos?: string;
  debian?: string;
  instances?: string;
}): SetOptions {
  if (!values.bench) throw new UsageError('needs --bench FILE.jsonl (instances in SWE-bench format)');
  if (!values.repos)
    throw new UsageError(`--bench ${values.bench} needs --repos DIR (a clone or bundle per repository)`);
  let debian: DebianChoice;
  try {
    debian = parseDebian(values.debian);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  let all: SweInstance[];
  try {
    all = loadInstances(resolve(values.bench));
  } catch (error) {
    if (error instanceof InstanceSetError) throw new UsageError(`--bench ${error.message}`);
    throw error;
  }
  return {
    bench: resolve(values.bench),
    repos: resolve(values.repos),
    debian,
    instances: pick(all, values.instances),
  };
}

function pick(all: SweInstance[], ids: string | undefined): SweInstance[] {
  if (ids === undefined) return all;
  const wanted = ids
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (wanted.length === 0) throw new UsageError('--instances names no instance');
  const byId = new Map(all.map((i) => [i.instance_id, i]));
  const unknown = wanted.filter((id) => !byId.has(id));
  if (unknown.length > 0)
    throw new UsageError(
      `--instances names unknown instance(s): ${unknown.join(', ')} (the set has ${all.length})`,
    );
  return [...new Set(wanted)].map((id) => byId.get(id)!);
}

/**
 * One line for an instance: `valid ID (12.3 s, environment hit)` or `INVALID ID: reason`. Inert: it
 * quotes the set's ids and the build's shortfalls, which a repository's packages word.
 */
export function validationLine(v: Validation): string {
  return inert(lineOf(v));
}

function lineOf(v: Validation): string {
  const env = v.environment ? `, environment ${v.environment.status}` : '';
  return v.valid
    ? `valid    ${v.instanceId} (${v.seconds.toFixed(1)} s${env})${v.note ? `; ${v.note}` : ''}\n`
    : `INVALID  ${v.instanceId}: ${v.reason} (${v.seconds.toFixed(1)} s)${lacking(v)}\n`;
}

/** An invalid instance's environment shortfalls, the first few: often why its tests did not pass. */
function lacking(v: Validation): string {
  const all = v.shortfalls ?? [];
  if (all.length === 0) return '';
  const more = all.length > 3 ? `; and ${all.length - 3} more` : '';
  return `; its environment: ${all.slice(0, 3).join('; ')}${more}`;
}

export async function abValidateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (positionals.length > 0)
    throw new UsageError(`ab validate takes no positional arguments, got '${positionals[0]}'`);
  const set = readSetOptions(values);
  const outDir = resolve(values.out ?? 'ab-out');
  mkdirSync(outDir, { recursive: true });
  const t0 = performance.now();
  const results = await validateSet(set, outDir, (v) => process.stdout.write(validationLine(v)));
  const valid = results.filter((v) => v.valid).length;
  process.stdout.write(
    `${valid} of ${results.length} instance(s) valid, ${results.length - valid} invalid, in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return valid === results.length ? EXIT.ok : EXIT.failure;
}

/** Validates each instance (one at a time: each builds or reuses an environment), caching each result. */
async function validateSet(
  set: SetOptions,
  outDir: string,
  done: (v: Validation) => void,
): Promise<Validation[]> {
  const session = await openSession({
    repo: outDir,
    ledger: join(outDir, 'ledger.db'),
    sandbox: { poolSize: 0 },
    log: () => {},
  });
  const workDir = mkdtempSync(join(tmpdir(), 'piper-swe-validate-'));
  const cache = new ValidationCache(outDir);
  const progress = new PhaseProgress(process.stderr, set.instances.length);
  const ctx = {
    engine: session.engine,
    ledger: session.ledger,
    owner: session.owner,
    runtime: session.sandbox.runtime ?? null,
    log: (line: string) => progress.buildLine(line),
    phase: (name: Phase) => progress.phase(name),
    repos: new RepoCache(set.repos, join(workDir, 'clones')),
    workDir,
  };
  const results: Validation[] = [];
  try {
    for (const [i, instance] of set.instances.entries()) {
      if (session.interrupted) break;
      progress.start(i + 1, instance.instance_id);
      // The first instance of a repository clones it (synchronously: minutes for a large one).
      progress.phase('repository');
      const debian = instanceDebian(set.debian, instance, ctx.repos);
      if (debian) progress.note(`Debian ${debian.release}: ${debian.why}`);
      const v = await validateInstance(ctx, instance, debian?.release);
      v.debian = debian ? `${debian.release} (${debian.why})` : null;
      cache.put(instanceDigest(instance, environmentTag(debian?.release, instance)), v);
      results.push(v);
      progress.finished();
      done(v);
    }
  } finally {
    progress.close();
    rmSync(workDir, { recursive: true, force: true });
    await session.close();
  }
  return results;
}
