// `piper-agent env plan|build|ls|prune|shell`: the per-project environment — what would be
// installed and why, building it, the images on the engine, removing old ones, and a shell in a
// network-less sandbox of it for a person debugging a failing test.
import { parseArgs } from 'node:util';
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { renderPlanJson, renderPlanText } from '../../runtime/env/plan/render.js';
import {
  listEnvImages,
  pruneAllEnvImages,
  pruneDebianLayers,
  pruneOldBaseImages,
} from '../../runtime/env/choose/prune.js';
import { declarationsKey, imageKey } from '../../runtime/env/choose/key.js';
import { redactSpec } from '../../runtime/env/spec/spec-schema.js';
import { prepareSpec } from '../../runtime/env/spec/prepare-spec.js';
import { stepCatalog } from '../../runtime/env/build/step-catalog.js';
import { repoRoot } from '../../runtime/host/git.js';
import { startShellContainer } from '../../runtime/sandbox/shell-container.js';
import { snapshotTar } from '../../runtime/workspace/snapshot.js';
import { ENV_FLAG_HELP, ENV_PARSE_OPTIONS, environmentFlags } from '../../core/env-option.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { inert, inertJson } from '../../runtime/text/inert.js';
import { detectLanguage } from '../../runtime/language/detect-language.js';
import { jsPlanOutput } from './env-js-plan.js';
import { openSession } from '../../core/session.js';
import { shortfallLine, type Shortfall } from '../../runtime/env/build/shortfall.js';
import { listEnvironments } from '../../runtime/ledger/environments.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { ledgerPath } from '../../runtime/ledger/location.js';
import { existsSync } from 'node:fs';
import type { EnvPlan } from '../../runtime/env/plan/types.js';
import { pluginsFromSentence } from '../../runtime/env/build/project/pytest-entry-points.js';
import { pytestRunEnv } from '../../runtime/env/run/pytest-run-env.js';

/** Debian-package layers kept by `env prune` (those an environment stands on stay anyway). */
const DEBIAN_LAYERS_KEPT = 8;

export const ENV_HELP = `Usage: piper-agent env plan|build|ls|prune|shell [options]

The project environment: an image FROM the sandbox image with the project's runtime and test
dependencies in a venv (Debian's packages stay visible) and the project installed editable against
the workspace, so run_test imports it as its own tests do. Detected from pyproject.toml
([project].dependencies, optional-dependencies / dependency-groups test|tests|testing|dev),
requirements*.txt, setup.cfg and tox.ini; .piper/sandbox.toml overrides (see docs/environments.md). Built
before the first sandbox of fix, run-test, execute and ab, and reused while its inputs are unchanged.

  plan [--json]        what would be installed, from which file and why; no engine, no build.
                       --json adds \`build\`: the build spec (every step's script, pip's sources
                       without credentials, the facts read for the build) and the image keys,
                       which are its hashes
  build [--rebuild]    build it now (or reuse it); prints the image, key, sources and versions
  ls [--json]          environment images on the engine (* marks this repository's)
  prune [--all]        remove environment images beyond the newest 3 of each project (--all: every
                       one), Debian-package layers beyond the newest 8 (--all: every one; a layer
                       an environment image stands on stays), and sandbox and CI images of older
                       recipes
  shell [--env MODE]   an interactive shell in a network-less sandbox of the environment with a
                       snapshot of the workspace at /work; nothing you do there reaches your files

  --repo DIR           the repository (default: the git root of the current directory)
  --ledger PATH        ledger file (default: the repository's own, in ~/.local/state/piper-agent/ledgers/)
${ENV_FLAG_HELP}

Sources, in order, each recorded in the ledger: pip with your own configuration (pip.conf's
index-url / extra-index-url / find-links / trusted-host, then PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,
PIP_FIND_LINKS; pip's default index when none is set), then Debian's packages for whatever is
still unmet (PyPI names mapped with dh-python's map, versions checked against the specifier).
With --sources index (the default) every declared requirement goes to pip, even one a Debian
package in the image would meet; when the index does not answer, the image is a fallback build
from Debian's packages (label piper.env.sources=debian-fallback), said in one line and built
again once the index answers. --sources debian never asks an index (find-links only).
Best effort: a requirement no source meets at its specifier is installed at the nearest version a
source has (relaxed), one no source has is left out (missing); each is one line in the output,
the ledger and \`env plan\`. --env strict (or \`strict = true\` in the recipe) fails instead.
Only the dependency step has a network, and it runs no repository code; the repository's wheels,
its build and every run have none, and no credential reaches them (docs/security.md).

Debian's package lists, apt's cache of them and the .debs a build downloaded are kept for the next
build in ~/.cache/piper-agent/apt/SUITE (XDG_CACHE_HOME): the lists are used while under 6 hours
old (PIPER_APT_LISTS_MAX_AGE_H=HOURS; 0, or \`env build --rebuild\`, fetches them again). No image
holds any of it.

Exit status: 0 ok, 2 bad usage or an environment that cannot be built, 5 no Docker engine.`;

