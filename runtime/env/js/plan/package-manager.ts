// Which package manager installs the project, and which exact version of piper's own copy: the
// `packageManager` field first ("pnpm@9.12.0+sha512…": the name and version; the hash is the
// repository's, informational), then the CI workflow's install step, then the lockfile present
// (with several: pnpm-lock.yaml, then yarn.lock, then package-lock.json — a package-lock.json beside
// another manager's lockfile is most often an accidental `npm install`). yarn.lock tells yarn 1
// ("# yarn lockfile v1") from berry (`__metadata:`). A version the field does not name comes from
// the pinned table, by the lockfile's format where that tells the manager's major.
import type { CiJob } from '../read/ci-workflows.js';
import { commandLines } from '../read/ci-workflows.js';
import type { JsFiles, RepoText } from '../read/js-files.js';
import type { JsManager } from './js-plan.js';

/** Exact versions of piper's trusted copies when the project names none (each checked to exist). */
export const MANAGER_VERSIONS = {
  npm: '10.9.9',
  pnpm: { 9: '9.15.9', 8: '8.15.9', 7: '7.33.7', 10: '10.34.9', 11: '11.13.1' },
  yarn: '1.22.22',
  'yarn-berry': { 4: '4.18.1', 3: '3.8.7', 2: '2.4.2' },
} as const;

const LOCKFILES: Array<[string, JsManager]> = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  // npm reads npm-shrinkwrap.json over package-lock.json when a package has both.
  ['npm-shrinkwrap.json', 'npm'],
  ['package-lock.json', 'npm'],
];

export interface ManagerChoice {
  name: JsManager;
  version: string;
  from: string;
  lockfile: RepoText | null;
  /** The CI's install line the manager was read from, if any (its flags may shape the tree). */
  ciInstall: string | null;
}

/** yarn.lock's own format decides yarn 1 or berry. */
function yarnKind(lock: RepoText | null): JsManager {
  return lock && /^__metadata:/m.test(lock.text.slice(0, 4096)) ? 'yarn-berry' : 'yarn';
}

function fromField(field: unknown, decisions: string[]): { name: JsManager; version: string } | null {
  if (typeof field !== 'string') return null;
  const m = /^(npm|pnpm|yarn)@(\d+\.\d+\.\d+(?:-[\w.]+)?)(?:\+.*)?$/.exec(field.trim());
  if (!m) {
    decisions.push(`package.json packageManager "${field.slice(0, 80)}" not read (name@x.y.z expected)`);
    return null;
  }
  const [, name, version] = m as unknown as [string, 'npm' | 'pnpm' | 'yarn', string];
  return { name: name === 'yarn' && !version.startsWith('1.') ? 'yarn-berry' : name, version };
}

const INSTALL =
  /^(?:sudo\s+)?(npm|pnpm|yarn)(?:\s+(ci|install|i|add)\b|\s*$|\s+--(?:frozen-lockfile|immutable|prefer-offline)\b)/;

/** pnpm's setup actions (`pnpm/action-setup`, its newer name `pnpm/setup`). */
const PNPM_SETUP = /^pnpm\/(?:action-)?setup@/;

interface CiManager {
  name: 'npm' | 'pnpm' | 'yarn';
  from: string;
  /** The setup action's `with: version` as written (`11`, `10.12.1`). */
  version?: string;
  /** The install line itself. */
  line?: string;
}

/** The manager the CI installs with: its first install line, or a pnpm setup action. */
function fromCi(jobs: CiJob[]): CiManager | null {
  for (const job of jobs) {
    for (const step of job.steps) {
      if (step.uses && PNPM_SETUP.test(step.uses)) {
        const version = step.with.version;
        return {
          name: 'pnpm',
          from: step.from,
          ...(typeof version === 'string' || typeof version === 'number' ? { version: String(version) } : {}),
        };
      }
      for (const line of commandLines(step.run ?? '')) {
        // `npm install -g pnpm` installs a manager, not the project.
        const m = /\s(?:-g|--global)\b/.test(line) ? null : INSTALL.exec(line);
        if (m) return { name: m[1] as 'npm' | 'pnpm' | 'yarn', from: `${step.from} (\`${line}\`)`, line };
      }
    }
  }
  return null;
}

