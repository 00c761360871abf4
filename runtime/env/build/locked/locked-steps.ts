// The steps of a locked install. Networked: pip downloads exactly the locked closure, each package
// `name==version` with its locked hashes, `--no-deps` (the lock is the resolution) and
// `--require-hashes` (a file whose bytes do not match is refused, before anything reads it), wheels
// only as every other download here. Offline: the same lines installed from those files alone,
// hashes checked again. The requirements file is written from the plan (names, versions and hex
// digests the planner checked), never read from the repository.
import type { StepSpec } from '../build-box.js';
import { VENV_PYTHON } from '../../floor/names.js';
import type { Redactor } from '../../plan/secrets.js';
import type { LockedClosure } from '../../plan/types.js';
import { shQuote } from '../steps.js';

export const LOCKED = '/opt/piper/locked';
// In /tmp, which the clean step empties before the commit (the install box may add nothing elsewhere).
const REQUIREMENTS = '/tmp/piper-locked-requirements.txt';
const PIP = '-m pip --disable-pip-version-check --no-input';
/** pip's command options: after the command's name. */
const LOCKED_FLAGS = '--no-cache-dir --no-deps --require-hashes';

/** One line per locked package: `name==version --hash=sha256:HEX ...`. */
export function lockedRequirements(locked: LockedClosure): string {
  return locked.packages
    .map((p) => [`${p.name}==${p.version}`, ...p.hashes.map((h) => `--hash=sha256:${h}`)].join(' '))
    .join('\n');
}

function writeRequirements(locked: LockedClosure): string {
  return `printf '%s\\n' ${shQuote(lockedRequirements(locked))} > ${REQUIREMENTS}`;
}

/** The locked closure downloaded into LOCKED from the sources in `env` (exec-only). */
export function lockedDownloadStep(locked: LockedClosure, env: string[], redactor: Redactor): StepSpec {
  const command = `python3 -I ${PIP} download ${LOCKED_FLAGS} --only-binary=:all: --progress-bar off --dest ${LOCKED} -r ${REQUIREMENTS}`;
  const script = ['set -e', `mkdir -p ${LOCKED}`, writeRequirements(locked), 'cd /tmp', command].join('\n');
  const shown = env.filter((e) => !e.startsWith('PIP_CONFIG_FILE='));
  return {
    name: `pip (locked: ${locked.from})`,
    script,
    display: redactor.text([...shown, command].join(' ')),
    env,
    timeoutS: 600,
  };
}

/** The locked closure installed into the venv from LOCKED alone (no index, no network), its report printed. */
export function lockedInstallStep(locked: LockedClosure): StepSpec {
  const command = `${VENV_PYTHON} ${PIP} install ${LOCKED_FLAGS} --no-index --find-links ${LOCKED} --ignore-installed --quiet --report /tmp/pip-locked.json -r ${REQUIREMENTS}`;
  const script = [
    'set -e',
    writeRequirements(locked),
    command,
    'echo piper-pip-report',
    'cat /tmp/pip-locked.json',
  ].join('\n');
  return { name: 'install (locked)', script, env: ['PIP_CONFIG_FILE=/dev/null'], timeoutS: 900 };
}

export interface HashMismatch {
  requirement: string;
  expected: string;
  got: string;
}

/**
 * pip's hash-checking refusals: after `THESE PACKAGES DO NOT MATCH THE HASHES`, each package's
 * `name==version from URL:` line, then `Expected sha256 HEX` (one per hash allowed) and `Got HEX`.
 */
export function hashMismatches(output: string): HashMismatch[] {
  const at = output.indexOf('DO NOT MATCH THE HASHES');
  if (at < 0) return [];
  const out: HashMismatch[] = [];
  let current: HashMismatch | null = null;
  for (const line of output.slice(at).split('\n').slice(1)) {
    const pkg = /^\s+([A-Za-z0-9][\w.-]*==[\w.+!-]+)(?:\s+from\s|:)/.exec(line);
    const expected = /Expected sha256 ([0-9a-f]{64})/.exec(line);
    const got = /Got\s+([0-9a-f]{64})/.exec(line);
    if (pkg) out.push((current = { requirement: pkg[1]!, expected: '', got: '' }));
    else if (expected && current && !current.expected) current.expected = expected[1]!;
    else if (got && current) current.got = got[1]!;
  }
  return out;
}

/** pip's report: each installed distribution's name, version and the sha256 of the file it came from. */
export function reportHashes(
  stdout: string,
): Array<{ name: string; version: string; sha256: string | null }> {
  const at = stdout.indexOf('piper-pip-report\n');
  if (at < 0) return [];
  type Item = {
    metadata?: { name?: string; version?: string };
    download_info?: { archive_info?: { hash?: string; hashes?: { sha256?: string } } };
  };
  try {
    const report = JSON.parse(stdout.slice(at + 'piper-pip-report\n'.length)) as { install?: Item[] };
    return (report.install ?? []).flatMap((i) => {
      const info = i.download_info?.archive_info;
      const sha256 = info?.hashes?.sha256 ?? /^sha256=([0-9a-f]{64})$/.exec(info?.hash ?? '')?.[1] ?? null;
      return i.metadata?.name && i.metadata.version
        ? [{ name: i.metadata.name, version: i.metadata.version, sha256 }]
        : [];
    });
  } catch {
    return [];
  }
}
