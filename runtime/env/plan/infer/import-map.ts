// Which distribution provides a module a test imports. Debian names a Python library's package
// after its import name (`python3-yaml` is PyYAML, `python3-dateutil` python-dateutil), so Debian's
// PyPI → Debian map (dh-python's, debian-names.ts) read backwards answers most: module `x` (or a
// namespace's `a.b`) → package `python3-x` → the PyPI name that maps to it. EXCEPTIONS holds the
// modules that convention misses (Debian names the package otherwise, or the module belongs to a
// distribution of another name); an entry is checked first. The same relations, read forwards,
// give the module names a declared distribution provides, so an import of a declared one is known.
import { debianNameMap } from '../debian-names.js';
import { normalizeName } from '../read/normalize.js';

/** Module (or `namespace.module`) → PyPI distribution, where Debian's package names do not say it. */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  yaml: 'PyYAML',
  PIL: 'pillow',
  attr: 'attrs',
  dateutil: 'python-dateutil',
  bs4: 'beautifulsoup4',
  sklearn: 'scikit-learn',
  skimage: 'scikit-image',
  cv2: 'opencv-python',
  Crypto: 'pycryptodome',
  Cryptodome: 'pycryptodomex',
  OpenSSL: 'pyOpenSSL',
  dns: 'dnspython',
  jwt: 'PyJWT',
  serial: 'pyserial',
  usb: 'pyusb',
  git: 'GitPython',
  zmq: 'pyzmq',
  nacl: 'PyNaCl',
  hamcrest: 'PyHamcrest',
  MySQLdb: 'mysqlclient',
  gi: 'PyGObject',
  dotenv: 'python-dotenv',
  slugify: 'python-slugify',
  multipart: 'python-multipart',
  docx: 'python-docx',
  magic: 'python-magic',
  'google.protobuf': 'protobuf',
  pkg_resources: 'setuptools',
  _pytest: 'pytest',
  // pytest ships a `py` shim (py.path, py.error) since 7.2; the `py` distribution is retired.
  py: 'pytest',
  xdist: 'pytest-xdist',
  pytest_cov: 'pytest-cov',
  typing_extensions: 'typing-extensions',
  // Debian's map lists the fork html5lib-modern first for python3-html5lib, whose own name the
  // convention covers: the package installs html5lib, so a requirement of the fork never counts met.
  html5lib: 'html5lib',
};

let reverse: Map<string, string> | undefined;

/** Debian package → the first PyPI name that maps to it. */
function byDebianPackage(): Map<string, string> {
  if (!reverse) {
    reverse = new Map();
    for (const [pypi, debian] of debianNameMap()) if (!reverse.has(debian)) reverse.set(debian, pypi);
  }
  return reverse;
}

function debianPackageOf(module: string): string {
  return `python3-${module.toLowerCase().replace(/_/g, '-')}`;
}

/** The distribution that provides `dotted` (`a.b`) or its top-level `module`, or null if unknown. */
export function distributionForModule(module: string, dotted = module): string | null {
  const exception = EXCEPTIONS[dotted] ?? EXCEPTIONS[module];
  if (exception) return exception;
  const debian = byDebianPackage();
  // A namespace package's part (`zope.interface` → python3-zope.interface) before the namespace.
  const candidates = dotted !== module ? [dotted, module] : [module];
  for (const candidate of candidates) {
    const pypi = debian.get(debianPackageOf(candidate));
    if (pypi) return pypi;
  }
  return null;
}

/** A module name as compared with others: case and `-`/`_` do not matter. */
export function moduleKey(module: string): string {
  return module.toLowerCase().replace(/-/g, '_');
}

/** The module names (moduleKey form) a distribution probably provides, from the same relations. */
export function modulesOfDistribution(name: string): string[] {
  const normalized = normalizeName(name);
  const out = new Set<string>([moduleKey(normalized)]);
  const debian = debianNameMap().get(normalized);
  if (debian?.startsWith('python3-')) out.add(moduleKey(debian.slice('python3-'.length)));
  for (const [module, pypi] of Object.entries(EXCEPTIONS))
    if (normalizeName(pypi) === normalized) out.add(moduleKey(module));
  return [...out];
}
