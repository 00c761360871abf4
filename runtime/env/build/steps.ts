// The shell each environment build step runs, as pure functions of the plan. Scripts carry no
// credentials (those go in an exec's environment), and each prints machine-readable lines
// (`piper-meta PATH`, `piper-dpkg NAME VERSION`, `piper-pip-report`) the builder reads back.
import { ENV_PATH, VENV, VENV_PYTHON } from '../floor/names.js';
import type { StepSpec } from './build-box.js';
import { CLIENT_CERT_PRELUDE } from './network/index-files.js';
import { editableInstallLines, type ProjectInstall } from './project/project-install.js';

/** One shell word, single-quoted: the scripts of every build step quote their arguments with it. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const PIP = `${VENV_PYTHON} -m pip --disable-pip-version-check --no-input`;

/**
 * Debian's data directories a library finds under sys.prefix/share, which is /usr for Debian's
 * Python and the venv for the tests: PROJ's (pyproj, and rasterio, fiona and pyogrio through it)
 * and GDAL's (rasterio, fiona, pyogrio). Each is a link of its own in the venv's share/, never
 * share/ itself: what a wheel installs as data into share/ (man pages, jupyter files) stays in the
 * venv, and a write through one of these links leaves the venv, which fails the build
 * (downloaded-code.ts).
 */
const SHARED_DATA = ['proj', 'gdal'];

export function venvStep(): StepSpec {
  return {
    name: 'venv',
    // No pip of its own: Debian's pip (visible through the system site-packages) installs into the
    // venv when run by the venv's Python, which saves ensurepip's time and size. (Not `pip
    // --version` after it: 0.6 s to learn what the first pip step says anyway.)
    script: `python3 -m venv --without-pip --system-site-packages ${VENV} && mkdir -p ${VENV}/share && ln -s ${SHARED_DATA.map((d) => `/usr/share/${d}`).join(' ')} ${VENV}/share/`,
    timeoutS: 120,
  };
}

/**
 * Printed by an apt step whose apt rebuilt its binary cache of the lists: a copy taken before the
 * install (which rewrites pkgcache.bin with the new dpkg status) is in APT_CACHE_COPY, to keep.
 */
export const APT_CACHE_REBUILT = 'piper-apt-cache-rebuilt';
// Not under /tmp: the engine's archive endpoint does not see into a tmpfs. The clean step removes it.
export const APT_CACHE_COPY = '/var/cache/apt/piper-copy';
/** Printed by an apt step that downloaded packages: the package cache is worth keeping again. */
export const APT_DEBS_FETCHED = 'piper-apt-debs-fetched';
const PKGCACHE_STAMP = 'stat -c %Y.%s /var/cache/apt/pkgcache.bin 2>/dev/null || echo none';

/**
 * apt from the image's Debian sources (`update`: fetch the lists first). `strict`: every package must exist (the recipe asked for
 * them by name); otherwise the missing ones are reported (`piper-missing NAME`) and the rest installed.
 * `downloadOnly`: the packages (and what they need on this image) only downloaded into apt's
 * archives, for an offline install elsewhere (apt-offline.ts).
 */
