// The editable install of the project step (steps.ts projectStep), in the build's second container
// (no network, the workspace at /work). What each line is for, from the failures it fixes:
// - `--use-pep517`: a project with a setup.py and no pyproject.toml otherwise gets pip's legacy
//   `setup.py develop`, whose metadata (an .egg-info) is written INTO the workspace and deleted
//   with it: importlib.metadata then finds nothing at run time. PEP 660 puts the metadata in the
//   venv. (pip 25.3 drops the legacy path anyway.)
// - a setup.cfg-only project (no setup.py, no pyproject.toml) is not a project to pip at all; the
//   two-line setup.py that setuptools documents for it is written first, and goes with the
//   workspace when the build deletes it.
// - a project whose version comes from git gets it in the variables setuptools-scm and pdm-backend
//   read (runtime/env/plan/vcs-version.ts): the workspace has no .git. setuptools-git-versioning
//   reads no variable, but a PKG-INFO at the root first (as in an sdist): one is written when absent.
// - the install itself is the backend's PEP 660 build unpacked by editable-wheel.ts (2 s less than
//   pip for a small project), and pip's, with the options above, when that cannot do it.
import type { ProjectVersion } from '../../plan/vcs-version.js';
import { EDITABLE_WHEEL_SOURCE } from './editable-wheel.js';
import { VENV_PYTHON } from '../../floor/names.js';

/** The install's variables and record line, as the build spec carries them. */
export type ProjectInstall = ProjectVersion;

const SHIM = `from setuptools import setup\\nsetup()\\n`;

/** `quote`: steps.ts's shell quoting (passed in: steps.ts imports this file). */
export function editableInstallLines(
  pip: string,
  install: ProjectInstall,
  quote: (text: string) => string,
): string[] {
  const lines = [
    'cd /work',
    `if [ ! -e setup.py ] && [ ! -e pyproject.toml ]; then printf '${SHIM}' > setup.py; echo 'piper: setup.cfg only: setup.py shim written (the workspace is deleted after the build)'; fi`,
  ];
  if (install.note) lines.push(`echo ${quote(`piper: ${install.note}`)}`);
  for (const [name, value] of Object.entries(install.env ?? {})) lines.push(`export ${name}=${quote(value)}`);
  if (install.pkgInfo)
    lines.push(
      `[ -e PKG-INFO ] || printf 'Metadata-Version: 2.1\\nVersion: %s\\n' ${quote(install.pkgInfo)} > PKG-INFO`,
    );
  // The backend's own PEP 660 build, unpacked without pip (editable-wheel.ts); pip when it cannot.
  lines.push(
    `if ${VENV_PYTHON} -I -B -c ${quote(EDITABLE_WHEEL_SOURCE)}; then :; else`,
    `  echo "piper: the build backend's editable install did not complete (exit $?); pip installs the project"`,
    `  ${pip} install --no-cache-dir --no-deps --no-build-isolation --no-index --use-pep517 -e /work`,
    'fi',
  );
  return lines;
}
