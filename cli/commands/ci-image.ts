// `piper-agent ci-image build|ls`: the image that runs piper-agent itself in CI (docker/).
import { parseArgs } from 'node:util';
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import type { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { isRuntimeError } from '../../runtime/errors.js';
import {
  CI_HASH_LABEL,
  CI_VERSION_LABEL,
  currentCiHash,
  ensureCiImage,
  listCiImages,
} from '../../runtime/images/ci-image.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { buildFlags } from '../image-build-flags.js';

export const CI_IMAGE_HELP = `Usage: piper-agent ci-image build [--force] [--dockerfile] | ls [--json]

  build         build the image that runs piper-agent in CI (piper-agent-ci:<hash>, also tagged
                :latest and :<version>) unless one of the current app files exists. Offline by
                default, no registry needed: a base image (docker/Dockerfile.offline-base: the
                sandbox image's root filesystem, this machine's node and git, the production
                packages; the sandbox image is built first when missing), then the compiled app
                on top (docker/Dockerfile.offline; run \`make build\` first).
    --force       build even when an image of these files exists
    --dockerfile  build from docker/Dockerfile instead (pulls node:20-bookworm-slim, runs npm ci)
  ls            the CI images on the engine; * marks the offline build of the current app files

Running it in CI, from the checkout to fix (sandboxes run on the host's engine, beside it):
  docker run --rm --init -v /var/run/docker.sock:/var/run/docker.sock -v "$PWD":/repo \\
    -e CI=true -e OPENAI_API_KEY piper-agent-ci:latest fix --test TARGET --output json ISSUE`;

export async function ciImageCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (sub === 'build') {
    const { engine } = await connectEngine();
    const result = await ensureCiImage(engine, { ...buildFlags(rest), log });
    if (result.base) log(`base ${result.base.ref} ${result.base.skipped ? 'reused' : 'built'}`);
    const how = result.skipped
      ? 'up to date (app files unchanged; --force rebuilds)'
      : `built in ${result.seconds.toFixed(1)} s`;
    process.stdout.write(`${result.ref} ${result.imageId} ${how}\n`);
    return EXIT.ok;
  }
  if (sub === 'ls') {
    const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean', default: false } } });
    const { engine } = await connectEngine();
    const images = await listCiImages(engine);
    const current = await currentHash(engine);
    if (values.json) {
      const rows = images.map((i) => ({
        ...i,
        hash: i.labels[CI_HASH_LABEL],
        current: i.labels[CI_HASH_LABEL] === current,
      }));
      process.stdout.write(`${JSON.stringify(rows)}\n`);
      return EXIT.ok;
    }
    if (!images.length) process.stdout.write('no CI images; run `piper-agent ci-image build`\n');
    for (const i of images) {
      const mark = current && i.labels[CI_HASH_LABEL] === current ? '*' : ' ';
      const created = new Date(i.created * 1000).toISOString().slice(0, 16).replace('T', ' ');
      const version = i.labels[CI_VERSION_LABEL] ?? '?';
      process.stdout.write(
        `${mark} ${i.tags.join(',') || '<untagged>'}  ${i.id}  v${version}  ${(i.size / 1e6).toFixed(0)} MB  ${created}\n`,
      );
    }
    return EXIT.ok;
  }
  throw new UsageError(sub ? `unknown ci-image command '${sub}'` : 'ci-image needs a command: build or ls');
}

/** The offline hash of the current app files, or null when it cannot be known (nothing built yet, no dist/). */
async function currentHash(engine: DockerEngine): Promise<string | null> {
  try {
    return await currentCiHash(engine);
  } catch (error) {
    if (isRuntimeError(error, 'image_build_failed')) return null;
    throw error;
  }
}
