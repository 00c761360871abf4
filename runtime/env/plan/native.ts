// Whether a project has compiled parts, read from its files on the host (setup.py as text, never
// run): setuptools' `ext_modules` / `Extension(` / `cythonize(`, pyproject's
// [tool.setuptools] ext-modules, a meson-python or scikit-build-core backend. Then what the build
// needs beyond the requirements: a compiler and Python's headers, g++ for C++ sources, and the
// Debian -dev package of each library a source includes (a small map, below). Rust extensions
// (setuptools-rust, maturin) are out of scope: their toolchain is not in Debian's packages at a
// usable version for most projects, so the plan says so and the build goes on without them.
import { includedHeaders, setsExtModules } from './read/text-scan.js';
import { planSnapshot } from '../../workspace/snapshot.js';
import { RepoReader } from './read/repo-reader.js';
import type { EnvPlan } from './types.js';

export interface NativeBuild {
  kind: 'setuptools' | 'meson-python' | 'scikit-build' | 'rust';
  /** What says so: `setup.py: Extension(`. */
  evidence: string;
  /** Debian packages the build step installs (not the run image). */
  apt: string[];
}

/** `#include <X>` (or Cython's `cdef extern from "X"`) → the Debian package with that header. */
const HEADER_PACKAGES: Array<[RegExp, string]> = [
  [/^zlib\.h$/, 'zlib1g-dev'],
  [/^yaml\.h$/, 'libyaml-dev'],
  [/^ffi\.h$/, 'libffi-dev'],
  [/^openssl\//, 'libssl-dev'],
  [/^sqlite3\.h$/, 'libsqlite3-dev'],
  [/^libxml\//, 'libxml2-dev'],
  [/^libxslt\//, 'libxslt1-dev'],
  [/^bzlib\.h$/, 'libbz2-dev'],
  [/^lzma\.h$/, 'liblzma-dev'],
  [/^expat\.h$/, 'libexpat1-dev'],
  [/^jpeglib\.h$/, 'libjpeg-dev'],
  [/^png\.h$/, 'libpng-dev'],
  [/^curl\/curl\.h$/, 'libcurl4-openssl-dev'],
  [/^uv\.h$/, 'libuv1-dev'],
  [/^gmp\.h$/, 'libgmp-dev'],
];
const SOURCE = /\.(c|h|cc|cpp|cxx|hpp|pyx|pxd)$/;
const CPP = /\.(cc|cpp|cxx|hpp)$/;
const NOT_PACKAGE = /^(tests?|testing|docs?|examples?|benchmarks?|\.github)\//;
/** Bytes read of sources for their includes, in all: enough for any real project's own C. */
const INCLUDE_BUDGET = 8 << 20;

export function detectNative(repoRoot: string, plan: EnvPlan): NativeBuild | null {
  const reader = new RepoReader(repoRoot);
  const kind = nativeKind(reader, plan);
  if (!kind) return null;
  if (kind.kind === 'rust') return { ...kind, apt: [] };
  const sources = planSnapshot(repoRoot).entries.filter((e) => e.kind === 'file' && isPackageSource(e.path));
  const texts = sources.map((e) => ({
    path: e.path,
    text: () => reader.read(e.path, 'dependencies')?.toString('utf8') ?? '',
  }));
  return { ...kind, apt: buildToolPackages(texts) };
}

/** Whether a path in a source tree is a compiled-language source of the package (not its tests or docs). */
export function isPackageSource(path: string): boolean {
  return SOURCE.test(path) && !NOT_PACKAGE.test(path);
}

/**
 * Debian's packages that build these C/C++/Cython sources: the compiler, Python's headers, g++ for
 * C++, and the -dev package of each library they include (read within INCLUDE_BUDGET bytes).
 */
export function buildToolPackages(sources: Array<{ path: string; text: () => string }>): string[] {
  const apt = new Set(['gcc', 'libc6-dev', `python3-dev`]);
  let budget = INCLUDE_BUDGET;
  for (const { path, text } of sources) {
    if (CPP.test(path)) apt.add('g++');
    if (budget <= 0) continue;
    const read = text();
    budget -= read.length;
    for (const header of includedHeaders(read)) {
      for (const [re, pkg] of HEADER_PACKAGES) if (re.test(header)) apt.add(pkg);
    }
  }
  return [...apt].sort();
}

function nativeKind(reader: RepoReader, plan: EnvPlan): Omit<NativeBuild, 'apt'> | null {
  const backend = plan.project.buildBackend ?? '';
  if (backend.startsWith('mesonpy')) return { kind: 'meson-python', evidence: `build backend ${backend}` };
  if (backend.startsWith('scikit_build_core'))
    return { kind: 'scikit-build', evidence: `build backend ${backend}` };
  if (backend.startsWith('maturin')) return { kind: 'rust', evidence: `build backend ${backend}` };
  const setupPy = reader.read('setup.py', 'dependencies')?.toString('utf8') ?? '';
  if (/RustExtension\(|setuptools_rust/.test(setupPy))
    return { kind: 'rust', evidence: 'setup.py: setuptools-rust' };
  const said = /\bext_modules\b|\bExtension\(|\bcythonize\(/.exec(setupPy);
  if (said) return { kind: 'setuptools', evidence: `setup.py: ${said[0]}` };
  const pyproject = reader.read('pyproject.toml', 'dependencies')?.toString('utf8') ?? '';
  if (setsExtModules(pyproject))
    return { kind: 'setuptools', evidence: 'pyproject.toml: [tool.setuptools] ext-modules' };
  return null;
}

/** One line for the user: what was found and what the build will do about it. */
export function nativeNote(n: NativeBuild): string {
  if (n.kind === 'rust')
    return `compiled parts in Rust (${n.evidence}) are out of scope: built without them; a test that needs them fails`;
  return `compiled parts (${n.evidence}): built with ${n.apt.join(' ')} in the build step only; the environment's key covers every file of the workspace`;
}
