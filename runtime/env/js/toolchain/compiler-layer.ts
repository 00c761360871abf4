// Debian's C++ compiler for node-gyp, a layer of its own under every toolchain: the sandbox image
// has python3 and make, not g++. apt only, from the image's Debian sources, no npm package and no
// repository file, so it is keyed by the sandbox image alone and shared by every Node and manager
// version (a new toolchain does not install it again).
import { createHash } from 'node:crypto';
import type { DockerEngine } from '../../../engine/docker-engine.js';
import { RuntimeError } from '../../../errors.js';
import { acquireBuildLock } from '../../../host/build-lock.js';
import { ownerLabels } from '../../../sandbox/owner-labels.js';
import { BuildBox } from '../../build/build-box.js';
import { aptStep, cleanStep } from '../../build/steps.js';

const REPO = 'piper-js-toolchain';
const LABEL = 'piper.js.compiler';
const STEPS = [aptStep('compiler', ['g++'], true), cleanStep()];

export interface Layer {
  ref: string;
  id: string;
}

export async function ensureCompilerLayer(
  engine: DockerEngine,
  base: Layer,
  owner: string,
  log: (line: string) => void,
): Promise<Layer> {
  const key = createHash('sha256')
    .update(JSON.stringify({ base: base.id, scripts: STEPS.map((s) => s.script) }))
    .digest('hex');
  const ref = `${REPO}:cc-${key.slice(0, 12)}`;
  const found = async () => {
    const info = await engine.inspectImage(ref);
    return info && info.labels[LABEL] === key ? { ref, id: info.id } : null;
  };
  const hit = await found();
  if (hit) return hit;
  const lock = await acquireBuildLock(`${REPO}-cc-${key}`, { log });
  try {
    return (lock.waited ? await found() : null) ?? (await build(engine, base, { key, ref, owner, log }));
  } finally {
    lock.release();
  }
}

async function build(
  engine: DockerEngine,
  base: Layer,
  at: { key: string; ref: string; owner: string; log: (line: string) => void },
): Promise<Layer> {
  at.log(`the JavaScript toolchain's compiler layer (g++ from Debian): building ${at.ref}`);
  const box = await BuildBox.start(engine, {
    image: base.ref,
    network: (await engine.hasBridgeNetwork()) ? 'bridge' : 'host',
    labels: { ...ownerLabels(at.owner), [LABEL]: at.key },
    log: at.log,
  });
  try {
    for (const step of STEPS) {
      const r = await box.run(step);
      if (r.exit_code !== 0)
        throw new RuntimeError(
          'env_build_failed',
          `the compiler layer's step ${step.name} failed (exit ${r.exit_code}): ${r.output_tail.slice(-600)}`,
        );
    }
    const [repo, tag] = at.ref.split(':') as [string, string];
    const id = await box.commit({ repo, tag, changes: [`LABEL ${LABEL}=${at.key}`] });
    return { ref: at.ref, id };
  } finally {
    await box.remove();
  }
}
