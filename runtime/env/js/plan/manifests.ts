// The package.json files an install reads: the root's, then each workspace package's, as the root's
// `workspaces` (an array, or an object with `packages`) or pnpm-workspace.yaml's `packages` name
// them, the patterns expanded over the repository listing. Bounded: at most MAX_WORKSPACES packages
// and MAX_MANIFEST_BYTES of workspace manifests in all, a decision when either is reached (an install
// of a workspace whose manifest is missing fails loudly, later, rather than the planner reading
// without end).
import { listRepoFiles } from '../../../workspace/repo-listing.js';
import { isRecord, type JsFiles, type RepoText } from '../read/js-files.js';
import { readYamlText } from '../read/js-yaml.js';
import { matchWorkspaces } from './workspace-glob.js';

const MAX_WORKSPACES = 500;
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

export interface Manifests {
  root: Record<string, unknown>;
  /** The root first, then each workspace package's, in directory order. */
  files: RepoText[];
  /** Every manifest's data, the root's first (the same order as files). */
  data: Array<Record<string, unknown>>;
  workspaces: string[];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The workspace patterns and where they came from; [] when the repository names none. */
function workspacePatterns(files: JsFiles, root: Record<string, unknown>, decisions: string[]): string[] {
  const pnpm = files.read('pnpm-workspace.yaml');
  if (pnpm) {
    const doc = readYamlText(pnpm.text, pnpm.path, decisions);
    const patterns = isRecord(doc) ? strings(doc.packages) : [];
    if (patterns.length) {
      decisions.push(`workspaces from pnpm-workspace.yaml packages: ${patterns.join(', ')}`);
      return patterns;
    }
  }
  const field = root.workspaces;
  const patterns = isRecord(field) ? strings(field.packages) : strings(field);
  if (patterns.length) decisions.push(`workspaces from package.json workspaces: ${patterns.join(', ')}`);
  return patterns;
}

/** The manifests, or null when the root has no readable package.json. */
export function readManifests(files: JsFiles, decisions: string[]): Manifests | null {
  const root = files.readJson('package.json');
  if (!root) return null;
  const out: Manifests = { root: root.data, files: [root.file], data: [root.data], workspaces: [] };
  const patterns = workspacePatterns(files, root.data, decisions);
  if (!patterns.length) return out;
  const dirs = matchWorkspaces(patterns, listRepoFiles(files.root).paths);
  let bytes = 0;
  for (const dir of dirs) {
    if (out.workspaces.length >= MAX_WORKSPACES || bytes >= MAX_MANIFEST_BYTES) {
      decisions.push(
        `workspaces: ${dirs.length - out.workspaces.length} of ${dirs.length} not read (at most ${MAX_WORKSPACES} packages and ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB of manifests)`,
      );
      break;
    }
    const manifest = files.readJson(`${dir}/package.json`);
    if (!manifest) continue;
    bytes += manifest.file.text.length;
    out.files.push(manifest.file);
    out.data.push(manifest.data);
    out.workspaces.push(dir);
  }
  decisions.push(`${out.workspaces.length} workspace packages: ${summary(out.workspaces)}`);
  return out;
}

function summary(dirs: string[]): string {
  return dirs.length > 8 ? `${dirs.slice(0, 8).join(', ')}, …` : dirs.join(', ') || 'none';
}
