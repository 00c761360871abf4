// Podman on this host, installed the way the Docker engine is (bootstrap.ts): Debian's packages,
// only as root, only when missing, so a second call costs two stat() calls. Podman is not piper's
// default engine; this is for pointing piper at one (`DOCKER_HOST=unix://…podman.sock`) and for
// the tests that run the sandbox on it. Rootless Podman also needs newuidmap/newgidmap (uidmap),
// a user-mode network helper (slirp4netns), and catatonit for `Init: true`.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { RuntimeError } from '../errors.js';
import { aptInstall } from '../host/apt.js';

export const PODMAN = '/usr/bin/podman';

/** Each binary Podman needs here, and the Debian package that brings it. */
const NEEDS: Array<[path: string, pkg: string]> = [
  [PODMAN, 'podman'],
  ['/usr/bin/newuidmap', 'uidmap'],
  ['/usr/bin/slirp4netns', 'slirp4netns'],
  ['/usr/bin/fuse-overlayfs', 'fuse-overlayfs'],
  ['/usr/bin/catatonit', 'catatonit'],
];

/** Installs what is missing (as root); resolves at once when everything is there. */
export async function ensurePodman(log: (line: string) => void): Promise<void> {
  const missing = [...new Set(NEEDS.filter(([path]) => !existsSync(path)).map(([, pkg]) => pkg))];
  if (missing.length) await aptInstall(missing, log);
}

export interface RootlessUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  /** Whether this call created the user (and so whoever asked may remove it again). */
  created: boolean;
}

/**
 * An unprivileged user for a rootless Podman, created when missing with a subordinate uid/gid
 * range (useradd gives one from /etc/login.defs). Root only.
 */
export function ensureRootlessUser(name: string): RootlessUser {
  const created = !lookupUser(name);
  if (created) execFileSync('useradd', ['--create-home', '--shell', '/usr/sbin/nologin', name]);
  const found = lookupUser(name);
  if (!found) throw new RuntimeError('engine_error', `useradd ${name} did not create the user`);
  const user = { ...found, created };
  for (const file of ['/etc/subuid', '/etc/subgid']) {
    const has = readFileSync(file, 'utf8')
      .split('\n')
      .some((line) => line.startsWith(`${name}:`));
    if (!has)
      throw new RuntimeError(
        'engine_error',
        `${file} gives ${name} no subordinate ids; rootless Podman needs a range`,
        `usermod --add-subuids 200000-265535 --add-subgids 200000-265535 ${name}`,
      );
  }
  return user;
}

function lookupUser(name: string): Omit<RootlessUser, 'created'> | null {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) return null;
  const [, , uid, gid, , home] = line.split(':');
  return { name, uid: Number(uid), gid: Number(gid), home: home ?? `/home/${name}` };
}
