// Which Debian (and so which Python) an instance gets when the set names none: chosen from the
// instance itself, since SWE-bench's instances are years old and Python drops what old releases
// lean on (3.12 removed distutils and imp; 3.13 more). The project's own word comes first — its
// requires-python, then the newest Python its classifiers list — and the instance's date decides
// when the project says nothing that tells the two apart: an instance made before Python 3.13 was
// released gets Debian 12's 3.11. An instance the SWE-bench harness has a spec for gets the spec's
// Python, or the nearest newer one the sandbox has. `--debian` overrides all of this (debian.ts).
import { satisfies, validRange } from '@renovatebot/pep440';
import { FULL_VERSION, PYTHON_OF, type DebianRelease } from '../../runtime/env/plan/read/marker-env.js';
import { debianOf, type DebianChoice } from './debian.js';
import type { SweInstance } from './instance-file.js';
import type { RepoCache } from './repos.js';
import { specEntry } from './harness-spec.js';

/** Python 3.13's release: an instance opened before it was made against 3.12 or older. */
const PY313_RELEASED = '2024-10-07';

export interface DebianDecision {
  release: DebianRelease;
  why: string;
}

/** The project's metadata files at the base commit, as text (null: the file is not there). */
export type ReadAtBase = (path: string) => string | null;

const METADATA_FILES = ['pyproject.toml', 'setup.cfg', 'setup.py'];

/** The project's requires-python / python_requires, with the file that says it. */
function requiresPython(read: ReadAtBase): { specifier: string; file: string } | null {
  for (const file of METADATA_FILES) {
    const text = read(file);
    const m = text && /(?:requires-python|python_requires)\s*=\s*["']?([^"'\n,)]+)/.exec(text);
    if (m) return { specifier: m[1]!.trim(), file };
  }
  return null;
}

/** The newest Python 3 minor its classifiers list, or null. */
function newestClassified(read: ReadAtBase): number | null {
  const minors = METADATA_FILES.flatMap((file) =>
    [...(read(file) ?? '').matchAll(/Programming Language :: Python :: 3\.(\d+)\b/g)].map((m) =>
      Number(m[1]),
    ),
  );
  return minors.length > 0 ? Math.max(...minors) : null;
}

export function chooseDebian(instance: SweInstance, read: ReadAtBase): DebianDecision | null {
  const requires = requiresPython(read);
  if (requires && validRange(requires.specifier)) {
    const on11 = satisfies(FULL_VERSION['3.11'], requires.specifier);
    const on13 = satisfies(FULL_VERSION['3.13'], requires.specifier);
    const said = `${requires.file} requires-python "${requires.specifier}"`;
    if (on11 && !on13) return { release: 'bookworm', why: `${said} excludes 3.13` };
    if (on13 && !on11) return { release: 'trixie', why: `${said} excludes 3.11` };
    if (!on11 && !on13 && satisfies(FULL_VERSION['3.9'], requires.specifier))
      return { release: 'bullseye', why: `${said} excludes 3.11 and 3.13` };
  }
  const newest = newestClassified(read);
  if (newest !== null && newest >= 13)
    return { release: 'trixie', why: `its classifiers list Python 3.${newest}` };
  if (newest !== null)
    return { release: 'bookworm', why: `its classifiers list Python 3.${newest} at newest` };
  const date = instance.created_at?.slice(0, 10);
  if (!date || !/^\d{4}-\d\d-\d\d$/.test(date)) return null;
  return date < PY313_RELEASED
    ? { release: 'bookworm', why: `made ${date}, before Python 3.13` }
    : { release: 'trixie', why: `made ${date}, after Python 3.13` };
}

const minorOf = (python: string): number => Number(python.split('.')[1] ?? NaN);

/** The release of the harness spec's Python: that Python, else the nearest newer (else the newest) the sandbox has. */
export function specDebian(python: string): DebianDecision {
  const releases = (Object.entries(PYTHON_OF) as [DebianRelease, string][]).sort(
    (a, b) => minorOf(a[1]) - minorOf(b[1]),
  );
  const exact = releases.find(([, p]) => p === python);
  if (exact) return { release: exact[0], why: `the harness's spec: Python ${python}` };
  const [release, has] = releases.find(([, p]) => minorOf(p) > minorOf(python)) ?? releases.at(-1)!;
  return {
    release,
    why: `the harness's spec: Python ${python}, not in the sandbox: ${has}, the nearest newer`,
  };
}

/**
 * The release for one instance: the set's `--debian` when it covers the instance, else the choice
 * above from the files of its base commit (undefined: neither says, the environment decides).
 */
export function instanceDebian(
  choice: DebianChoice,
  instance: SweInstance,
  repos: RepoCache,
): DebianDecision | undefined {
  const given = debianOf(choice, instance);
  if (given) return { release: given, why: '--debian' };
  const python = specEntry(instance)?.spec.python;
  if (python) return specDebian(python);
  const read: ReadAtBase = (path) => {
    try {
      return repos.fileAtBase(instance, path);
    } catch {
      // A missing repository or commit: validation names it; the date still chooses.
      return null;
    }
  };
  return chooseDebian(instance, read) ?? undefined;
}
