// Which Debian release (and so which Python) an instance's sandbox gets: `--debian bookworm`,
// `--debian trixie` or `--debian bullseye` (Python 3.9) for the whole set, or a mapping by the
// instance's `version` field (`--debian 0.12=bookworm,*=trixie`: SWE-bench's version names a
// project release, and old releases need an older Python and its older numpy, Werkzeug, astroid). Unset: the environment's
// own choice (trixie unless the project's requires-python excludes 3.13).
import {
  DEBIAN_RELEASES,
  PYTHON_OF,
  type DebianRelease,
  type SandboxPython,
} from '../../runtime/env/plan/read/marker-env.js';
import type { SweInstance } from './instance-file.js';

export type DebianChoice = { all: DebianRelease } | { byVersion: Map<string, DebianRelease> } | null;

const RELEASES = DEBIAN_RELEASES;

function release(word: string, flag: string): DebianRelease {
  if ((RELEASES as readonly string[]).includes(word)) return word as DebianRelease;
  throw new Error(`${flag}: '${word}' is not a Debian release the sandbox has (${RELEASES.join(', ')})`);
}

/** Parses --debian: a release, or VERSION=RELEASE pairs (`*` for every other version). */
export function parseDebian(value: string | undefined): DebianChoice {
  if (value === undefined) return null;
  const text = value.trim();
  if (!text.includes('=')) return { all: release(text, '--debian') };
  const byVersion = new Map<string, DebianRelease>();
  for (const pair of text.split(',')) {
    const [version, word, extra] = pair.split('=').map((s) => s.trim());
    if (!version || word === undefined || extra !== undefined)
      throw new Error(`--debian: '${pair}' is not VERSION=RELEASE (e.g. 3.0=bookworm,*=trixie)`);
    byVersion.set(version, release(word, `--debian ${version}`));
  }
  return { byVersion };
}

/** The release for one instance (undefined: the environment decides). */
export function debianOf(choice: DebianChoice, instance: SweInstance): DebianRelease | undefined {
  if (choice === null) return undefined;
  if ('all' in choice) return choice.all;
  return choice.byVersion.get(instance.version ?? '') ?? choice.byVersion.get('*');
}

export function pythonOf(release: DebianRelease | undefined): SandboxPython | undefined {
  return release ? PYTHON_OF[release] : undefined;
}
