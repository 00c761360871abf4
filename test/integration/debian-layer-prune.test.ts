// `env prune`'s rule for Debian-package layers, on the real engine: they belong to no project, so
// the newest few are kept and the rest removed — except a layer an image stands on, which the
// engine refuses to remove and which stays until that image goes. The layers here are made by
// committing a never-started container of the sandbox image with the layer label (no apt needed),
// and the prune is narrowed to them.
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { DEBIAN_LAYER } from '../../runtime/env/floor/names.js';
import { pruneDebianLayers } from '../../runtime/env/choose/prune.js';
import { IMAGE, engine } from '../helpers/sandbox.js';

const RUN = `prune-${process.pid}`;
const made: string[] = [];

/** An image with the layer label, FROM `from`, tagged `piper-debian-packages:<tag>`. */
function layerImage(tag: string, from: string): string {
  const box = execFileSync('docker', ['create', from, 'true'], { encoding: 'utf8' }).trim();
  try {
    const ref = `${DEBIAN_LAYER.repo}:${tag}`;
    execFileSync('docker', ['commit', '--change', `LABEL ${DEBIAN_LAYER.label}=${RUN}`, box, ref], {
      stdio: 'ignore',
    });
    made.push(ref);
    return ref;
  } finally {
    execFileSync('docker', ['rm', box], { stdio: 'ignore' });
  }
}

afterAll(() => {
  for (const ref of made.reverse()) {
    try {
      execFileSync('docker', ['rmi', ref], { stdio: 'ignore' });
    } catch {
      // Already removed by the prune under test.
    }
  }
});

describe('env prune: Debian-package layers', () => {
  it('removes the layers nothing stands on and keeps the one an image is built on', async () => {
    const loose = layerImage(`${RUN}-loose`, IMAGE);
    const parent = layerImage(`${RUN}-parent`, IMAGE);
    // An environment-like image on top of the parent layer (its layer label emptied: no layer of this run).
    const child = `${DEBIAN_LAYER.repo}-child:${RUN}`;
    const box = execFileSync('docker', ['create', parent, 'true'], { encoding: 'utf8' }).trim();
    execFileSync('docker', ['commit', '--change', `LABEL ${DEBIAN_LAYER.label}=`, box, child], {
      stdio: 'ignore',
    });
    execFileSync('docker', ['rm', box], { stdio: 'ignore' });
    made.push(child);
    // Only this run's layers: other layers on a shared engine are other builds'.
    const removed = await pruneDebianLayers(engine, 0, [`${DEBIAN_LAYER.label}=${RUN}`]);
    const tags = removed.flatMap((i) => i.tags);
    expect(tags).toContain(loose);
    expect(tags).not.toContain(parent);
    expect(await engine.inspectImage(loose)).toBeNull();
    expect(await engine.inspectImage(parent)).not.toBeNull();
  });
});
