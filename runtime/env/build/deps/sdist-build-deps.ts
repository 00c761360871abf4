// What an sdist's build needs beyond Debian's setuptools and wheel: its pyproject.toml's
// [build-system].requires, read as data from the archive (never unpacked in a box), each checked
// as PEP 508 with no URL. They are downloaded as wheels in the networked box (nothing installed
// there) and installed in the offline build box before the build; failing that, the build goes on
// with what the image has, and its failure is what the record says.
import { gunzipSync } from 'node:zlib';
import { parse } from 'smol-toml';
import type { BuildBox, StepSpec } from '../build-box.js';
import { isEnvPlanError } from '../../plan/errors.js';
import { parseRequirement } from '../../plan/read/pep508.js';
import { normalize } from '../step-output.js';
import type { Redactor } from '../../plan/secrets.js';
import { readTar } from '../tar-files.js';
import { shQuote } from '../steps.js';

export const BUILD_DEPS = '/opt/piper/build-deps';
// Debian's, in every build box: asking an index for them would only add a failure.
const IN_THE_IMAGE = new Set(['setuptools', 'wheel']);

/** The build requirements an sdist's pyproject.toml names (less Debian's own), or [] when it names none. */
export async function sdistBuildRequires(file: string, data: Buffer): Promise<string[]> {
  if (!file.endsWith('.tar.gz')) return [];
  let entries;
  try {
    entries = await readTar(gunzipSync(data, { maxOutputLength: 1 << 30 }));
  } catch {
    return [];
  }
  const pyproject = entries.find((e) => e.type === 'file' && /^[^/]+\/pyproject\.toml$/.test(e.name));
  if (!pyproject) return [];
  let requires: unknown;
  try {
    requires = (parse(pyproject.data.toString('utf8')) as { 'build-system'?: { requires?: unknown } })[
      'build-system'
    ]?.requires;
  } catch {
    return [];
  }
  if (!Array.isArray(requires)) return [];
  return requires.filter((r): r is string => typeof r === 'string' && acceptable(r));
}

function acceptable(line: string): boolean {
  try {
    const q = parseRequirement(line);
    return q.url === undefined && !IN_THE_IMAGE.has(normalize(q.name));
  } catch (error) {
    if (isEnvPlanError(error)) return false;
    throw error;
  }
}

/** The build requirements' wheels downloaded in the networked box; their directory as a tar, or null. */
export async function downloadBuildDeps(
  net: BuildBox,
  lines: string[],
  env: string[],
  redactor: Redactor,
): Promise<Buffer | null> {
  const step = buildDepsDownloadStep(lines, env);
  const r = await net.run({ ...step, display: redactor.text(step.display ?? step.script) });
  return r.exit_code === 0 ? net.read(BUILD_DEPS, 2 * 1024 ** 3) : null;
}

/**
 * Wheels only (`--only-binary=:all:`): nothing downloaded here is built while the network is there.
 * pip's timeout and retries come from `env` (pipSourceEnv).
 */
export function buildDepsDownloadStep(lines: string[], env: string[]): StepSpec {
  const command = `python3 -I -m pip --disable-pip-version-check --no-input download --no-cache-dir --only-binary=:all: --quiet --dest ${BUILD_DEPS} ${lines.map(shQuote).join(' ')}`;
  return {
    name: 'build deps',
    script: `set -e\nmkdir -p ${BUILD_DEPS}\n${command}`,
    display: command,
    env,
    timeoutS: 600,
  };
}

/** Installed into the offline build box's system Python: that box is thrown away after the build. */
export function buildDepsInstallStep(lines: string[]): StepSpec {
  return {
    name: 'build deps (offline)',
    script: `set -e\nexport PIP_CONFIG_FILE=/dev/null\npython3 -m pip --disable-pip-version-check --no-input install --no-cache-dir --no-index --find-links ${BUILD_DEPS} --break-system-packages ${lines.map(shQuote).join(' ')}`,
    timeoutS: 600,
  };
}
