// The patch files an install applies while it downloads: pnpm's `patchedDependencies` (package.json
// `pnpm`, or pnpm-workspace.yaml) and yarn berry's `patch:` protocol (`patch:x@npm%3A1.0.0#~/.yarn/
// patches/x.patch`) in any manifest's dependencies or resolutions. A frozen install fails without
// them, so they travel with the manifests as data. A path outside the repository, or one that cannot
// be read, is a decision and not copied.
import { isRecord, type JsFiles } from '../read/js-files.js';
import { readYamlText } from '../read/js-yaml.js';
import { cleanRelative } from '../../plan/read/repo-reader.js';

const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
  'resolutions',
];
/** More patches than this is not a project's own list. */
const MAX_PATCHES = 200;

export interface PatchFile {
  path: string;
  sha256: string;
}

function pnpmPatches(files: JsFiles, root: Record<string, unknown>, decisions: string[]): string[] {
  const fromManifest = isRecord(root.pnpm) ? root.pnpm.patchedDependencies : undefined;
  const workspace = files.read('pnpm-workspace.yaml');
  const doc = workspace ? readYamlText(workspace.text, workspace.path, decisions) : null;
  const fromWorkspace = isRecord(doc) ? doc.patchedDependencies : undefined;
  return [fromManifest, fromWorkspace].flatMap((map) =>
    isRecord(map) ? Object.values(map).filter((v): v is string => typeof v === 'string') : [],
  );
}

/** The file a berry `patch:` spec names, relative to the manifest's directory or the root (`~/`). */
function berryPatch(spec: string, dir: string): string | null {
  if (!spec.startsWith('patch:')) return null;
  const hash = spec.lastIndexOf('#');
  if (hash < 0) return null;
  const target = decodeURIComponent(spec.slice(hash + 1).split('::')[0]!);
  if (target.startsWith('~/')) return target.slice(2);
  return dir ? `${dir}/${target}` : target;
}

function berryPatches(manifests: Array<{ dir: string; data: Record<string, unknown> }>): string[] {
  const out: string[] = [];
  for (const { dir, data } of manifests)
    for (const field of DEPENDENCY_FIELDS) {
      const deps = data[field];
      if (!isRecord(deps)) continue;
      for (const spec of Object.values(deps)) {
        const path = typeof spec === 'string' ? berryPatch(spec, dir) : null;
        if (path) out.push(path);
      }
    }
  return out;
}

export function patchFiles(
  files: JsFiles,
  manifests: Array<{ dir: string; data: Record<string, unknown> }>,
  decisions: string[],
): PatchFile[] {
  const root = manifests[0]?.data ?? {};
  const named = [...new Set([...pnpmPatches(files, root, decisions), ...berryPatches(manifests)])];
  if (named.length > MAX_PATCHES)
    decisions.push(`patch files: only the first ${MAX_PATCHES} of ${named.length} copied`);
  const out: PatchFile[] = [];
  for (const raw of named.slice(0, MAX_PATCHES)) {
    const path = cleanRelative(raw);
    const file = path === null ? null : files.read(path, 'config');
    if (!file) {
      decisions.push(`patch file ${raw.slice(0, 120)} not copied: not a readable file inside the repository`);
      continue;
    }
    out.push({ path: file.path, sha256: file.sha256 });
  }
  if (out.length) decisions.push(`${out.length} patch files copied to the download with the manifests`);
  return out;
}
