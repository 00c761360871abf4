// What setup.cfg says (setuptools' declarative config): [metadata] name, [options]
// install_requires, [options.extras_require] by extra, python_requires and classifiers, and where
// [options] package_dir puts the packages. Requirement lists are one per line (or `;`-separated on
// one line); `#` comments dropped, as setuptools does.
import { iniLines, parseIni } from '../read/ini.js';
import type { ListedRequirement } from './pyproject.js';
import type { RepoReader } from '../read/repo-reader.js';

export const SETUP_CFG = 'setup.cfg';

export interface SetupCfg {
  /** Whether it describes a package ([metadata] or [options]), not only tool settings. */
  declaresProject: boolean;
  name: string | null;
  installRequires: ListedRequirement[];
  extras: Map<string, ListedRequirement[]>;
  packageDir: { dir: string; key: string } | null;
  /** [options] python_requires, null when absent. */
  pythonRequires: string | null;
  /** [metadata] classifiers, one per line. */
  classifiers: string[];
}

function requirementLines(value: string | undefined, from: string): ListedRequirement[] {
  // setuptools splits a value written on one line at `;` (`test = pytest; pytest-xdist`), a
  // value of several lines at its line ends only.
  const lines = iniLines(value);
  const listed = lines.length === 1 && !value!.trim().includes('\n') ? lines[0]!.split(';') : lines;
  return listed
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => ({ text: line.replace(/\s+#.*$/, ''), from }));
}

export function readSetupCfg(reader: RepoReader): SetupCfg | null {
  const text = reader.readText(SETUP_CFG, 'dependencies');
  if (text === null) return null;
  const ini = parseIni(text, SETUP_CFG);
  const options = ini.get('options');
  const extras = new Map<string, ListedRequirement[]>();
  for (const [extra, value] of ini.get('options.extras_require') ?? []) {
    extras.set(extra, requirementLines(value, `${SETUP_CFG} [options.extras_require].${extra}`));
  }
  // package_dir is a mapping, one `name = dir` per line; the root package is the empty name.
  let packageDir: SetupCfg['packageDir'] = null;
  for (const line of iniLines(options?.get('package_dir'))) {
    const [name, dir] = line.split('=').map((part) => part.trim());
    if (name === '' && dir !== undefined) packageDir = { dir, key: '[options].package_dir' };
  }
  const where = iniLines(ini.get('options.packages.find')?.get('where'))[0];
  if (!packageDir && where !== undefined) packageDir = { dir: where, key: '[options.packages.find].where' };
  return {
    declaresProject: ini.has('metadata') || ini.has('options'),
    name: ini.get('metadata')?.get('name') ?? null,
    installRequires: requirementLines(
      options?.get('install_requires'),
      `${SETUP_CFG} [options].install_requires`,
    ),
    extras,
    packageDir,
    pythonRequires: options?.get('python_requires') || null,
    classifiers: iniLines(ini.get('metadata')?.get('classifiers')),
  };
}
