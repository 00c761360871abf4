// What the offline rebuild may leave: the tree at JS_TREE and nothing else (as the Python install's
// check keeps a downloaded distribution's code to the venv: downloaded-code.ts). Read from outside,
// once the box is stopped, from the engine's diff of its layer.
import type { LayerChange } from '../../build/project/project-layer.js';
import { JS_TREE } from '../toolchain/layout.js';

/** Directories piper's own steps touch around the rebuild (their entry changes; nothing below them may). */
const TOUCHED = new Set([
  '/',
  '/opt',
  '/opt/piper',
  '/tmp',
  '/var',
  '/var/tmp',
  '/root',
  '/work',
  '/run',
  '/dev',
  '/etc',
  '/usr',
  '/usr/bin',
  '/usr/sbin',
  '/sbin',
]);
/** What the engine itself puts into a box. */
const ENGINE = new Set([
  '/sbin/docker-init',
  '/usr/sbin/docker-init',
  '/usr/bin/docker-init',
  '/dev/init',
  '/etc/hosts',
  '/etc/hostname',
  '/etc/resolv.conf',
  '/.dockerenv',
  '/run/.containerenv',
  '/run/podman-init',
]);

export function writesOutsideTree(changes: readonly LayerChange[]): string[] {
  return changes
    .filter((c) => !(c.path === JS_TREE || c.path.startsWith(`${JS_TREE}/`)))
    .filter((c) => !ENGINE.has(c.path))
    .filter((c) => !(c.kind === 'changed' && TOUCHED.has(c.path)))
    .map((c) => `${c.path} (${c.kind})`);
}
