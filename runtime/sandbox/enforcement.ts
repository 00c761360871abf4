// Whether the engine really applies every hardening setting of the sandbox (hardening.ts). Docker
// applies each one or refuses the container; other engines may not: rootless Podman on cgroup v1
// drops memory, process and CPU limits with a warning nobody sees through the API, and its
// compatible /info claims the limits work. So on any engine that is not rootful Docker, piper
// creates one sandbox container (never started), reads back what the engine recorded, and compares
// it with what was asked, setting by setting. A setting that does not hold refuses the run, naming
// it and the fix, unless the user accepted it by name in PIPER_ACCEPT_UNENFORCED (docs/sandbox.md,
// "Engines: Docker and Podman"). Nothing is ever dropped silently.
import type { AppliedSettings, ContainerConfig, DockerEngine } from '../engine/docker-engine.js';
import type { EngineIdentity } from '../engine/engine-identity.js';
import { RuntimeError } from '../errors.js';
import { LABEL, containerConfig } from './hardening.js';
import { DEFAULT_LIMITS } from './spec.js';

export const ACCEPT_UNENFORCED_ENV = 'PIPER_ACCEPT_UNENFORCED';

const HARDENING_SETTINGS = [
  'network',
  'capabilities',
  'no-new-privileges',
  'tmpfs',
  'user',
  'memory',
  'pids',
  'ulimits',
  'cpus',
  'ipc',
  'init',
  'seccomp',
  'privileged',
] as const;

export type HardeningSetting = (typeof HARDENING_SETTINGS)[number];

export interface Unenforced {
  setting: HardeningSetting;
  why: string;
}

export interface HardeningReport {
  engine: EngineIdentity;
  /** Whether a container was created and read back (false: rootful Docker, trusted as is). */
  probed: boolean;
  unenforced: Unenforced[];
  /** The unenforced settings the user accepted (PIPER_ACCEPT_UNENFORCED). */
  accepted: HardeningSetting[];
}

/** The settings the engine cannot apply, from what it says of itself and what it recorded. */
export function unenforcedSettings(
  asked: ContainerConfig,
  applied: AppliedSettings,
  engine: EngineIdentity,
): Unenforced[] {
  const want = asked.HostConfig;
  const got = applied.HostConfig;
  const out: Unenforced[] = [];
  const miss = (setting: HardeningSetting, why: string) => {
    if (!out.some((u) => u.setting === setting)) out.push({ setting, why });
  };
  missEngineLimits(engine, miss);
  if (!engine.seccomp) miss('seccomp', 'the engine runs containers without a seccomp profile');
  if (got.NetworkMode !== 'none') miss('network', `NetworkMode is ${shown(got.NetworkMode)}, not "none"`);
  // Podman records `CapDrop: ALL` as the list of its default capabilities, each one dropped.
  const dropped = ((got.CapDrop as string[] | null) ?? []).map((c) => c.toUpperCase().replace(/^CAP_/, ''));
  const added = (got.CapAdd as string[] | null) ?? [];
  const allDropped =
    dropped.includes('ALL') ||
    (engine.defaultCapabilities !== null &&
      engine.defaultCapabilities.length > 0 &&
      engine.defaultCapabilities.every((c) => dropped.includes(c.toUpperCase())));
  if (!allDropped || added.length > 0)
    miss(
      'capabilities',
      `CapDrop is ${shown(got.CapDrop)} and CapAdd ${shown(got.CapAdd)}, not ALL and none`,
    );
  const options = (got.SecurityOpt as string[] | null) ?? [];
  if (!options.some((o) => /^no-new-privileges([:=]true)?$/.test(o)))
    miss('no-new-privileges', `SecurityOpt is ${shown(got.SecurityOpt)}`);
  if (options.some((o) => /^seccomp[:=]unconfined$/.test(o)))
    miss('seccomp', 'the container is unconfined (seccomp=unconfined)');
  const tmpfs = (got.Tmpfs as Record<string, string> | null) ?? {};
  const wantTmpfs = Object.keys((want.Tmpfs as Record<string, string>) ?? {});
  const lost = wantTmpfs.filter((path) => !(path in tmpfs));
  if (lost.length) miss('tmpfs', `no tmpfs at ${lost.join(', ')}`);
  if (applied.User !== asked.User) miss('user', `the user is ${shown(applied.User)}, not ${asked.User}`);
  if (got.Memory !== want.Memory) miss('memory', `Memory is ${shown(got.Memory)}, not ${want.Memory}`);
  if (got.MemorySwap !== want.MemorySwap)
    miss('memory', `MemorySwap is ${shown(got.MemorySwap)}, not ${want.MemorySwap} (no swap)`);
  if (got.PidsLimit !== want.PidsLimit)
    miss('pids', `PidsLimit is ${shown(got.PidsLimit)}, not ${want.PidsLimit}`);
  if (cpuNanos(got) !== want.NanoCpus)
    miss('cpus', `the CPU quota is ${cpuNanos(got) / 1e9} cores, not ${Number(want.NanoCpus) / 1e9}`);
  missUlimits(want, got, miss);
  // Podman 4 reports every IPC namespace of the container's own as "shareable", "private" included
  // (`podman create --ipc=private` reads back the same); either is a namespace not the host's.
  const ownIpc = got.IpcMode === 'private' || (engine.kind === 'podman' && got.IpcMode === 'shareable');
  if (!ownIpc) miss('ipc', `IpcMode is ${shown(got.IpcMode)}, not "private"`);
  if (got.Init !== true) miss('init', `Init is ${shown(got.Init)}`);
  if (got.Privileged === true) miss('privileged', 'the container is privileged');
  return out;
}

