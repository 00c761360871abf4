// The shell each environment build step runs, as pure functions of the plan. Scripts carry no
// credentials (those go in an exec's environment), and each prints machine-readable lines
// (`piper-versions {json}`, `piper-dpkg NAME VERSION`, `piper-pip-report`) the builder reads back.
import { ENV_PATH, VENV, VENV_PYTHON } from './names.js';
import type { StepSpec } from './build-box.js';
import { editableInstallLines, type ProjectInstall } from './project-install.js';

export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const PIP = `${VENV_PYTHON} -m pip --disable-pip-version-check --no-input`;

export function venvStep(): StepSpec {
  return {
    name: 'venv',
    // No pip of its own: Debian's pip (visible through the system site-packages) installs into the
    // venv when run by the venv's Python, which saves ensurepip's time and size.
    script: `python3 -m venv --without-pip --system-site-packages ${VENV} && ${VENV_PYTHON} -m pip --version`,
    timeoutS: 120,
  };
}

/**
 * apt from the image's Debian sources. `strict`: every package must exist (the recipe asked for
 * them by name); otherwise the missing ones are reported (`piper-missing NAME`) and the rest installed.
 */
export function aptStep(name: string, packages: string[], strict: boolean): StepSpec {
  const list = packages.map(shQuote).join(' ');
  const check = 'apt-cache show --no-all-versions "$p" >/dev/null 2>&1';
  const script = [
    'set -e',
    'export DEBIAN_FRONTEND=noninteractive',
    'apt-get update -qq -o Acquire::Retries=1 -o Acquire::http::Timeout=20 -o Acquire::https::Timeout=20',
    'avail=""',
    'missing=""',
    `for p in ${list}; do`,
    `  if ${check}; then avail="$avail $p"; else missing="$missing $p"; echo "piper-missing $p"; fi`,
    'done',
    // A package the recipe names but Debian does not have fails the step by name.
    ...(strict ? ['[ -z "$missing" ] || { echo "no such Debian package:$missing" >&2; exit 3; }'] : []),
    '[ -z "$avail" ] || apt-get install -y -qq --no-install-recommends $avail',
    '[ -z "$avail" ] || dpkg-query -W -f=\'piper-dpkg ${Package} ${Version}\\n\' $avail',
  ];
  return { name, script: script.join('\n'), timeoutS: 600 };
}

export interface PipSource {
  /** Exec-only environment: PIP_INDEX_URL / PIP_EXTRA_INDEX_URL with whatever credentials they hold. */
  env: string[];
  /** What the record shows for them. */
  display: string[];
  /** Directories inside the build container holding wheels (find-links). */
  findLinks: string[];
  /** No index at all: only the wheelhouse. */
  noIndex: boolean;
}

/** pip into the venv: a short connect timeout and no retries, so an index that is not there is known in seconds. */
export function pipStep(requirements: string[], source: PipSource): StepSpec {
  const args = [
    '--no-cache-dir',
    '--timeout',
    '5',
    '--retries',
    '0',
    '--quiet',
    '--report',
    '/tmp/pip-report.json',
    ...(source.noIndex ? ['--no-index'] : []),
    ...source.findLinks.flatMap((d) => ['--find-links', d]),
    ...requirements,
  ];
  const command = `${PIP} install ${args.map(shQuote).join(' ')}`;
  const script = `set -e\n${command}\necho piper-pip-report\ncat /tmp/pip-report.json`;
  return {
    name: 'pip',
    script,
    display: [...source.display, command].join(' '),
    env: source.env,
    timeoutS: 600,
  };
}

/** The installed version of each distribution, as the venv's Python sees it (None when absent). */
export function versionsStep(name: string, distributions: string[]): StepSpec {
  const program = [
    'import json, sys, importlib.metadata as m',
    'out = {}',
    'for n in sys.argv[1:]:',
    '    try: out[n] = m.version(n)',
    '    except m.PackageNotFoundError: out[n] = None',
    'print("piper-versions " + json.dumps(out))',
  ].join('\n');
  return {
    name,
    script: `${VENV_PYTHON} -c ${shQuote(program)} ${distributions.map(shQuote).join(' ')}`,
    timeoutS: 60,
  };
}

/** A recipe's setup command, run as root in the project's directory, with no network. */
export function setupStep(index: number, command: string): StepSpec {
  return {
    name: `setup ${index + 1}`,
    script: `set -e\ncd /work\nexport PATH=${ENV_PATH}\n${command}`,
    timeoutS: 900,
  };
}

/**
 * The project made importable from the workspace (a .pth naming `importRoot`) and, when it has
 * metadata, installed editable with its own build backend (no build isolation, no index, no deps:
 * everything it needs is already in the venv), so importlib.metadata and entry points see it.
 * [real-fixtures hook] `install`: the editable install's own lines (project-install.ts): PEP 660
 * always, a setup.cfg-only project's shim, the VCS version's variables.
 */
export function projectStep(
  importRoot: string,
  installable: boolean,
  install: ProjectInstall = {},
): StepSpec {
  const lines = [
    'set -e',
    `site=$(${VENV_PYTHON} -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')`,
    `echo ${shQuote(importRoot)} > "$site/_piper_workspace.pth"`,
  ];
  if (installable) lines.push(...editableInstallLines(PIP, install, shQuote));
  return { name: 'project', script: lines.join('\n'), timeoutS: 600 };
}

/** What pip put into the venv itself (Debian's packages are reported by dpkg-query). */
export function listStep(): StepSpec {
  return {
    name: 'resolved',
    script: `site=$(${VENV_PYTHON} -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')\n${PIP} list --format json --path "$site"`,
    timeoutS: 120,
  };
}

/** Nothing of the project stays in the image: the workspace arrives with each call. */
export function cleanStep(): StepSpec {
  return {
    name: 'clean',
    script:
      'rm -rf /work/* /work/.[!.]* /work/..?* /root/.cache /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb /tmp/* 2>/dev/null; chown 1000:1000 /work; true',
    timeoutS: 120,
  };
}
