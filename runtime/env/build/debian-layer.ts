// Debian's packages as a layer of their own, under everything pip and the project add: the image a
// set of packages makes on a given image is the same whichever project asked for it, so it is kept
// by what went into it — the image it was made FROM (its id) and the apt step's script, the package
// names in it — and every build that needs the same packages on the same image starts from it:
// two base commits of one repository whose declarations differ in a version, or two projects with
// one stack, install numpy and its kin once. Only apt runs in it (no pip, no repository code), in a
// networked box with no secret; its lists and packages are cleaned out before the commit. What apt
// said (the versions installed, the names Debian lacks) travels with the image as a label, so a
// reuse reports what the build that made it found.
import { createHash } from 'node:crypto';
import { acquireBuildLock } from '../../host/build-lock.js';
import { packLabel, unpackLabel } from '../../text/packed-label.js';
import { DEBIAN_LAYER } from '../floor/names.js';
import { BuildBox, type StepResult } from './build-box.js';
import { runApt, type BuildContext } from './build-context.js';
import { dpkgLines, missingLines } from './step-output.js';
import { aptStep, cleanStep } from './steps.js';

const LAYER_REPO = DEBIAN_LAYER.repo;
/** The layer's full key: a reuse is an exact match on it, never on the 12 digits of the tag. */
const DEBIAN_LAYER_LABEL = DEBIAN_LAYER.label;
const SAID_LABEL = 'piper.env.debian-said';

export interface DebianLayer {
  /** The image the next box starts FROM. */
  ref: string;
  /** Not kept (the bench's baseline: BuildInput.debianLayers false): the caller removes it after use. */
  intermediate: boolean;
  /** The apt step's result: run now, or restored from the kept layer (its `piper-dpkg`/`piper-missing` lines). */
  step: StepResult;
  reused: boolean;
}

/** The layer's key: the image it is made FROM and the apt step's script, which names the packages. */
function debianLayerKey(fromId: string, name: string, packages: readonly string[], strict: boolean): string {
  const script = aptStep(name, [...new Set(packages)].sort(), strict).script;
  return createHash('sha256')
    .update(JSON.stringify({ from: fromId, script }))
    .digest('hex');
}

/**
 * `packages` installed by apt on `fromRef`: the kept layer when the engine has one of this key,
 * else built (one build per key on this machine: the environment build lock) and kept. A failed
 * apt step is returned as it ran, for the caller's check; nothing is kept then.
 */
export async function debianLayer(
  ctx: BuildContext,
  fromRef: string,
  name: string,
  packages: readonly string[],
  strict: boolean,
): Promise<DebianLayer> {
  const { engine, log } = ctx.input;
  const sorted = [...new Set(packages)].sort();
  if (ctx.input.debianLayers === false) {
    const tag = ctx.intermediateTag(name === 'debian' ? 'debian' : 'apt-recipe');
    const ref = `${ctx.target.repo}:${tag}`;
    return buildLayer(ctx, { fromRef, ref, key: null, name, packages: sorted, strict });
  }
  const from = await engine.inspectImage(fromRef);
  if (!from) throw new Error(`the image ${fromRef} the Debian packages go on is gone`);
  const key = debianLayerKey(from.id, name, packages, strict);
  const ref = `${LAYER_REPO}:${key.slice(0, 12)}`;
  const kept = async () => (ctx.input.refreshAptLists ? null : keptLayer(ctx, ref, key, name));
  const hit = await kept();
  if (hit) return hit;
  const lock = await acquireBuildLock(`${LAYER_REPO}-${key.slice(0, 12)}`, { log });
  try {
    // Another process may have made it while this one waited.
    const made = lock.waited ? await kept() : null;
    if (made) return made;
    return await buildLayer(ctx, {
      fromRef,
      ref,
      key,
      name,
      packages: [...new Set(packages)].sort(),
      strict,
    });
  } finally {
    lock.release();
  }
}

async function keptLayer(
  ctx: BuildContext,
  ref: string,
  key: string,
  name: string,
): Promise<DebianLayer | null> {
  const found = await ctx.input.engine.inspectImage(ref);
  if (!found || found.labels[DEBIAN_LAYER_LABEL] !== key) return null;
  const stdout = decodeSaid(found.labels[SAID_LABEL]);
  if (stdout === null) return null;
  ctx.sources.push(`${name}: reused ${ref} (the same Debian packages on the same image)`);
  const record = {
    name,
    command: `reused ${ref}`,
    network: 'none',
    exit_code: 0,
    seconds: 0,
    output_tail: '',
  };
  // In the build's record as a step of its own, so the ledger says where the packages came from.
  ctx.steps.push(record);
  const step = { ...record, stdout };
  return { ref, intermediate: false, step, reused: true };
}

async function buildLayer(
  ctx: BuildContext,
  layer: {
    fromRef: string;
    ref: string;
    key: string | null;
    name: string;
    packages: string[];
    strict: boolean;
  },
): Promise<DebianLayer> {
  const { engine, log, pip } = ctx.input;
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  log(`environment ${ctx.target.ref}: Debian packages (${layer.packages.length}; network: ${network})`);
  const box = await BuildBox.start(engine, {
    image: layer.fromRef,
    network,
    labels: ctx.labels,
    log,
    redactor: pip.redactor,
  });
  try {
    const step = await runApt(ctx, box, layer.name, layer.packages, layer.strict);
    if (step.exit_code !== 0) return { ref: layer.fromRef, intermediate: false, step, reused: false };
    await box.run(cleanStep());
    const [repo, tag] = layer.ref.split(':') as [string, string];
    await box.commit({
      repo,
      tag,
      changes: layer.key
        ? [
            // One label a line: Podman's commit reads `LABEL a=1 b=2` as one label `a` of value `1 b=2`.
            `LABEL ${DEBIAN_LAYER_LABEL}=${layer.key}`,
            `LABEL ${SAID_LABEL}=${encodeSaid(step.stdout)}`,
          ]
        : [],
    });
    return { ref: layer.ref, intermediate: layer.key === null, step, reused: false };
  } finally {
    ctx.collect(box);
    ctx.removeLater(box);
  }
}

/** Only the lines a reader of the step uses (step-output.ts), compressed: a stack is a long list. */
function encodeSaid(stdout: string): string {
  const lines = [
    ...dpkgLines(stdout).map(([pkg, version]) => `piper-dpkg ${pkg} ${version}`),
    ...missingLines(stdout).map((pkg) => `piper-missing ${pkg}`),
  ];
  return packLabel(lines.join('\n'));
}

/** The kept lines, each checked for the shape apt's step prints; anything else is no reuse. */
function decodeSaid(label: string | undefined): string | null {
  if (label === undefined) return null;
  const text = label ? unpackLabel(label) : '';
  if (text === null) return null;
  const lines = text ? text.split('\n') : [];
  const shape = /^(piper-dpkg [a-z0-9][a-z0-9.+-]* [A-Za-z0-9.+~:-]+|piper-missing [a-z0-9][a-z0-9.+-]*)$/;
  return lines.every((l) => shape.test(l)) ? text : null;
}