export function aptStep(
  name: string,
  packages: string[],
  strict: boolean,
  update = true,
  downloadOnly = false,
): StepSpec {
  const list = packages.map(shQuote).join(' ');
  const script = [
    'set -e',
    'export DEBIAN_FRONTEND=noninteractive',
    // Before the update: `apt-get update` itself rebuilds the cache at its end.
    `cache_before=$(${PKGCACHE_STAMP})`,
    // Lists already in the box (apt-cache.ts) are not fetched again.
    ...(update
      ? [
          // GzipIndexes: the lists stay compressed, a fraction of the size: cheap to keep (apt-cache.ts).
          'apt-get update -qq -o Acquire::GzipIndexes=true -o Acquire::Retries=1 -o Acquire::http::Timeout=20 -o Acquire::https::Timeout=20',
        ]
      : []),
    // One `apt-cache policy` for every name (about 0.1 s; `apt-cache show` is 0.3 s a name): a name
    // with a candidate version is installable; one unknown, or virtual with none, is missing.
    `avail=" $(apt-cache policy ${list} 2>/dev/null | awk '/^[^ ]/ { p = $0; sub(/:$/, "", p) } /^  Candidate:/ { if ($2 != "(none)") printf "%s ", p }')"`,
    `if [ "$(${PKGCACHE_STAMP})" != "$cache_before" ]; then mkdir -p ${APT_CACHE_COPY} && cp /var/cache/apt/pkgcache.bin /var/cache/apt/srcpkgcache.bin ${APT_CACHE_COPY}/ && echo ${APT_CACHE_REBUILT}; fi`,
    'install=""',
    'missing=""',
    `for p in ${list}; do`,
    '  case "$avail" in *" $p "*) install="$install $p" ;; *) missing="$missing $p"; echo "piper-missing $p" ;; esac',
    'done',
    // A package the recipe names but Debian does not have fails the step by name.
    ...(strict ? ['[ -z "$missing" ] || { echo "no such Debian package:$missing" >&2; exit 3; }'] : []),
    'debs_before=$(ls /var/cache/apt/archives | grep -c "\\.deb$" || true)',
    `[ -z "$install" ] || apt-get install -y -qq --no-install-recommends${downloadOnly ? ' --download-only' : ''} $install`,
    // Only a step that downloaded something has packages the kept ones lack (apt-cache.ts).
    `[ "$(ls /var/cache/apt/archives | grep -c "\\.deb$" || true)" = "$debs_before" ] || echo ${APT_DEBS_FETCHED}`,
    ...(downloadOnly
      ? []
      : ['[ -z "$install" ] || dpkg-query -W -f=\'piper-dpkg ${Package} ${Version}\\n\' $install']),
  ];
  return { name, script: script.join('\n'), timeoutS: 600 };
}

/**
 * The repository's own wheels, in a container with no network and no secret: `--no-index` and
 * only the copied wheel directories, `--no-deps` (a wheel's metadata names no source pip could
 * reach here anyway, and what it depends on was installed in the dependency phase).
 */
