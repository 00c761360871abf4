// The steps of a download-only dependency round and of the offline install after it. The networked
// box only resolves and downloads — wheels, read as data by pip, and a source distribution's file
// fetched by a stdlib script — and never installs or builds anything: no distribution's code runs
// while a network or a credential is present. Building an sdist and installing everything happen
// in boxes with no network and no secret, from the downloaded files.
import type { StepSpec } from '../build-box.js';
import { VENV_PYTHON } from '../../floor/names.js';
import type { Redactor } from '../../plan/secrets.js';
import { patienceBudget, shQuote } from '../steps.js';
import { CLIENT_CERT_PRELUDE } from '../network/index-files.js';

export const DOWNLOADS = '/opt/piper/downloads';
export const SDISTS = '/opt/piper/sdists';
/** Wheels built offline from sdists: a find-links directory of the next networked round. */
export const BUILT = '/opt/piper/built';
/** The names of the cached wheels put into DOWNLOADS before the step (wheel-cache.ts), one a line. */
export const SEEDED = '/opt/piper/seeded-wheels';

const PIP = `${VENV_PYTHON} -m pip --disable-pip-version-check --no-input`;
// Debian's own Python and pip: the download needs no venv (the top-up's box has none).
const SYSTEM_PIP = 'python3 -I -m pip --disable-pip-version-check --no-input';

/**
 * pip download of wheels only (`--only-binary=:all:`: an sdist would have its metadata hook run
 * here) into DOWNLOADS, from the sources in `env` (exec-only, credentials and all). Nothing is
 * installed: the venv stays as apt and venv left it, so no Python here imports a downloaded file.
 * pip's timeout and retries, and whether it may ask an index at all, are in `env` too.
 */
export function pipDownloadStep(requirements: string[], env: string[], redactor: Redactor): StepSpec {
  const args = [
    '--no-cache-dir',
    '--only-binary=:all:',
    '--progress-bar',
    'off',
    '--dest',
    DOWNLOADS,
    ...requirements,
  ];
  const command = `${SYSTEM_PIP} download ${args.map(shQuote).join(' ')}`;
  // pip's notes (stdout) go to a file, its warnings and errors stay in the step's output. A cached
  // wheel in DOWNLOADS is "already downloaded" for pip (checked against the index's hash when the
  // page gives one); those pip did not take leave, so the offline install sees only this resolution.
  const script = [
    'set -e',
    `mkdir -p ${DOWNLOADS}`,
    'cd /tmp',
    `${command} > /tmp/pip-download.log`,
    `if [ -f ${SEEDED} ]; then`,
    `  sed 's/^ *//' /tmp/pip-download.log > /tmp/pip-download.said`,
    '  while IFS= read -r f; do',
    `    grep -qxF -e "File was already downloaded ${DOWNLOADS}/$f" -e "Saved ${DOWNLOADS}/$f" /tmp/pip-download.said || rm -f "${DOWNLOADS}/$f"`,
    `  done < ${SEEDED}`,
    `  rm -f ${SEEDED}`,
    'fi',
    // The wheels built offline are installed from DOWNLOADS with the rest.
    `cp ${BUILT}/*.whl ${DOWNLOADS}/ 2>/dev/null || true`,
    'echo piper-downloaded',
    `ls ${DOWNLOADS}`,
  ].join('\n');
  const shown = env.filter((e) => !e.startsWith('PIP_CONFIG_FILE='));
  return {
    name: 'pip',
    script,
    display: redactor.text([...shown, command].join(' ')),
    env,
    timeoutS: Math.max(600, patienceBudget(env)),
  };
}

/** The file names the download step listed after its marker line. */
export function downloadedFiles(stdout: string): string[] {
  const at = stdout.lastIndexOf('piper-downloaded\n');
  if (at < 0) return [];
  return stdout
    .slice(at + 'piper-downloaded\n'.length)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[A-Za-z0-9][\w.+!-]*\.(whl|tar\.gz|zip)$/.test(l));
}

