// Where downloaded code may be, and what it may leave. A distribution from an index (or the
// repository's own wheel) is installed into the venv in a box with no network and no secret, as
// root: its data files, a `.pth` run at the next Python start, and the modules the import check
// imports could write anywhere in that box — a Debian file (`/usr/share/debconf/confmodule`, a
// maintainer script's helper) that a later apt step would run as root with the network. Two rules
// keep that from happening:
//   - what such a box commits is only the venv: the engine's diff of its writable layer, read from
//     outside once the box is stopped (nothing it started writes after the check), holds nothing else
//     but the directories piper's own steps touch; anything more fails the build, naming the paths;
//   - its image carries DOWNLOADED_CODE_LABEL (and so does every image made from it), and no box
//     with a network starts from an image that carries it (BuildBox.start asks): Debian's packages
//     for such an image are fetched in a box of the sandbox image and installed offline (apt-offline.ts).
import { inert } from '../../../text/inert.js';
import { VENV } from '../../floor/names.js';
import type { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import type { LayerChange } from '../project/project-layer.js';

import { DOWNLOADED_CODE_LABEL } from './downloaded-code-label.js';

/** The commit line that marks an image; `what` is one word (the phase). */
export function downloadedCodeLabel(what: 'deps' | 'wheels' | 'topup'): string {
  return `LABEL ${DOWNLOADED_CODE_LABEL}=${what}`;
}

/**
 * Directories whose own entry piper's steps change around an install (the venv's parents, and what
 * the clean step empties or hands to the sandbox's user): their entry may change, nothing in them
 * may be added or removed.
 */
const TOUCHED_DIRS = new Set([
  '/',
  '/opt',
  '/opt/piper',
  '/work',
  '/root',
  '/tmp',
  '/var',
  '/var/tmp',
  '/var/cache',
  '/var/cache/apt',
  '/var/cache/apt/archives',
  '/var/lib',
  '/var/lib/apt',
  '/var/lib/apt/lists',
]);

/**
 * What the engine itself puts into a build box and its diff then lists: the init it mounts (Docker's
 * `docker-init`, Podman's), the files of its network setup; and the directories that hold them.
 */
const ENGINE_FILES = new Set([
  '/sbin/docker-init',
  '/usr/sbin/docker-init',
  '/usr/bin/docker-init',
  '/run/podman-init',
  '/dev/init',
  '/etc/hosts',
  '/etc/hostname',
  '/etc/resolv.conf',
  '/.dockerenv',
  '/run/.containerenv',
]);
const ENGINE_DIRS = new Set(['/sbin', '/usr', '/usr/sbin', '/usr/bin', '/run', '/dev', '/etc']);

function allowed(c: LayerChange): boolean {
  if (c.path === VENV || c.path.startsWith(`${VENV}/`)) return true;
  if (c.kind === 'deleted') return false;
  if (ENGINE_FILES.has(c.path)) return true;
  return c.kind === 'changed' && (TOUCHED_DIRS.has(c.path) || ENGINE_DIRS.has(c.path));
}

/**
 * Each change outside the venv, as `path (kind)`: what an install box may not commit. A changed
 * directory is left out when a change below it is named (it changed because of that one).
 */
export function writesOutsideVenv(changes: readonly LayerChange[]): string[] {
  const outside = changes.filter((c) => !allowed(c));
  const paths = outside.map((c) => c.path).sort();
  // The first path at or after `dir/` in sorted order starts with it when any does.
  const hasBelow = (dir: string) => {
    const prefix = `${dir}/`;
    let [lo, hi] = [0, paths.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (paths[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo < paths.length && paths[lo]!.startsWith(prefix);
  };
  return outside.filter((c) => c.kind !== 'changed' || !hasBelow(c.path)).map((c) => `${c.path} (${c.kind})`);
}

const SHOWN = 10;

/**
 * The box stopped and its changes read: the build fails when anything outside the venv changed.
 * Called after the box's last step, before its commit.
 */
export async function checkInstallWrites(ctx: BuildContext, box: BuildBox, what: string): Promise<void> {
  await box.stop();
  const outside = writesOutsideVenv(await box.changes());
  if (!outside.length) return;
  // The paths are the installed code's choice: inert, shortened, counted.
  const shown = outside.slice(0, SHOWN).map((p) => inert(p.length > 200 ? `${p.slice(0, 200)}…` : p));
  const more = outside.length > SHOWN ? ` and ${outside.length - SHOWN} more` : '';
  ctx.fail(
    `${what} wrote outside the venv (${VENV}), where nothing installed may write: ${shown.join(', ')}${more}; nothing of it is kept`,
    'a distribution installed there (a downloaded wheel, a wheel of the repository, or a .pth or module of one) writes into the system: leave it out of the requirements, or use a Debian package for it',
  );
}