/**
 * The version a pnpm setup action names: exact as written, a major as piper's pinned copy of it;
 * anything else (a range, `latest`) is not read.
 */
function ciVersion(ci: CiManager | null, decisions: string[]): string | null {
  if (!ci?.version) return null;
  if (/^\d+\.\d+\.\d+$/.test(ci.version)) return ci.version;
  const major = /^(\d+)(?:\.x)?$/.exec(ci.version)?.[1];
  const table = MANAGER_VERSIONS.pnpm as Record<string, string>;
  if (major !== undefined && table[major]) return table[major];
  decisions.push(`${ci.from}: pnpm version "${ci.version.slice(0, 40)}" not read (x.y.z or a known major)`);
  return null;
}

/** The pinned version for a manager, by the lockfile's format where it tells the major. */
function pinned(name: JsManager, lock: RepoText | null): string {
  const head = lock?.text.slice(0, 4096) ?? '';
  if (name === 'pnpm') {
    const v = /^lockfileVersion:\s*'?(\d+)/m.exec(head)?.[1];
    return v === '5'
      ? MANAGER_VERSIONS.pnpm[7]
      : v === '6'
        ? MANAGER_VERSIONS.pnpm[8]
        : MANAGER_VERSIONS.pnpm[9];
  }
  if (name === 'yarn-berry') {
    const v = Number(/^\s+version:\s*(\d+)/m.exec(head.slice(head.indexOf('__metadata:')))?.[1] ?? 8);
    return v >= 8
      ? MANAGER_VERSIONS['yarn-berry'][4]
      : v >= 6
        ? MANAGER_VERSIONS['yarn-berry'][3]
        : MANAGER_VERSIONS['yarn-berry'][2];
  }
  return name === 'npm' ? MANAGER_VERSIONS.npm : MANAGER_VERSIONS.yarn;
}

function lockOf(files: JsFiles, name: JsManager): RepoText | null {
  const paths = LOCKFILES.filter(([, m]) => (name === 'yarn-berry' ? 'yarn' : name) === m).map(([p]) => p);
  for (const path of paths) {
    const lock = files.read(path, 'any');
    if (lock) return lock;
  }
  return null;
}

export function chooseManager(
  input: { files: JsFiles; jobs: CiJob[]; root: Record<string, unknown> },
  decisions: string[],
): ManagerChoice {
  const present = LOCKFILES.filter(([path]) => input.files.read(path, 'any') !== null);
  const field = fromField(input.root.packageManager, decisions);
  const ci = field ? null : fromCi(input.jobs);
  const first = present[0];
  const base: JsManager = field?.name ?? ci?.name ?? first?.[1] ?? 'npm';
  const lockfile = lockOf(input.files, base);
  const name: JsManager = base === 'yarn' && !field ? yarnKind(lockfile) : base;
  const from = field
    ? `package.json packageManager "${String(input.root.packageManager).split('+')[0]}"`
    : ci
      ? `the CI install step ${ci.from}`
      : first
        ? `the lockfile ${first[0]}`
        : 'the default (no lockfile, no packageManager)';
  if (present.length > 1)
    decisions.push(`several lockfiles (${present.map(([p]) => p).join(', ')}): ${name}, from ${from}`);
  if (!lockfile)
    decisions.push(`no ${name} lockfile: the install is unlocked (resolved at build time, best effort)`);
  const fromSetup = field ? null : ciVersion(ci, decisions);
  const version = field?.version ?? fromSetup ?? pinned(name, lockfile);
  const said = field ? '' : fromSetup ? ` (with: version ${ci?.version})` : ' (the version pinned for it)';
  decisions.push(`package manager ${name} ${version}: ${from}${said}`);
  return { name, version, from, lockfile, ciInstall: ci?.line ?? null };
}
