// What `ab --bench FILE.jsonl --repos DIR` does before any agent runs: each instance's base tree is
// checked out once (every run copies it fresh), and each instance is validated — read from
// OUT/validation.json when `ab validate` (or an earlier `ab`) already checked the same content,
// checked now otherwise. An invalid instance is not run: it is reported with its reason and never
// counted as unresolved. A missing repository or commit makes that instance invalid, by name. The
// gold labels of the instances the set's gold-label file names come from it (gold-label-file.ts).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { instanceDebian } from './debian-choice.js';
import { environmentTag } from './spec-tree.js';
import { baseTreeDir } from './base-tree.js';
import { instanceEnvironment, type EnvironmentContext } from './environment.js';
import { instanceDigest } from './instance-file.js';
import { readGoldLabelFile, type GoldLabelFile } from './gold-label-file.js';
import type { SweInstance } from './instance-file.js';
import type { DebianRelease } from '../../runtime/env/plan/read/marker-env.js';
import { RepoCache } from './repos.js';
import { sampleOrder } from './sample.js';
import { sweTask, type SweTask } from './swe-task.js';
import { PhaseProgress, type Phase } from './phase-progress.js';
import { validationLine, type SetOptions } from './validate-command.js';
import { validateInstance } from './validate.js';
import { ValidationCache } from './validation-cache.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';

interface InvalidInstance {
  instance: string;
  reason: string;
}

export interface PreparedSet {
  tasks: SweTask[];
  invalid: InvalidInstance[];
  /** Removes the base trees and the clones. */
  remove(): void;
}

/** A valid instance as a task: its base tree checked out, its environment image, its gold labels. */
async function taskOf(
  ctx: EnvironmentContext,
  of: {
    instance: SweInstance;
    debian: DebianRelease | undefined;
    digest: string;
    repos: RepoCache;
    labelFile: GoldLabelFile | null;
  },
  workDir: string,
): Promise<SweTask> {
  const { instance, labelFile } = of;
  const dir = join(workDir, 'instances', instance.instance_id);
  mkdirSync(dir, { recursive: true });
  const base = of.repos.checkout(instance, baseTreeDir(instance));
  // The agent's runs use the environment image as it is: built from this base tree (a hit after
  // validation), not from each run's copy, whose new path would build it again.
  const env = await instanceEnvironment(ctx, base, of.debian, instance);
  await env.sandbox.close();
  const checked = labelFile?.instances.get(instance.instance_id);
  const part = {
    instance,
    debian: of.debian,
    digest: of.digest,
    image: env.choice.image,
    labelsFile: checked ? labelFile!.path : null,
  };
  return sweTask(part, dir, base, checked?.labels ?? null);
}

export async function prepareSet(
  set: SetOptions,
  ctx: EnvironmentContext & { ledger: Ledger },
  outDir: string,
  workDir: string,
  note: (line: string) => void,
): Promise<PreparedSet> {
  const repos = new RepoCache(set.repos, join(workDir, 'clones'));
  const cache = new ValidationCache(outDir);
  const labelFile = readGoldLabelFile(set.bench);
  const tasks: SweTask[] = [];
  const invalid: InvalidInstance[] = [];
  const order = set.sample ? sampleOrder(set.instances, set.sample.seed) : set.instances;
  const wanted = set.sample?.size ?? order.length;
  const progress = new PhaseProgress(process.stderr, order.length);
  const validating = {
    ...ctx,
    log: (line: string) => progress.buildLine(line),
    phase: (name: Phase) => progress.phase(name),
    repos,
    workDir: join(workDir, 'validate'),
  };
  for (const [i, instance] of order.entries()) {
    // A sample stops drawing once it has its size of valid instances.
    if (tasks.length >= wanted) break;
    progress.start(i + 1, instance.instance_id);
    progress.phase('repository');
    const debian = instanceDebian(set.debian, instance, repos)?.release;
    const digest = instanceDigest(instance, environmentTag(debian, instance));
    let validation = cache.get(digest);
    if (!validation) {
      note(`validating ${instance.instance_id}`);
      validation = await validateInstance(validating, instance, debian);
      progress.finished(validationLine(validation));
      cache.put(digest, validation);
    } else progress.finished();
    if (!validation.valid) {
      invalid.push({ instance: instance.instance_id, reason: validation.reason ?? 'invalid' });
      continue;
    }
    try {
      tasks.push(await taskOf(ctx, { instance, debian, digest, repos, labelFile }, workDir));
    } catch (error) {
      invalid.push({ instance: instance.instance_id, reason: (error as Error).message });
    }
  }
  progress.close();
  return { tasks, invalid, remove: () => rmSync(workDir, { recursive: true, force: true }) };
}
