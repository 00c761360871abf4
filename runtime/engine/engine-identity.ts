// Which engine answers: Docker or Podman (through its Docker-compatible API), rootful or rootless,
// on which cgroup version. It decides what the sandbox's limits can rest on: a rootless engine on
// cgroup v1, or on cgroup v2 without the controllers delegated to its user, cannot bound memory,
// processes or CPU, and Podman's compatible /info says they are bounded all the same; only its
// own /libpod/info tells the truth. It also decides what a run's end can tell: whether a container
// killed at its memory limit is reported as such (State.OOMKilled), or only as a SIGKILL.

export type EngineKind = 'docker' | 'podman';

export interface EngineIdentity {
  kind: EngineKind;
  version: string;
  apiVersion: string;
  os: string;
  endpoint: string;
  rootless: boolean;
  /** '1' or '2'; null when the engine does not say. */
  cgroupVersion: string | null;
  /** The cgroup controllers the engine can use; null when it does not say (Docker). */
  cgroupControllers: string[] | null;
  /** Whether containers get the engine's default seccomp profile. */
  seccomp: boolean;
  /** The capabilities a container gets by default, without CAP_; null when the engine does not say. */
  defaultCapabilities: string[] | null;
  /**
   * Whether the engine says a container was killed for memory (State.OOMKilled). Podman before 5.0
   * never does: its conmon notices the kill but leaves the marker file in its own working directory,
   * not where Podman looks, so OOMKilled stays false and the run shows only exit 137 (SIGKILL).
   */
  reportsOomKills: boolean;
}

/** The first Podman whose State.OOMKilled is set by a memory kill (it reads conmon's marker where conmon writes it). */
const PODMAN_REPORTS_OOM_FROM = 5;

/** GET /version, as far as telling engines apart needs it. */
export interface VersionBody {
  Version: string;
  ApiVersion: string;
  Os: string;
  Arch: string;
  Platform?: { Name?: string };
  Components?: Array<{ Name?: string; Version?: string }>;
}

/** GET /info (Docker's), the fields about rootless mode, cgroups and seccomp. */
export interface DockerInfoBody {
  CgroupVersion?: string;
  SecurityOptions?: string[] | null;
}

/** GET /libpod/info (Podman's own API). */
export interface LibpodInfoBody {
  host?: {
    cgroupVersion?: string;
    cgroupControllers?: string[] | null;
    security?: { rootless?: boolean; seccompEnabled?: boolean; capabilities?: string };
  };
}

export function kindOf(version: VersionBody): EngineKind {
  const names = [version.Platform?.Name ?? '', ...(version.Components ?? []).map((c) => c.Name ?? '')];
  return names.some((n) => /podman/i.test(n)) ? 'podman' : 'docker';
}

function podmanVersion(version: VersionBody): string {
  return version.Components?.find((c) => /podman/i.test(c.Name ?? ''))?.Version ?? version.Version;
}

export function dockerIdentity(version: VersionBody, info: DockerInfoBody, endpoint: string): EngineIdentity {
  const options = info.SecurityOptions ?? [];
  return {
    kind: 'docker',
    version: version.Version,
    apiVersion: version.ApiVersion,
    os: `${version.Os}/${version.Arch}`,
    endpoint,
    rootless: options.some((o) => o === 'name=rootless'),
    cgroupVersion: info.CgroupVersion ?? null,
    cgroupControllers: null,
    seccomp: options.some((o) => o.startsWith('name=seccomp') && !o.includes('profile=unconfined')),
    defaultCapabilities: null,
    reportsOomKills: true,
  };
}

export function podmanIdentity(version: VersionBody, info: LibpodInfoBody, endpoint: string): EngineIdentity {
  const host = info.host ?? {};
  const release = podmanVersion(version);
  return {
    kind: 'podman',
    version: release,
    apiVersion: version.ApiVersion,
    os: `${version.Os}/${version.Arch}`,
    endpoint,
    rootless: host.security?.rootless === true,
    cgroupVersion: host.cgroupVersion ? host.cgroupVersion.replace(/^v/, '') : null,
    cgroupControllers: host.cgroupControllers ?? [],
    seccomp: host.security?.seccompEnabled !== false,
    defaultCapabilities: (host.security?.capabilities ?? '')
      .split(',')
      .map((c) => c.trim().replace(/^CAP_/, ''))
      .filter(Boolean),
    reportsOomKills: majorVersion(release) >= PODMAN_REPORTS_OOM_FROM,
  };
}

/** 4 for "4.3.1", 5 for "v5.0.0-rc1"; 0 when the string names no version. */
function majorVersion(version: string): number {
  const match = /^v?(\d+)\./.exec(version.trim());
  return match ? Number(match[1]) : 0;
}

/** One line for people: "podman 4.3.1 (rootless, cgroup v1), API 1.41 (linux/amd64) at unix://…". */
export function describeEngine(id: EngineIdentity): string {
  const mode = [id.rootless ? 'rootless' : 'rootful', id.cgroupVersion ? `cgroup v${id.cgroupVersion}` : '']
    .filter(Boolean)
    .join(', ');
  return `${id.kind} ${id.version} (${mode}), API ${id.apiVersion} (${id.os}) at ${id.endpoint}`;
}
