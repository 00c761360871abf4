// `piper-agent doctor`: each part piper-agent needs, as ok or problem with how to fix it.
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { probeEngine } from '../../runtime/engine/bootstrap.js';
import { DockerEngine, engineEndpoint } from '../../runtime/engine/docker-engine.js';
import type { EngineInfo } from '../../runtime/engine/engine-types.js';
import { describeEngine, type EngineIdentity } from '../../runtime/engine/engine-identity.js';
import { repoRoot } from '../../runtime/host/git.js';
import { isRuntimeError } from '../../runtime/errors.js';
import { findImage } from '../../runtime/images/build.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { ledgerPath } from '../../runtime/ledger/location.js';
import {
  ACCEPT_UNENFORCED_ENV,
  enforcementFix,
  probeHardening,
  type HardeningReport,
} from '../../runtime/sandbox/enforcement.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { chooseRuntime, SANDBOX_RUNTIME_ENV } from '../../runtime/sandbox/sandbox-runtime.js';
import { loadConfig } from '../../core/config.js';
import { checkModel } from '../doctor/model-check.js';
import { oomCheck } from '../doctor/oom-check.js';
import { EXIT } from '../../core/exit-codes.js';

export const DOCTOR_HELP = `Usage: piper-agent doctor [--json] [--repo DIR] [--ledger PATH]

Checks the engine (Docker or Podman, rootful or rootless), the sandbox image, whether the engine
applies every hardening setting of the sandbox (on any engine but rootful Docker: read back from a
container created and removed for the purpose; a setting it cannot apply is listed, and refuses
runs unless accepted in ${ACCEPT_UNENFORCED_ENV}), the sandbox runtime (the runtimes the engine offers and
the one sandboxes use: PIPER_SANDBOX_RUNTIME or the sandboxRuntime key, else the engine's default),
whether the engine reports out-of-memory kills (Podman before 5.0 does not: such a run is reported
as killed by SIGKILL, with the memory limit as the likely cause), the ledger and the model (one cheap request: the models list, or a 1-token completion; a refused
key, an unreachable URL and an unknown model are each named), and says for each whether it is ok
and, where not, how to fix it. Exit status 0 when all are ok, 1 otherwise.`;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
  /** runtime: what the engine offers and what sandboxes use (null: not usable). */
  runtimes?: { offered: string[]; default: string; sandboxes: string | null };
  /** engine: which engine answers. */
  identity?: EngineIdentity;
  /** hardening: the settings the engine cannot apply, and those of them accepted. */
  hardening?: { probed: boolean; unenforced: HardeningReport['unenforced']; accepted: string[] };
  /** oom: whether a memory kill is reported as one. */
  reported?: boolean;
}

export async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      repo: { type: 'string' },
      ledger: { type: 'string' },
    },
  });
  const engine = new DockerEngine();
  const info = await probeEngine(engine).catch(() => null);
  const identity = info ? await engine.identity().catch(() => null) : null;
  const checks: Check[] = [engineCheck(info, identity)];
  const recipe = loadRecipe();
  checks.push(await imageCheck(info ? engine : null, recipe));
  const repo = values.repo ?? repoRoot();
  if (info) checks.push(await runtimeCheck(engine, repo));
  if (info) checks.push(await hardeningCheck(engine, recipe.ref, wantedRuntime(repo)));
  if (identity) checks.push(oomCheck(identity));
  checks.push(ledgerCheck(ledgerPath({ flag: values.ledger, repo })));
  checks.push(await checkModel({ repo }));
  printChecks(checks, values.json);
  return checks.every((c) => c.ok) ? EXIT.ok : EXIT.failure;
}

/** Which engine answers, or how to get one. */
function engineCheck(info: EngineInfo | null, identity: EngineIdentity | null): Check {
  return info
    ? {
        name: 'engine',
        ok: true,
        detail: identity
          ? describeEngine(identity)
          : `Docker ${info.version}, API ${info.apiVersion} (${info.os}) at ${info.endpoint}`,
        ...(identity ? { identity } : {}),
      }
    : {
        name: 'engine',
        ok: false,
        detail: `no Docker engine answers at ${engineEndpoint()}`,
        fix: 'run `piper-agent engine up` as root (installs and starts dockerd), or set DOCKER_HOST',
      };
}

/** Whether the sandbox image of the current recipe is built (`engine` null: no engine answers). */
async function imageCheck(
  engine: DockerEngine | null,
  recipe: ReturnType<typeof loadRecipe>,
): Promise<Check> {
  if (!engine)
    return {
      name: 'image',
      ok: false,
      detail: `${recipe.ref}: unknown, no engine`,
      fix: 'start the engine first',
    };
  const image = await findImage(engine, recipe.hash);
  return image
    ? { name: 'image', ok: true, detail: `${recipe.ref} ${image.id}` }
    : {
        name: 'image',
        ok: false,
        detail: `${recipe.ref} is not built`,
        fix: 'run `piper-agent image build`',
      };
}