export function repoWheelsStep(requirements: string[], dirs: string[]): StepSpec {
  const args = [
    '--no-cache-dir',
    '--no-index',
    '--no-deps',
    ...dirs.flatMap((d) => ['--find-links', d]),
    ...requirements,
  ];
  return {
    name: 'wheelhouse',
    script: `set -e\n${PIP} install ${args.map(shQuote).join(' ')}`,
    env: ['PIP_CONFIG_FILE=/dev/null'],
    timeoutS: 300,
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
 * The project installed editable with its own build backend (no build isolation, no index, no
 * deps: everything it needs is already in the venv), so importlib.metadata and entry points see it.
 * `install`: the install's own lines (project-install.ts): PEP 660 always, a setup.cfg-only
 * project's shim, the VCS version's variables. No pip configuration of the image adds a source.
 */
export function projectStep(install: ProjectInstall = {}): StepSpec {
  const lines = [
    'set -e',
    'export PIP_CONFIG_FILE=/dev/null',
    ...editableInstallLines(PIP, install, shQuote),
  ];
  return { name: 'project', script: lines.join('\n'), timeoutS: 600 };
}

/**
 * The sandbox's root filesystem is writable by root only (docs/sandbox.md): a path a package or a
 * setup command left writable by the sandbox's user (world-writable, or owned by uid or gid 1000)
 * would let a run write the container's disk unbounded, so it is given back to root. /tmp, /var/tmp
 * and /work are size-capped tmpfs mounts at run time.
 */
const ROOT_ONLY = `find / -xdev ! -path /tmp ! -path /var/tmp ! -path /work \\( -type d -o -type f \\) \\( -perm -0002 -o -user 1000 -o -group 1000 \\) -exec chmod go-w {} + -exec chown root:root {} + 2>/dev/null`;

/** Nothing of the project stays in the image: the workspace arrives with each call. */
export function cleanStep(): StepSpec {
  return {
    name: 'clean',
    script: `rm -rf /work/* /work/.[!.]* /work/..?* /root/.cache /var/lib/apt/lists/* /var/cache/apt/*.bin ${APT_CACHE_COPY} /var/cache/apt/archives/*.deb /tmp/* 2>/dev/null; chown 1000:1000 /work; ${ROOT_ONLY}; true`,
    timeoutS: 120,
  };
}

/**
 * Whether the pip step's indexes answer at all, asked before pip: pip itself says only "from
 * versions: none" when an index cannot be reached, the same words as for a package it does not
 * have. Any HTTP answer (a 401, a 404, a 405) counts as reachable: a HEAD, as an index's root page
 * can be a list of every project (tens of MB, over a second through a proxy that reads it whole).
 * Each index is given pip's own patience
 * (PIP_TIMEOUT seconds a try, PIP_RETRIES more tries with pip's backoff), so a slow reply is not
 * taken for none. pip's own default index is named by pip (its PyPI constant), and shown only as
 * "pip's default index". Debian's Python, before anything is installed: no repository code can run
 * here.
 */
export function indexProbeStep(env: string[]): StepSpec {
  const program = [
    'import os, re, time, urllib.request, urllib.error',
    // A client certificate the index asks for (pip's client-cert): without it no TLS handshake.
    CLIENT_CERT_PRELUDE,
    'from pip._internal.models.index import PyPI',
    'wait = float(os.environ.get("PIP_TIMEOUT") or 15)',
    'tries = int(os.environ.get("PIP_RETRIES") or 5) + 1',
    'given = os.environ.get("PIP_INDEX_URL")',
    'urls = [(u, u) for u in given.split()] if given else [(PyPI.simple_url, "pip\'s default index")]',
    'urls += [(u, u) for u in os.environ.get("PIP_EXTRA_INDEX_URL", "").split()]',
    'reached = 0',
    'for url, shown in urls:',
    '    for attempt in range(tries):',
    '        try:',
    '            urllib.request.urlopen(urllib.request.Request(re.sub(r"//[^/@]*@", "//", url), method="HEAD"), timeout=wait)',
    '            reached += 1',
    '            break',
    '        except urllib.error.HTTPError:',
    '            reached += 1',
    '            break',
    '        except Exception as e:',
    '            if attempt + 1 == tries:',
    '                print("piper-unreachable", shown, type(e).__name__, str(e)[:120])',
    '            else:',
    '                time.sleep(0.25 * 2 ** attempt)',
    'print("piper-reached", reached)',
  ].join('\n');
  return {
    name: 'index probe',
    script: `python3 -c ${shQuote(program)}`,
    env,
    timeoutS: patienceBudget(env),
  };
}

/**
 * The time a networked step that asks the indexes may take: every index given pip's whole patience
 * (PIP_TIMEOUT a try, PIP_RETRIES more, from the step's environment), and a minute to spare. The
 * probe's limit, and the floor of the download steps': a user's long timeout is waited out, not cut.
 */
export function patienceBudget(env: string[]): number {
  const value = (name: string, fallback: number) => {
    const n = Number(env.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1));
    return Number.isFinite(n) && n >= 0 ? n : fallback;
  };
  const extra = env.find((e) => e.startsWith('PIP_EXTRA_INDEX_URL='));
  const indexes = 1 + (extra ? extra.split('=').slice(1).join('=').split(/\s+/).filter(Boolean).length : 0);
  const tries = value('PIP_RETRIES', 5) + 1;
  return Math.ceil(60 + indexes * tries * (value('PIP_TIMEOUT', 15) + 8));
}
