// Debian's packages onto an image into which downloaded code was installed (the dependency image:
// the compiler the project's build needs; a top-up's packages), with no network where that code is
// (downloaded-code.ts). apt resolves and downloads them in a networked box of the sandbox image,
// which holds nothing downloaded — every package the image could lack, since the dependency image
// adds no Debian package to the layers under it but through this step —, and installs them from
// those files in a box of the image with no network: apt's scripts run there as they would have,
// only without a network. A package apt would still need to fetch fails that step, as a fetch
// failure would have.
import { Readable } from 'node:stream';
import { BuildBox, type StepResult, type StepSpec } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import { missingLines } from '../step-output.js';
import { APT_CACHE_REBUILT, APT_DEBS_FETCHED, aptStep, shQuote } from '../steps.js';

const LISTS = '/var/lib/apt/lists';
/** The packages to carry, gathered apart from the build's kept ones (apt-cache.ts) that are not. */
const CARRIED = '/var/cache/piper-offline/archives';
/** Debian's packages for one step, as a tar in memory: a compiler and its headers are under 200 MB. */
const MAX_DEBS = 2 * 1024 ** 3;
const MAX_LISTS = 256 << 20;

/**
 * The packages apt would install here (`apt-get -s`: `Inst NAME [OLD] (VERSION ... [ARCH])`), linked
 * by their archive name (`NAME_VERSION_ARCH.deb`, `:` as `%3a`) into CARRIED; when one of them is
 * not found under that name, every package in apt's archives instead.
 */
export function carriedDebsStep(packages: string[]): StepSpec {
  const list = packages.map(shQuote).join(' ');
  const archiveName = String.raw`s/^Inst \([^ ]*\) \(\[[^]]*\] \)\?(\([^ ]*\) .*\[\([^],]*\)\])$/\1_\3_\4.deb/p`;
  const script = [
    'set -e',
    `mkdir -p ${CARRIED}`,
    'cd /var/cache/apt/archives',
    `apt-get install -s -qq --no-install-recommends ${list} | sed -n '${archiveName}' | sed 's/:/%3a/g' >/tmp/piper-debs`,
    // Nothing listed (apt said nothing parseable) counts as not found.
    '[ -s /tmp/piper-debs ] && all=1 || all=0',
    `while read -r f; do ln -f "$f" ${CARRIED}/ 2>/dev/null || all=0; done </tmp/piper-debs`,
    `[ "$all" = 1 ] || ln -f ./*.deb ${CARRIED}/ 2>/dev/null || true`,
    `echo "piper-carried $(ls ${CARRIED} | grep -c '\\.deb$' || true) $all"`,
  ];
  return { name: 'carried packages', script: script.join('\n'), timeoutS: 120, quiet: true };
}

/**
 * `packages` installed on `image` with no network: the box (the caller cleans and commits it) and
 * the offline apt step's result (its `piper-dpkg`/`piper-missing` lines); or no box and the
 * download's result, when that failed.
 */
export async function aptOffline(
  ctx: BuildContext,
  image: string,
  name: string,
  packages: string[],
  strict: boolean,
): Promise<{ box: BuildBox | null; step: StepResult }> {
  const { engine, log } = ctx.input;
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  log(`environment ${ctx.target.ref}: ${name}: Debian's packages downloaded (network: ${network})`);
  const net = await BuildBox.start(engine, { image: ctx.input.base.ref, network, labels: ctx.labels, log });
  let files: { debs: Buffer | null; lists: Buffer };
  try {
    const fresh = await ctx.apt.prime(net);
    const fetched = await net.run(aptStep(name, packages, strict, !fresh, true));
    if (fetched.exit_code !== 0) return { box: null, step: fetched };
    const said = new Set(fetched.stdout.split('\n'));
    await ctx.apt.save(net, {
      lists: !fresh,
      binaryCache: said.has(APT_CACHE_REBUILT),
      debs: said.has(APT_DEBS_FETCHED),
    });
    const missing = new Set(missingLines(fetched.stdout));
    const available = packages.filter((p) => !missing.has(p));
    let debs: Buffer | null = null;
    if (available.length) {
      ctx.check(await net.run(carriedDebsStep(available)), `${name} (carried packages)`);
      debs = await net.read(CARRIED, MAX_DEBS);
    }
    files = { debs, lists: await net.read(`${LISTS}/.`, MAX_LISTS) };
  } finally {
    ctx.collect(net);
    ctx.removeLater(net);
  }
  log(`environment ${ctx.target.ref}: ${name}: installed from the downloaded files (network: none)`);
  const box = await BuildBox.start(engine, { image, network: 'none', labels: ctx.labels, log });
  try {
    // The tar's top directory is `archives`: apt's own, under /var/cache/apt.
    if (files.debs) await box.put('/var/cache/apt', Readable.from([files.debs]));
    await box.put(LISTS, Readable.from([files.lists]));
    // The lists as they were fetched: no update (there is no network to update from).
    return { box, step: await box.run(aptStep(name, packages, strict, false)) };
  } catch (error) {
    ctx.collect(box);
    await box.remove();
    throw error;
  }
}