export async function envCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      repo: { type: 'string' },
      ledger: { type: 'string' },
      json: { type: 'boolean', default: false },
      rebuild: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      ...ENV_PARSE_OPTIONS,
    },
    strict: true,
    allowPositionals: false,
  });
  const repo = values.repo ?? repoRoot();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  switch (sub) {
    case 'plan': {
      // Repository text reaches the terminal: made inert; the JSON form is exact (and redacted).
      if (detectLanguage(repo).id === 'javascript')
        out(values.json ? inertJson(jsPlanOutput(repo, true)) : inert(jsPlanOutput(repo, false)));
      else if (values.json) out(inertJson(planJson(repo, values)));
      else {
        const plan = planEnvironment(repo);
        out(inert(renderPlanText(plan) + lastBuildText(ledgerPath({ flag: values.ledger, repo }), plan)));
      }
      return EXIT.ok;
    }
    case 'build':
      return build(repo, values, log);
    case 'ls':
      return list(repo, values.json);
    case 'prune': {
      const { engine } = await connectEngine();
      const envs = await pruneAllEnvImages(engine, values.all ? 0 : 3);
      const layers = await pruneDebianLayers(engine, values.all ? 0 : DEBIAN_LAYERS_KEPT);
      const bases = await pruneOldBaseImages(engine);
      for (const i of [...envs, ...layers, ...bases]) out(`removed ${i.tags[0] ?? i.id}`);
      out(
        `removed ${envs.length} environment image(s), ${layers.length} Debian-package layer(s) and ${bases.length} old sandbox/CI image(s)`,
      );
      return EXIT.ok;
    }
    case 'shell':
      return shell(repo, values, log);
    default:
      throw new UsageError(
        sub ? `unknown env subcommand '${sub}'` : 'env needs a subcommand: plan, build, ls, prune or shell',
      );
  }
}

const out = (text: string) => process.stdout.write(`${text}\n`);

/** The plan, and the build spec this command's trust and mode give with its keys (both redacted). */
function planJson(
  repo: string,
  values: { env?: string; sources?: string; 'trust-repo-config'?: boolean },
): string {
  const { mode, trustRecipe, sources } = environmentFlags(repo, values);
  const { spec, plan } = prepareSpec({
    repoRoot: repo,
    trustRecipe,
    strict: mode === 'strict',
    env: process.env,
    ...(sources ? { sources } : {}),
    steps: stepCatalog(),
  });
  const build = {
    image_key: imageKey(spec),
    declarations_key: declarationsKey(spec),
    spec: redactSpec(spec),
  };
  return JSON.stringify({ ...(JSON.parse(renderPlanJson(plan)) as object), build }, null, 2);
}

/** `env build`: the environment the sandboxes would run in, built or reused, and what went in. */
async function build(
  repo: string,
  values: {
    ledger?: string;
    json: boolean;
    rebuild: boolean;
    env?: string;
    sources?: string;
    'trust-repo-config'?: boolean;
  },
  log: (line: string) => void,
): Promise<number> {
  const session = await openSession({
    repo,
    ledger: values.ledger,
    log,
    environment: {
      ...environmentFlags(repo, values),
      ...(values.rebuild ? { mode: 'rebuild' as const } : {}),
    },
  });
  try {
    const env = session.environment!;
    if (values.json) {
      out(
        JSON.stringify({
          status: env.status,
          image: env.image,
          key: env.key,
          seconds: env.seconds,
          sources: env.sources,
          resolved: env.resolved,
          shortfalls: env.shortfalls,
        }),
      );
    } else {
      out(
        `${env.status}: ${env.image}${env.key ? ` (key ${env.key.slice(0, 12)})` : ''} in ${env.seconds.toFixed(1)} s`,
      );
      // Sources quote pip's words and versions come from packages: inert on a terminal.
      for (const s of env.sources) out(inert(`  source ${s}`));
      for (const r of env.resolved) out(inert(`  ${r.name} ${r.version} (${r.source})`));
      for (const f of env.shortfalls) out(inert(`  ${shortfallLine(f)}`));
    }
    return EXIT.ok;
  } finally {
    await session.close();
  }
}

