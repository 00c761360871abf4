// Whether a project takes its version from git (setuptools-scm and the backends built on it:
// hatch-vcs, flit_scm; pdm-backend's scm source; setuptools-git-versioning), found from its files alone. The sandbox's
// workspace has no .git, so such a project's editable install fails with "unable to detect
// version" unless the version read on the host is given to the build (runtime/env/plan/vcs-version.ts).
// Versioneer is not among them: without .git it falls back to "0+unknown" and does not fail; it
// reads no variable we could set.
import { setupRequiresScm } from '../read/text-scan.js';
import { normalizeName } from '../read/normalize.js';
import type { RepoReader } from '../read/repo-reader.js';
import { isTable, readToml, type TomlTable } from '../read/toml.js';

export interface VcsUse {
  /** The tool that reads the version: what the build must find in the venv. */
  tool: 'setuptools-scm' | 'hatch-vcs' | 'flit-scm' | 'pdm-backend' | 'setuptools-git-versioning';
  /** Where it was seen, for the plan's decisions. */
  why: string;
  /** Whether [build-system].requires already names the tool (else the plan adds it). */
  declared: boolean;
  /** setuptools-git-versioning's own templates, as its [tool] table sets them. */
  templates?: { tag?: string; dev?: string };
}

const BY_REQUIREMENT: Record<string, VcsUse['tool']> = {
  'setuptools-scm': 'setuptools-scm',
  'hatch-vcs': 'hatch-vcs',
  'flit-scm': 'flit-scm',
  'setuptools-git-versioning': 'setuptools-git-versioning',
};

function table(root: TomlTable | null, ...keys: string[]): TomlTable | null {
  let at: unknown = root;
  for (const key of keys) at = isTable(at) ? at[key] : undefined;
  return isTable(at) ? at : null;
}

function requirementName(text: string): string {
  return normalizeName(/^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(text)?.[1] ?? '');
}

export function detectVcsUse(reader: RepoReader): VcsUse | null {
  const py = readToml(reader, 'pyproject.toml', 'dependencies', 'bad_project_file');
  const buildSystem = table(py, 'build-system');
  const requires = Array.isArray(buildSystem?.requires) ? buildSystem.requires.map(String) : [];
  const sgv = table(py, 'tool', 'setuptools-git-versioning');
  const templates = sgv
    ? {
        ...(typeof sgv.template === 'string' ? { tag: sgv.template } : {}),
        ...(typeof sgv.dev_template === 'string' ? { dev: sgv.dev_template } : {}),
      }
    : undefined;
  for (const text of requires) {
    const tool = BY_REQUIREMENT[requirementName(text)];
    if (tool === 'setuptools-git-versioning')
      return { tool, why: `pyproject.toml [build-system].requires "${text}"`, declared: true, templates };
    if (tool) return { tool, why: `pyproject.toml [build-system].requires "${text}"`, declared: true };
  }
  if (buildSystem?.['build-backend'] === 'flit_scm:buildapi')
    return {
      tool: 'flit-scm',
      why: 'pyproject.toml [build-system].build-backend flit_scm:buildapi',
      declared: false,
    };
  if (table(py, 'tool', 'hatch', 'version')?.source === 'vcs')
    return { tool: 'hatch-vcs', why: 'pyproject.toml [tool.hatch.version] source = "vcs"', declared: false };
  if (table(py, 'tool', 'pdm', 'version')?.source === 'scm')
    return { tool: 'pdm-backend', why: 'pyproject.toml [tool.pdm.version] source = "scm"', declared: false };
  if (sgv?.enabled === true)
    return {
      tool: 'setuptools-git-versioning',
      why: 'pyproject.toml [tool.setuptools-git-versioning] enabled = true',
      declared: false,
      templates,
    };
  if (table(py, 'tool', 'setuptools_scm') || table(py, 'tool', 'setuptools-scm'))
    return { tool: 'setuptools-scm', why: 'pyproject.toml [tool.setuptools_scm]', declared: false };
  const setupPy = reader.readText('setup.py', 'dependencies') ?? '';
  if (/\buse_scm_version\b/.test(setupPy))
    return { tool: 'setuptools-scm', why: 'setup.py use_scm_version', declared: false };
  const setupCfg = reader.readText('setup.cfg', 'dependencies') ?? '';
  if (setupRequiresScm(setupCfg))
    return {
      tool: 'setuptools-scm',
      why: 'setup.cfg [options] setup_requires setuptools_scm',
      declared: false,
    };
  return null;
}