function printChecks(checks: Check[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok: checks.every((c) => c.ok), checks })}\n`);
    return;
  }
  for (const c of checks) {
    process.stdout.write(`${c.ok ? 'ok     ' : 'problem'}  ${c.name.padEnd(7)} ${c.detail}\n`);
    if (c.fix) process.stdout.write(`         ${''.padEnd(7)} fix: ${c.fix}\n`);
  }
}

/**
 * The ledger as it is, never created: doctor looks, so run in a directory that is not a
 * repository (or one piper never ran in) it leaves nothing behind. A missing file is fine when
 * the first run could create it.
 */
function ledgerCheck(path: string): Check {
  if (!existsSync(path)) {
    const writable = nearestWritable(dirname(path));
    return writable
      ? { name: 'ledger', ok: true, detail: `${path} does not exist yet; the first run here creates it` }
      : {
          name: 'ledger',
          ok: false,
          detail: `${path} does not exist and cannot be created: ${dirname(path)} is not writable`,
          fix: 'point --ledger or PIPER_LEDGER at a writable path',
        };
  }
  try {
    const ledger = Ledger.open(path);
    const detail = `${path} (schema v${ledger.schemaVersion}, ${ledger.journalMode})`;
    ledger.close();
    return { name: 'ledger', ok: true, detail };
  } catch (error) {
    return {
      name: 'ledger',
      ok: false,
      detail: (error as Error).message,
      fix: isRuntimeError(error, 'ledger_refused')
        ? error.fix
        : 'point --ledger or PIPER_LEDGER at a writable path',
    };
  }
}

/** Whether the nearest existing directory at or above `dir` may be written: where mkdir -p starts. */
function nearestWritable(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(at)) {
      try {
        accessSync(at, constants.W_OK);
        return true;
      } catch {
        return false;
      }
    }
    if (dirname(at) === at) return false;
  }
}

/** Which hardening settings the engine cannot apply (a probe container, created and removed). */
async function hardeningCheck(
  engine: DockerEngine,
  image: string,
  runtime: string | undefined,
): Promise<Check> {
  if (!(await engine.imageId(image)))
    return {
      name: 'hardening',
      ok: false,
      detail: 'unknown: the sandbox image is not built',
      fix: 'build it first',
    };
  let report: HardeningReport;
  try {
    const owner = { [LABEL.owner]: formatOwner(currentOwner()) };
    report = await probeHardening(engine, image, { runtime: runtime ?? null, labels: owner });
  } catch (error) {
    if (!isRuntimeError(error)) throw error;
    return { name: 'hardening', ok: false, detail: error.message, ...(error.fix ? { fix: error.fix } : {}) };
  }
  const hardening = { probed: report.probed, unenforced: report.unenforced, accepted: report.accepted };
  if (report.unenforced.length === 0)
    return {
      name: 'hardening',
      ok: true,
      detail: report.probed
        ? 'every setting holds (read back from a probe container)'
        : 'every setting holds (rootful Docker applies each one or refuses the container)',
      hardening,
    };
  const refused = report.unenforced.filter((u) => !report.accepted.includes(u.setting));
  const list = report.unenforced
    .map((u) => `${u.setting}${report.accepted.includes(u.setting) ? ' [accepted]' : ''} (${u.why})`)
    .join('; ');
  return {
    name: 'hardening',
    ok: refused.length === 0,
    detail: `the engine cannot apply: ${list}`,
    ...(refused.length
      ? { fix: `sandbox runs are refused until then: ${enforcementFix(report, refused)}` }
      : {}),
    hardening,
  };
}

/** The runtimes the engine offers and the one sandbox containers would get. */
async function runtimeCheck(engine: DockerEngine, repo: string): Promise<Check> {
  const wanted = wantedRuntime(repo);
  let offered: Awaited<ReturnType<DockerEngine['runtimes']>>;
  try {
    offered = await engine.runtimes();
  } catch (error) {
    return { name: 'runtime', ok: false, detail: `the engine's runtimes: ${(error as Error).message}` };
  }
  const list = offered.names.join(', ') || 'none';
  const gvisor = offered.names.includes('runsc')
    ? ''
    : '; gVisor (runsc, a user-space kernel: stronger isolation) is not installed';
  try {
    const uses = chooseRuntime(wanted, offered);
    const how = wanted ? 'asked for' : "the engine's default";
    return {
      name: 'runtime',
      ok: true,
      detail: `sandboxes use ${uses} (${how}); the engine offers ${list}${gvisor}`,
      runtimes: { offered: offered.names, default: offered.default, sandboxes: uses },
    };
  } catch (error) {
    if (!isRuntimeError(error, 'runtime_unavailable')) throw error;
    return {
      name: 'runtime',
      ok: false,
      detail: error.message,
      fix: error.fix,
      runtimes: { offered: offered.names, default: offered.default, sandboxes: null },
    };
  }
}

/** The runtime asked for: the configuration (environment included), or the variable alone if it does not load. */
function wantedRuntime(repo: string): string | undefined {
  try {
    return loadConfig({ repo }).config.sandboxRuntime;
  } catch {
    return process.env[SANDBOX_RUNTIME_ENV] || undefined;
  }
}