/** `env ls`: every environment image on the engine, newest first, this repository's starred. */
async function list(repo: string, json: boolean): Promise<number> {
  const { engine } = await connectEngine();
  const mine = projectId(repo);
  const images = (await listEnvImages(engine)).sort((a, b) => b.created - a.created);
  if (json) {
    out(JSON.stringify(images.map((i) => ({ ...i, this_repo: i.labels[ENV_LABEL.project] === mine }))));
    return EXIT.ok;
  }
  if (!images.length) out('no environment images; `piper-agent env build` makes one');
  for (const i of images) {
    const star = i.labels[ENV_LABEL.project] === mine ? '*' : ' ';
    const when = new Date(i.created * 1000).toISOString().replace('T', ' ').slice(0, 16);
    out(
      `${star} ${(i.tags[0] ?? i.id.slice(7, 19)).padEnd(40)} ${(i.size / 1e6).toFixed(0).padStart(5)} MB  ${when}`,
    );
  }
  return EXIT.ok;
}

async function shell(
  repo: string,
  values: { ledger?: string; env?: string; sources?: string; 'trust-repo-config'?: boolean },
  log: (line: string) => void,
): Promise<number> {
  if (!process.stdin.isTTY) throw new UsageError('env shell needs a terminal (standard input is not one)');
  const session = await openSession({
    repo,
    ledger: values.ledger,
    log,
    environment: environmentFlags(repo, values),
  });
  let id: string | null = null;
  try {
    const snapshot = snapshotTar(repo);
    id = await startShellContainer(session.engine, {
      image: session.sandbox.image,
      workspace: snapshot.tar,
      runtime: session.sandbox.runtime,
    });
    log(
      `shell in ${session.sandbox.image}: no network, /work is a snapshot (${snapshot.files.length} files); exit to leave`,
    );
    const shellExec = await session.engine.execInteractive(id, {
      cmd: ['bash', '-i'],
      workdir: '/work',
      env: ['PS1=sandbox:\\w$ '],
    });
    const stdin = process.stdin;
    const resize = () => void shellExec.resize(process.stdout.rows ?? 24, process.stdout.columns ?? 80);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.pipe(shellExec.stream);
    shellExec.stream.pipe(process.stdout);
    process.stdout.on('resize', resize);
    resize();
    await new Promise<void>((resolve) => {
      shellExec.stream.on('end', resolve);
      shellExec.stream.on('close', resolve);
    });
    process.stdout.off('resize', resize);
    stdin.unpipe(shellExec.stream);
    stdin.setRawMode(false);
    stdin.pause();
    return await shellExec.exitCode();
  } finally {
    if (id) await session.engine.remove(id).catch(() => undefined);
    await session.close();
  }
}

/** The newest build the ledger recorded for this repository, and what its best effort gave up on. */
function lastBuildText(path: string, plan: EnvPlan): string {
  if (!existsSync(path)) return '';
  let ledger: Ledger;
  try {
    ledger = Ledger.open(path);
  } catch {
    return ''; // A ledger this version cannot read says nothing here; `ledger` commands explain.
  }
  try {
    const last = listEnvironments(ledger, 50).find((r) => r.status === 'built' || r.status === 'failed');
    if (!last) return '';
    const lines = [`\nLast build (${last.createdAt}, key ${last.key?.slice(0, 12) ?? '-'}): ${last.status}`];
    for (const f of last.shortfalls as Shortfall[]) lines.push(`  ${shortfallLine(f)}`);
    // How pytest runs in it: which plugins load, and a --strict-config dropped for a missing one.
    const plugins = last.status === 'built' ? pluginsFromSentence(last.sources) : null;
    const run = pytestRunEnv(plan, plugins, last.shortfalls as Shortfall[], '');
    for (const note of run.notes) lines.push(`  ${note}`);
    if (last.error) lines.push(`  ${last.error.split('\n')[0]}`);
    return `${lines.join('\n')}\n`;
  } finally {
    ledger.close();
  }
}
