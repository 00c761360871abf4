// `piper-agent image build|ls`: the sandbox image from sandbox-images/python.
import { parseArgs } from 'node:util';
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import { ensureImage, listSandboxImages } from '../../runtime/images/build.js';
import { RECIPE_LABEL, loadRecipe } from '../../runtime/images/recipe.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { buildFlags } from '../image-build-flags.js';

export const IMAGE_HELP = `Usage: piper-agent image build [--force] [--dockerfile] | ls [--json]

  build         build the sandbox image (Python 3, pytest, an unprivileged user) unless an image
                of the current recipe (sandbox-images/python, hashed) exists. Offline by default:
                debootstrap a Debian root filesystem from the mirror apt uses and import it
                through the engine API. Needs root the first time (debootstrap).
    --force       build even when an image of this recipe exists
    --dockerfile  build from sandbox-images/python/Dockerfile instead (pulls debian:bookworm-slim)
  ls            the sandbox images on the engine, with their digests; * marks the current recipe's`;

export async function imageCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (sub === 'build') {
    const { engine } = await connectEngine();
    const result = await ensureImage(engine, { ...buildFlags(rest), log });
    const how = result.skipped
      ? 'up to date (recipe unchanged; --force rebuilds)'
      : `built in ${result.seconds.toFixed(1)} s`;
    process.stdout.write(`${result.ref} ${result.imageId} ${how}\n`);
    return EXIT.ok;
  }
  if (sub === 'ls') {
    const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean', default: false } } });
    const { engine } = await connectEngine();
    const current = loadRecipe();
    const images = await listSandboxImages(engine);
    if (values.json) {
      const rows = images.map((i) => ({
        ...i,
        recipe_hash: i.labels[RECIPE_LABEL],
        current: i.labels[RECIPE_LABEL] === current.hash,
      }));
      process.stdout.write(`${JSON.stringify(rows)}\n`);
      return EXIT.ok;
    }
    if (!images.length) process.stdout.write('no sandbox images; run `piper-agent image build`\n');
    for (const i of images) {
      const mark = i.labels[RECIPE_LABEL] === current.hash ? '*' : ' ';
      const created = new Date(i.created * 1000).toISOString().slice(0, 16).replace('T', ' ');
      process.stdout.write(
        `${mark} ${i.tags.join(',') || '<untagged>'}  ${i.id}  ${(i.size / 1e6).toFixed(0)} MB  ${created}\n`,
      );
    }
    return EXIT.ok;
  }
  throw new UsageError(sub ? `unknown image command '${sub}'` : 'image needs a command: build or ls');
}