/**
 * How the offline install treats what the image already holds. `debian`: a requirement an installed
 * distribution meets (Debian's, in the image) is left as it is. `fresh` (sources = index, the new
 * venv of the dependencies phase): the downloaded resolution goes into the venv whole
 * (`--ignore-installed`), as in a clean venv: no Debian package stands in for a version the index
 * gave. `onto` (sources = index, a venv that already holds the dependencies: the top-up): the
 * requirements themselves go in from the downloads (`--no-deps --ignore-installed`; none is in the
 * venv yet), then their own requirements as pip resolves them against what is installed.
 */
export type InstallOver = 'debian' | 'fresh' | 'onto';

/**
 * Every requirement installed from the downloaded (and built) files alone: `--no-index`, the
 * download directories as find-links, no secret, in a box with no network. pip's report says what.
 */
export function offlineInstallStep(
  requirements: string[],
  dirs: string[],
  over: InstallOver = 'debian',
  /**
   * The project's own distribution (normalized), when it is installable: a copy of it that the
   * resolution brought from the index (a dependency that requires the project: pytest needs
   * iniconfig) is uninstalled, so the checkout's editable install is the only one and what imports.
   */
  own: string | null = null,
): StepSpec {
  const args = (report: string, ...extra: string[]) =>
    [
      '--no-cache-dir',
      '--no-index',
      ...dirs.flatMap((d) => ['--find-links', d]),
      '--quiet',
      ...extra,
      '--report',
      report,
      ...requirements,
    ]
      .map(shQuote)
      .join(' ');
  const lines =
    over === 'onto'
      ? [
          `piper_install ${args('/tmp/pip-report-own.json', '--no-deps', '--ignore-installed')}`,
          `piper_install ${args('/tmp/pip-report-deps.json')}`,
          // One report of both (Debian's Python, isolated, no site: it reads two JSON files).
          `python3 -I -S -c ${shQuote(MERGE_REPORTS)} /tmp/pip-report-own.json /tmp/pip-report-deps.json > /tmp/pip-report.json`,
        ]
      : [
          `piper_install ${over === 'fresh' ? args('/tmp/pip-report.json', '--ignore-installed') : args('/tmp/pip-report.json')}`,
        ];
  if (own !== null && over !== 'debian')
    lines.push(`${PIP} uninstall --yes --quiet ${shQuote(own)} > /dev/null 2>&1 || true`);
  const script = [
    'set -e',
    INSTALL_WITH_REPORT,
    ...lines,
    'echo piper-pip-report',
    'cat /tmp/pip-report.json',
  ].join('\n');
  return { name: 'install', script, env: ['PIP_CONFIG_FILE=/dev/null'], timeoutS: 900 };
}

/** The install report of a pip before 22.2: the dist-info directories the install added to the venv, with their METADATA's name and version. */
const OLD_PIP_REPORT = `import glob, json, os, sys
site, before = sys.argv[1], set(open(sys.argv[2]).read().split())
out = []
for d in sorted(glob.glob(os.path.join(site, "*.dist-info"))):
    meta = {}
    if d in before or not os.path.exists(os.path.join(d, "METADATA")):
        continue
    for line in open(os.path.join(d, "METADATA"), encoding="utf-8", errors="replace"):
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key in ("Name", "Version"):
            meta.setdefault(key.lower(), value.strip())
    out.append({"metadata": meta})
print(json.dumps({"install": out}))`;

/**
 * `piper_install ARGS --report FILE`: pip install with its report, as pip 22.2 and later write it.
 * Debian bullseye's pip (20.3, Python 3.9) has no --report: there the install runs without it and
 * the report is made from the dist-info directories it added to the venv.
 */
