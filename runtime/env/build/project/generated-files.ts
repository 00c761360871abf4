// Files the project's build generated inside the checkout (a setuptools-scm / hatch-vcs
// `version_file` such as `pkg/_version.py`, a generated module): every sandbox gets a fresh snapshot
// of the workspace, which lacks them, so they are carried in the environment image as data, under
// GENERATED_DIR, and put into /work at run start by the sandbox's entry point
// (sandbox-images/python/workspace.py), never over a file the checkout has. They are build output,
// so the image that carries them is keyed by the snapshot (key.ts) like the rest of the project
// layer. Small regular files only, and not what a build leaves as a by-product (its build/ and
// dist/ directories, egg-info, bytecode, object files, compiled modules: native-finder.ts).
import type { BuildBox } from '../build-box.js';
import { readTar, type FileToWrite } from '../tar-files.js';

export const GENERATED_DIR = '/opt/piper/generated';
const BY_PRODUCT = /(^|\/)(__pycache__|build|dist|\.eggs|[^/]*\.egg-info|\.git)(\/|$)|\.(pyc|pyo|o|so|a)$/;
const FILE_MAX = 256 << 10;
const TOTAL_MAX = 4 << 20;
const COUNT_MAX = 100;

/** The added /work paths worth reading: leaves, not by-products, not piper's setup.py shim. */
export function generatedCandidates(added: string[]): string[] {
  return added.filter(
    (p) =>
      !BY_PRODUCT.test(p.slice('/work/'.length)) &&
      p !== '/work/setup.py' &&
      !added.some((q) => q.startsWith(`${p}/`)),
  );
}

/** The candidates as files for the image, within the caps; what does not fit is named. */
export async function readGenerated(
  box: BuildBox,
  candidates: string[],
): Promise<{ files: FileToWrite[]; leftOut: string[] }> {
  const files: FileToWrite[] = [];
  const leftOut: string[] = [];
  let total = 0;
  for (const path of candidates) {
    if (files.length >= COUNT_MAX) {
      leftOut.push(`${path} (more than ${COUNT_MAX} generated files)`);
      continue;
    }
    const entries = await box
      .read(path, FILE_MAX + 4096)
      .then(readTar)
      .catch(() => null);
    if (!entries) {
      leftOut.push(`${path} (a generated file over the size cap, or unreadable)`);
      continue;
    }
    const file = entries.length === 1 && entries[0]!.type === 'file' ? entries[0]! : null;
    if (!file) continue;
    if (file.data.length > FILE_MAX || total + file.data.length > TOTAL_MAX) {
      leftOut.push(`${path} (a generated file over the size cap)`);
      continue;
    }
    total += file.data.length;
    files.push({ path: `${GENERATED_DIR}${path.slice('/work'.length)}`, data: file.data, mode: 0o644 });
  }
  return { files, leftOut };
}
