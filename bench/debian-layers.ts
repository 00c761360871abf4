// node dist/bench/debian-layers.js --bench FILE.jsonl --repos DIR --repo OWNER/NAME [--count N] [--json]
// The environments of N base commits of one repository (the set's first N instances of it, in file
// order), as `ab validate` builds them, in two arms side by side, instance by instance:
//   - layers: Debian's packages kept as layers of their own (runtime/env/build/debian-layer.ts),
//     so a base commit whose declarations changed reuses the packages an earlier one installed;
//   - baseline: the same builds with `debianLayers: false` — each build installs its Debian packages
//     itself, as builds did before the layers (an extra container and commit more than they did).
// Both arms keep the dependency images of equal declarations as the product does (each arm under a
// project name of its own for this run, so neither reuses the other's or an earlier run's). The
// layers arm's first build is a rebuild, so a layer kept by an earlier run is not used (it refetches
// Debian's package lists: a few seconds against it). Every image made here is removed at the end.
// Target: the layers arm's total ≤ 0.6 × the baseline's for a repository whose base commits differ.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { instanceDebian } from '../eval/swebench/debian-choice.js';
import { pythonOf } from '../eval/swebench/debian.js';
import { loadInstances } from '../eval/swebench/instance-file.js';
import { RepoCache } from '../eval/swebench/repos.js';
import { connectEngine } from '../runtime/engine/bootstrap.js';
import type { DockerEngine } from '../runtime/engine/docker-engine.js';
import { ensureEnvironment } from '../runtime/env/choose/ensure.js';
import { ENV_LABEL, projectId } from '../runtime/env/floor/names.js';
import { currentOwner, formatOwner } from '../runtime/sandbox/owner.js';
import { printTable } from './stats.js';

type Arm = 'layers' | 'baseline';

interface Built {
  instance: string;
  arm: Arm;
  seconds: number;
  status: string;
  debianStep: string;
}

const { values } = parseArgs({
  options: {
    bench: { type: 'string' },
    repos: { type: 'string' },
    repo: { type: 'string' },
    count: { type: 'string', default: '20' },
    json: { type: 'boolean', default: false },
  },
});

async function buildOne(
  engine: DockerEngine,
  tree: string,
  arm: Arm,
  opts: { project: string; python: ReturnType<typeof pythonOf>; first: boolean },
): Promise<Omit<Built, 'instance'>> {
  const t0 = performance.now();
  const choice = await ensureEnvironment({
    engine,
    ledger: null,
    repoRoot: tree,
    mode: arm === 'layers' && opts.first ? 'rebuild' : 'auto',
    trustRecipe: false,
    owner: formatOwner(currentOwner()),
    log: () => {},
    projectName: opts.project,
    ...(opts.python ? { python: opts.python } : {}),
    ...(arm === 'baseline' ? { debianLayers: false } : {}),
  });
  const seconds = (performance.now() - t0) / 1000;
  // The build's sources say where Debian's packages came from: a kept layer, or apt in this build.
  const debian = choice.sources.filter((s) => s.startsWith('debian: '));
  const debianStep = debian.some((s) => s.includes('reused piper-debian-packages'))
    ? 'reused'
    : debian.length > 0
      ? 'installed'
      : 'none';
  return { arm, seconds, status: choice.status, debianStep };
}

async function main(): Promise<void> {
  if (!values.bench || !values.repos || !values.repo)
    throw new Error(
      'needs --bench FILE.jsonl --repos DIR --repo OWNER/NAME (see the header of bench/debian-layers.ts)',
    );
  const count = Number(values.count);
  const instances = loadInstances(resolve(values.bench))
    .filter((i) => i.repo === values.repo)
    .slice(0, count);
  if (instances.length === 0) throw new Error(`--bench ${values.bench} has no instance of ${values.repo}`);
  const { engine } = await connectEngine();
  const work = mkdtempSync(join(tmpdir(), 'piper-bench-layers-'));
  const repos = new RepoCache(resolve(values.repos), join(work, 'clones'));
  const run = Date.now().toString(36);
  const project = (arm: Arm) => `bench-debian-layers:${run}:${arm}`;
  const rows: Built[] = [];
  try {
    for (const [i, instance] of instances.entries()) {
      const tree = repos.checkout(instance, join(work, 'trees', instance.instance_id));
      const python = pythonOf(instanceDebian(null, instance, repos)?.release);
      // Interleaved, the order alternating: the machine's other load hits both arms alike.
      const arms: Arm[] = i % 2 === 0 ? ['baseline', 'layers'] : ['layers', 'baseline'];
      for (const arm of arms) {
        process.stderr.write(`${instance.instance_id} ${arm}: building (${i + 1} of ${instances.length})\n`);
        const built = await buildOne(engine, tree, arm, { project: project(arm), python, first: i === 0 });
        rows.push({ instance: instance.instance_id, ...built });
        process.stderr.write(
          `${instance.instance_id} ${arm}: ${built.seconds.toFixed(1)} s (${built.status}; Debian: ${built.debianStep})\n`,
        );
      }
    }
  } finally {
    for (const arm of ['layers', 'baseline'] as Arm[]) await removeProject(engine, project(arm));
    rmSync(work, { recursive: true, force: true });
  }
  report(rows, instances.length);
}

async function removeProject(engine: DockerEngine, name: string): Promise<void> {
  const images = await engine.listImages([`${ENV_LABEL.project}=${projectId('', name)}`]);
  for (const image of images.sort((a, b) => b.created - a.created))
    await engine.removeImage(image.id).catch(() => undefined);
}

function report(rows: Built[], n: number): void {
  const total = (arm: Arm) => rows.filter((r) => r.arm === arm).reduce((s, r) => s + r.seconds, 0);
  const [layers, baseline] = [total('layers'), total('baseline')];
  printTable(
    [...new Set(rows.map((r) => r.instance))].map((id) => {
      const of = (arm: Arm) => rows.find((r) => r.instance === id && r.arm === arm)!;
      const line = `baseline ${of('baseline').seconds.toFixed(1)} s, layers ${of('layers').seconds.toFixed(1)} s (Debian: ${of('layers').debianStep})`;
      return [id, line];
    }),
  );
  const result = {
    benchmark: 'debian-layers',
    repo: values.repo,
    instances: n,
    baseline_s: Number(baseline.toFixed(1)),
    layers_s: Number(layers.toFixed(1)),
    ratio: Number((layers / baseline).toFixed(2)),
    layers_reused: rows.filter((r) => r.arm === 'layers' && r.debianStep === 'reused').length,
    rows: rows.map((r) => ({ ...r, seconds: Number(r.seconds.toFixed(1)) })),
  };
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else
    process.stderr.write(`baseline ${result.baseline_s} s, layers ${result.layers_s} s: ${result.ratio} ×\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench/debian-layers: ${(error as Error).message}\n`);
  process.exit(1);
});