const INSTALL_WITH_REPORT = [
  `if ${VENV_PYTHON} -I -B -c 'import pip, sys; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (22, 2))' 2>/dev/null; then piper_old_pip=; else piper_old_pip=1; fi`,
  'piper_install() {',
  `  if [ -z "$piper_old_pip" ]; then ${PIP} install "$@"; return; fi`,
  '  r=; prev=',
  '  for a do shift; if [ "$prev" = --report ]; then r=$a; prev=; continue; fi; prev=$a; [ "$a" = --report ] || set -- "$@" "$a"; done',
  `  site=$(${VENV_PYTHON} -I -B -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')`,
  '  ls -d "$site"/*.dist-info > /tmp/piper-dist-before 2>/dev/null || true',
  `  ${PIP} install "$@" || return $?`,
  `  python3 -I -S -c ${shQuote(OLD_PIP_REPORT)} "$site" /tmp/piper-dist-before > "$r"`,
  '}',
].join('\n');

const MERGE_REPORTS =
  'import json, sys\nout = json.load(open(sys.argv[1]))\nout["install"] = out.get("install", []) + json.load(open(sys.argv[2])).get("install", [])\nprint(json.dumps(out))';

/**
 * An sdist built into a wheel with no network and no secret, by Debian's Python and setuptools
 * (no build isolation: nothing can be fetched). The build is the distribution's own code.
 */
export function sdistBuildStep(file: string): StepSpec {
  const command = `python3 -m pip --disable-pip-version-check --no-input wheel --no-deps --no-index --no-build-isolation --no-cache-dir --wheel-dir ${BUILT} ${shQuote(`${SDISTS}/${file}`)}`;
  return {
    name: `build ${file}`,
    script: `set -e\nexport PIP_CONFIG_FILE=/dev/null\nmkdir -p ${BUILT}\ncd /tmp\n${command}`,
    timeoutS: 900,
  };
}

