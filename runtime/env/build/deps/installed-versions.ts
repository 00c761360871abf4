// Which distributions a build container holds, read from the metadata files themselves — never by
// starting a Python: a `.pth` file of any installed package runs at every interpreter start, so
// `importlib.metadata` or `pip list` can be answered by code a package supplied. The step is a
// plain `sed` over each dist-info's METADATA and each egg-info's PKG-INFO, in the order Python's
// sys.path would find them (the venv first, then Debian's directories), first one winning.
import type { StepSpec } from '../build-box.js';
import { VENV } from '../../floor/names.js';
import { normalize } from '../step-output.js';

/** The sys.path directories that hold distributions, in import order, for the sandbox's Python. */
export function distributionDirs(python: string): string[] {
  return [
    `${VENV}/lib/python${python}/site-packages`,
    `/usr/local/lib/python${python}/dist-packages`,
    '/usr/lib/python3/dist-packages',
    `/usr/lib/python${python}/dist-packages`,
  ];
}

export function versionsScanStep(name: string, python: string): StepSpec {
  const globs = distributionDirs(python)
    .map((d) => `${d}/*.dist-info/METADATA ${d}/*.egg-info/PKG-INFO ${d}/*.egg-info`)
    .join(' ');
  const script = [
    `for f in ${globs}; do`,
    '  [ -f "$f" ] || continue',
    '  echo "piper-meta $f"',
    // Name and Version are in the header, which ends at the first empty line.
    `  sed -n '/^$/q;/^Name:/p;/^Version:/p' "$f"`,
    'done',
    'true',
  ].join('\n');
  return { name, script, timeoutS: 60, quiet: true };
}

/**
 * normalized name → version, the first directory's copy winning (as Python would import it);
 * `under`: only the copies in that directory (the venv's own, without Debian's).
 */
export function parseVersionsScan(stdout: string, under?: string): Map<string, string> {
  const versions = new Map<string, string>();
  let name: string | null = null;
  let version: string | null = null;
  let counted = true;
  const flush = () => {
    if (counted && name && version && !versions.has(normalize(name))) versions.set(normalize(name), version);
    name = version = null;
  };
  for (const line of stdout.split('\n')) {
    if (line.startsWith('piper-meta ')) {
      flush();
      counted = under === undefined || line.startsWith(`piper-meta ${under}/`);
    } else if (line.startsWith('Name:')) name ??= line.slice(5).trim();
    else if (line.startsWith('Version:')) version ??= line.slice(8).trim();
  }
  flush();
  return versions;
}
