// `piper-agent image build|ls`: the sandbox image from sandbox-images/python.
import { parseArgs } from 'node:util';
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import { ensureImage, listSandboxImages } from '../../runtime/images/build.js';
import { RECIPE_LABEL, SUITE_PYTHON, isSuite, loadRecipe, type Suite } from '../../runtime/images/recipe.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { buildFlags } from '../image-build-flags.js';

export const IMAGE_HELP = `Usage: piper-agent image build [--force] [--dockerfile] [--suite S] | ls [--json]

  build         build the sandbox image (Python 3, pytest, venv/pip, an unprivileged user) unless
                the image piper built from the current recipe (sandbox-images/python, hashed with
                the suite) is there. Offline by default: debootstrap a Debian root filesystem from
                the mirror apt uses and import it through the engine API. Needs root the first
                time (debootstrap). An image that only carries the recipe label (one built FROM
                the sandbox image) is never taken for it: piper records the id of what it built.
    --force       build even when an image of this recipe exists
    --dockerfile  build from sandbox-images/python/Dockerfile instead (pulls debian:<suite>-slim)
    --suite S     the Debian suite: trixie (Python 3.13, the default), bookworm (Python 3.11) or
                bullseye (Python 3.9)
  ls            the sandbox images on the engine, with their digests; * marks the current recipe's
                (either suite); an image carrying the label that piper did not build is listed as
                "not built by piper: ignored"`;

/** `--suite S` / `--suite=S` taken out of the build flags (the rest are shared with ci-image). */
function takeSuite(args: string[]): { suite: Suite | undefined; rest: string[] } {
  const rest: string[] = [];
  let suite: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--suite') {
      suite = args[++i];
      if (suite === undefined) throw new UsageError('--suite needs a value: trixie, bookworm or bullseye');
    } else if (arg.startsWith('--suite=')) suite = arg.slice('--suite='.length);
    else rest.push(arg);
  }
  if (suite !== undefined && !isSuite(suite))
    throw new UsageError(`unknown suite '${suite}': use ${Object.keys(SUITE_PYTHON).join(' or ')}`);
  return { suite, rest };
}

export async function imageCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (sub === 'build') {
    const { suite, rest: flags } = takeSuite(rest);
    const { engine } = await connectEngine();
    const result = await ensureImage(engine, { ...buildFlags(flags), suite, log });
    const how = result.skipped
      ? 'up to date (recipe unchanged; --force rebuilds)'
      : `built in ${result.seconds.toFixed(1)} s`;
    process.stdout.write(`${result.ref} ${result.imageId} ${how}\n`);
    return EXIT.ok;
  }
  if (sub === 'ls') {
    const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean', default: false } } });
    const { engine } = await connectEngine();
    const current = new Map(
      Object.keys(SUITE_PYTHON).map((suite) => {
        const recipe = loadRecipe({ suite: suite as Suite });
        return [recipe.hash, recipe.suite] as const;
      }),
    );
    const images = await listSandboxImages(engine);
    if (values.json) {
      const rows = images.map((i) => ({
        ...i,
        recipe_hash: i.labels[RECIPE_LABEL],
        suite: current.get(i.labels[RECIPE_LABEL] ?? '') ?? null,
        current: current.has(i.labels[RECIPE_LABEL] ?? '') && i.builtByPiper,
      }));
      process.stdout.write(`${JSON.stringify(rows)}\n`);
      return EXIT.ok;
    }
    if (!images.length) process.stdout.write('no sandbox images; run `piper-agent image build`\n');
    for (const i of images) {
      const suite = current.get(i.labels[RECIPE_LABEL] ?? '');
      const mark = suite && i.builtByPiper ? '*' : ' ';
      const created = new Date(i.created * 1000).toISOString().slice(0, 16).replace('T', ' ');
      const note = !i.builtByPiper ? '  not built by piper: ignored' : suite ? `  ${suite}` : '';
      process.stdout.write(
        `${mark} ${i.tags.join(',') || '<untagged>'}  ${i.id}  ${(i.size / 1e6).toFixed(0)} MB  ${created}${note}\n`,
      );
    }
    return EXIT.ok;
  }
  throw new UsageError(sub ? `unknown image command '${sub}'` : 'image needs a command: build or ls');
}
