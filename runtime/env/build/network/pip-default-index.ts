// The index pip asks when none is configured, as the sandbox's own pip names it: piper names no
// index of its own, so a build dated against pip's default asks pip, in a box of the build's base
// image with no network (its pip module's PyPI.simple_url, the same attribute in pip 20.3 and 25).
import { ownerLabels } from '../../../sandbox/owner-labels.js';
import type { BuildInput } from '../build-context.js';
import { BuildBox } from '../build-box.js';

const ASK = `python3 -I -c 'from pip._internal.models.index import PyPI; print("piper-default-index", PyPI.simple_url)'`;

/** pip's default simple index URL, or null when the box's pip does not say one. */
export async function pipDefaultIndex(input: BuildInput): Promise<string | null> {
  const box = await BuildBox.start(input.engine, {
    image: input.base.ref,
    network: 'none',
    labels: { ...ownerLabels(input.owner), 'piper.env.build': input.key },
    log: input.log,
    confined: true,
  });
  try {
    const r = await box.run({ name: 'pip default index', script: ASK, timeoutS: 60, quiet: true });
    const url = /^piper-default-index (https?:\/\/\S+)$/m.exec(r.stdout)?.[1];
    return r.exit_code === 0 && url ? url : null;
  } finally {
    await box.remove();
  }
}