// Run by Debian's Python with -I (nothing of the environment's, no user site): the PEP 503 page of
// one project on each index, its sdist links listed, or one of them fetched (its sha256 checked when
// the link gives one). Credentials (the URL's, else the netrc's login for the index's host) go only
// to the index's own host, never along a redirect elsewhere. pip's no-index: no index is asked.
// Each request is given pip's own patience (PIP_TIMEOUT a try, PIP_RETRIES more with pip's backoff,
// on the failures and statuses pip retries), so one slow reply does not lose a page pip would get.
const SDIST_SCRIPT = String.raw`
${CLIENT_CERT_PRELUDE}
import base64, hashlib, html.parser, os, re, sys, time, urllib.error, urllib.parse, urllib.request
mode, name = sys.argv[1], sys.argv[2]
norm = lambda s: re.sub(r"[-_.]+", "-", s).lower()
given = os.environ.get("PIP_INDEX_URL", "").split()
wait = float(os.environ.get("PIP_TIMEOUT") or 15)
if not given:
    from pip._internal.models.index import PyPI
    given = [PyPI.simple_url]
indexes = given + os.environ.get("PIP_EXTRA_INDEX_URL", "").split()
if os.environ.get("PIP_NO_INDEX"):
    indexes = []
def netrc_login(host):
    import netrc
    try:
        found = netrc.netrc(os.environ["NETRC"]).authenticators(host or "")
    except Exception:
        return None
    return (found[0] or found[1] or "") + ":" + found[2] if found and found[2] else None
class Redirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urllib.parse.urlsplit(newurl).netloc != urllib.parse.urlsplit(req.full_url).netloc:
            new.headers.pop("Authorization", None)
            new.unredirected_hdrs.pop("Authorization", None)
        return new
opener = urllib.request.build_opener(Redirect).open
tries = int(os.environ.get("PIP_RETRIES") or 5) + 1
def fetch(request, timeout):
    for attempt in range(tries):
        try:
            return opener(request, timeout=timeout)
        except urllib.error.HTTPError as e:
            if e.code not in (500, 502, 503, 520, 527) or attempt + 1 == tries:
                raise
        except OSError:
            if attempt + 1 == tries:
                raise
        time.sleep(0.25 * 2 ** attempt)
class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []
    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)
SDIST = re.compile(r"^(.+)-([^-]+)\.(tar\.gz|zip)$")
found = []
for index in indexes:
    parts = urllib.parse.urlsplit(index)
    info, _, host = parts.netloc.rpartition("@")
    headers = {"Accept": "text/html"}
    login = urllib.parse.unquote(info) if info else netrc_login(parts.hostname) if os.environ.get("NETRC") else None
    if login:
        headers["Authorization"] = "Basic " + base64.b64encode(login.encode()).decode()
    page = urllib.parse.urljoin(parts._replace(netloc=host).geturl().rstrip("/") + "/", norm(name) + "/")
    try:
        with fetch(urllib.request.Request(page, headers=headers), timeout=wait) as r:
            text, final = r.read(8 << 20).decode("utf-8", "replace"), r.geturl()
    except Exception as e:
        print("piper-sdist-error", type(e).__name__)
        continue
    links = Links()
    links.feed(text)
    for href in links.hrefs:
        url = urllib.parse.urljoin(final, href)
        file = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
        m = SDIST.match(file)
        if m and "/" not in file and not file.startswith(".") and norm(m.group(1)) == norm(name):
            same = urllib.parse.urlsplit(url).netloc == host
            found.append((m.group(2), file, url, headers if same else {}))
if mode == "list":
    for version, file, _, _ in found:
        print("piper-sdist", version, file)
    sys.exit(0)
for version, file, url, headers in found:
    if file != sys.argv[3]:
        continue
    with fetch(urllib.request.Request(url.split("#")[0], headers=headers), timeout=max(wait, 60)) as r:
        data = r.read(512 << 20)
    want = re.match(r"sha256=([0-9a-f]{64})$", urllib.parse.urlsplit(url).fragment)
    if want and hashlib.sha256(data).hexdigest() != want.group(1):
        print("piper-sdist-error sha256 mismatch")
        sys.exit(3)
    os.makedirs(sys.argv[4], exist_ok=True)
    with open(os.path.join(sys.argv[4], file), "wb") as out:
        out.write(data)
    print("piper-sdist-fetched", file)
    sys.exit(0)
print("piper-sdist-error not listed")
sys.exit(3)
`;

/** The sdists the indexes list for `name` (`piper-sdist VERSION FILE` lines). */
export function sdistListStep(name: string, env: string[]): StepSpec {
  return {
    name: `sdists of ${name}`,
    script: `python3 -I -c ${shQuote(SDIST_SCRIPT)} list ${shQuote(name)}`,
    display: `list the sdists of ${name} on the index (PEP 503 page, stdlib only)`,
    env,
    timeoutS: Math.max(120, patienceBudget(env)),
    quiet: true,
  };
}

/** One sdist's file fetched into SDISTS, not unpacked, not built. */
export function sdistFetchStep(name: string, file: string, env: string[]): StepSpec {
  return {
    name: `fetch ${file}`,
    script: `python3 -I -c ${shQuote(SDIST_SCRIPT)} fetch ${shQuote(name)} ${shQuote(file)} ${SDISTS}`,
    display: `fetch ${file} from the index without building it`,
    env,
    timeoutS: Math.max(600, patienceBudget(env)),
  };
}

/** `piper-sdist VERSION FILE` lines: version → file name (the first listed of each version). */
export function listedSdists(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    // The index's words: only a plain file name is kept (it names steps, files and records).
    const m = /^piper-sdist ([\w.+!-]+) ([A-Za-z0-9][\w.+!-]*\.(?:tar\.gz|zip))$/.exec(line.trim());
    if (m && !out.has(m[1]!)) out.set(m[1]!, m[2]!);
  }
  return out;
}