type Miss = (setting: HardeningSetting, why: string) => void;

const shown = (v: unknown) => JSON.stringify(v ?? null);

/** The cgroup limits a rootless engine cannot set (cgroup v1, or a controller not delegated to it). */
function missEngineLimits(engine: EngineIdentity, miss: Miss): void {
  for (const [setting, controller] of [
    ['memory', 'memory'],
    ['pids', 'pids'],
    ['cpus', 'cpu'],
  ] as const) {
    if (engine.rootless && engine.cgroupVersion === '1')
      miss(setting, 'a rootless engine on cgroup v1 cannot set cgroup limits');
    else if (engine.rootless && engine.cgroupControllers && !engine.cgroupControllers.includes(controller))
      miss(setting, `the cgroup controller '${controller}' is not delegated to the engine's user`);
  }
}

/** Each asked ulimit the container does not have at the same soft and hard values. */
function missUlimits(want: Record<string, unknown>, got: Record<string, unknown>, miss: Miss): void {
  const limits = (got.Ulimits as Array<{ Name: string; Soft: number; Hard: number }> | null) ?? [];
  for (const wanted of (want.Ulimits as typeof limits | undefined) ?? []) {
    const found = limits.find(
      (l) => l.Name === wanted.Name || l.Name === `RLIMIT_${wanted.Name.toUpperCase()}`,
    );
    if (!found || found.Soft !== wanted.Soft || found.Hard !== wanted.Hard)
      miss('ulimits', `the ${wanted.Name} limit is ${shown(found ?? null)}, not ${wanted.Soft}`);
  }
}

/** NanoCpus, or the same quota given as CpuQuota per CpuPeriod (how some engines record it). */
function cpuNanos(hostConfig: Record<string, unknown>): number {
  const nano = Number(hostConfig.NanoCpus ?? 0);
  if (nano > 0) return nano;
  const quota = Number(hostConfig.CpuQuota ?? 0);
  const period = Number(hostConfig.CpuPeriod ?? 0) || 100_000;
  return quota > 0 ? Math.round((quota / period) * 1e9) : 0;
}

/** The settings named in PIPER_ACCEPT_UNENFORCED (comma separated); an unknown name is an error. */
export function acceptedSettings(text = process.env[ACCEPT_UNENFORCED_ENV] ?? ''): HardeningSetting[] {
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(HARDENING_SETTINGS as readonly string[]).includes(name))
      throw new RuntimeError(
        'bad_spec',
        `${ACCEPT_UNENFORCED_ENV} names '${name}', which is no hardening setting`,
        `use some of: ${HARDENING_SETTINGS.join(', ')}`,
      );
  }
  return names as HardeningSetting[];
}

/** Reads the engine, and on any engine but rootful Docker creates, reads back and removes a probe container. */
export async function probeHardening(
  engine: DockerEngine,
  image: string,
  opts: { runtime?: string | null; labels: Record<string, string> },
): Promise<HardeningReport> {
  const identity = await engine.identity();
  const accepted = acceptedSettings();
  if (identity.kind === 'docker' && !identity.rootless)
    return { engine: identity, probed: false, unenforced: [], accepted: [] };
  const asked = containerConfig({
    image,
    argv: ['true'],
    limits: DEFAULT_LIMITS,
    runtime: opts.runtime ?? null,
    labels: { [LABEL.run]: 'hardening-probe', [LABEL.call]: 'hardening-probe', ...opts.labels },
  });
  const id = await engine.createContainer(asked);
  let applied: AppliedSettings;
  try {
    applied = await engine.appliedSettings(id);
  } finally {
    await engine.remove(id);
  }
  const unenforced = unenforcedSettings(asked, applied, identity);
  return {
    engine: identity,
    probed: true,
    unenforced,
    accepted: accepted.filter((s) => unenforced.some((u) => u.setting === s)),
  };
}

/** The report, or a RuntimeError naming each setting that does not hold and was not accepted. */
export function requireEnforced(report: HardeningReport): HardeningReport {
  const refused = report.unenforced.filter((u) => !report.accepted.includes(u.setting));
  if (refused.length === 0) return report;
  const e = report.engine;
  throw new RuntimeError(
    'hardening_unavailable',
    `the engine (${e.kind} ${e.version}${e.rootless ? ', rootless' : ''}) cannot apply the sandbox's ` +
      refused.map((u) => `${u.setting} (${u.why})`).join('; '),
    enforcementFix(report, refused),
  );
}

/** How to get the settings applied, and how to accept them unapplied. */
export function enforcementFix(report: HardeningReport, refused: Unenforced[]): string {
  const accept = `${ACCEPT_UNENFORCED_ENV}=${refused.map((u) => u.setting).join(',')}`;
  return `${engineFix(report)}; or, knowing the sandbox then lacks it, accept it: ${accept}`;
}

function engineFix(report: HardeningReport): string {
  const e = report.engine;
  if (e.rootless && e.cgroupVersion === '1')
    return 'run the engine rootful (as root), or boot the host with cgroup v2 (systemd.unified_cgroup_hierarchy=1) and delegate memory, pids and cpu to its user';
  if (e.rootless)
    return "delegate the cgroup controllers to the engine's user (systemd: Delegate=memory pids cpu in user@.service), or run the engine rootful";
  return 'use an engine that applies it (Docker, or rootful Podman)';
}
