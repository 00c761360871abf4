// Which Node.js major the sandbox gets, first source wins: the recipe's; `.nvmrc`, `.node-version`,
// `.tool-versions` (`nodejs 20.1.0`); the CI workflow's setup-node `node-version` (a matrix: the
// newest listed) or `node-version-file`; then `engines.node`, `devEngines.runtime`, `volta.node`:
// the newest provided major that satisfies them; else the default. A version the files name that is
// not provided becomes the nearest provided major at or above it (the newest when none is), said.
import type { CiJob } from '../read/ci-workflows.js';
import { isRecord, type JsFiles } from '../read/js-files.js';
import { majorSatisfies } from './node-range.js';

/** The Node.js majors piper provides, oldest first, and the one a project naming none gets. */
export const NODE_MAJORS = { provided: [18, 20, 22, 24], default: 22 } as const;

/** LTS code names (`lts/iron`) and their majors. */
const LTS: Readonly<Record<string, number>> = {
  argon: 4,
  boron: 6,
  carbon: 8,
  dubnium: 10,
  erbium: 12,
  fermium: 14,
  gallium: 16,
  hydrogen: 18,
  iron: 20,
  jod: 22,
  krypton: 24,
};
const NEWEST = NODE_MAJORS.provided[NODE_MAJORS.provided.length - 1]!;

export interface NodeChoice {
  major: number;
  from: string;
}

/** The major a version text names (`v20.11.0`, `20.x`, `lts/iron`, `lts/*`, `node`); null if none. */
function majorOf(text: string): number | null {
  const value = text
    .trim()
    .toLowerCase()
    .replace(/^['"]|['"]$/g, '');
  if (['node', 'latest', 'current', 'stable', 'lts/*', 'lts', 'lts/-0'].includes(value)) return NEWEST;
  // setup-node resolves a lower bound (`>=18`) to the newest release: the newest provided here.
  if (/^>=?\s*\d/.test(value)) return NEWEST;
  const lts = /^lts\/(\w+)$/.exec(value);
  if (lts) return LTS[lts[1]!] ?? null;
  const m = /^(?:v|\^|~)?(\d+)(?:\.[\dx*]+)*$/.exec(value);
  return m ? Number(m[1]) : null;
}

/** A major the files name, as a provided one, with a decision when it differs. */
function provided(major: number, from: string, decisions: string[]): NodeChoice {
  const list: readonly number[] = NODE_MAJORS.provided;
  if (list.includes(major)) return { major, from };
  const chosen = list.find((m) => m >= major) ?? NEWEST;
  decisions.push(`Node ${major} (${from}) is not provided: Node ${chosen} instead`);
  return { major: chosen, from };
}

function fromVersionFile(files: JsFiles, path: string): number | null {
  const text = files.read(path, 'config')?.text;
  if (text === undefined) return null;
  if (path === '.tool-versions') {
    const line = /^\s*(?:nodejs|node)\s+(\S+)/m.exec(text);
    return line ? majorOf(line[1]!) : null;
  }
  const first = text.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  return first === undefined ? null : majorOf(first);
}

/**
 * The newest major a setup-node step names: its `node-version` (a matrix key's list) or its file;
 * the job whose step the test command came from first (a release or docs job may pin another).
 */
function fromCi(jobs: CiJob[], files: JsFiles, testFrom: string): NodeChoice | null {
  const ofTests = (job: CiJob) => testFrom.startsWith(`${job.file} job ${job.name} `);
  for (const job of [...jobs.filter(ofTests), ...jobs.filter((j) => !ofTests(j))]) {
    for (const step of job.steps) {
      if (!step.uses?.startsWith('actions/setup-node')) continue;
      const file = step.with['node-version-file'];
      if (typeof file === 'string' && !file.includes('${{')) {
        const major = fromVersionFile(files, file.replace(/^\.\//, ''));
        if (major !== null) return { major, from: `${file} (${step.from} node-version-file)` };
      }
      const raw = step.with['node-version'];
      const matrixKey =
        typeof raw === 'string' ? /^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$/.exec(raw)?.[1] : undefined;
      const values = matrixKey !== undefined ? job.matrix[matrixKey] : raw;
      const majors = (Array.isArray(values) ? values : [values])
        .map((v) => (typeof v === 'number' || typeof v === 'string' ? majorOf(String(v)) : null))
        .filter((m): m is number => m !== null);
      if (majors.length) return { major: Math.max(...majors), from: `${step.from} node-version` };
    }
  }
  return null;
}

/** The ranges package.json states for Node, with where each is. */
function declaredRanges(root: Record<string, unknown>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (isRecord(root.engines) && typeof root.engines.node === 'string')
    out.push([root.engines.node, 'package.json engines.node']);
  const runtime = isRecord(root.devEngines) ? root.devEngines.runtime : undefined;
  for (const r of Array.isArray(runtime) ? runtime : [runtime])
    if (isRecord(r) && r.name === 'node' && typeof r.version === 'string')
      out.push([r.version, 'package.json devEngines.runtime']);
  if (isRecord(root.volta) && typeof root.volta.node === 'string')
    out.push([root.volta.node, 'package.json volta.node']);
  return out;
}

function fromRanges(root: Record<string, unknown>, decisions: string[]): NodeChoice | null {
  const ranges = declaredRanges(root);
  if (!ranges.length) return null;
  const fits = [...NODE_MAJORS.provided]
    .reverse()
    .find((m) => ranges.every(([r]) => majorSatisfies(r, m) !== false));
  const from = ranges.map(([r, where]) => `${where} "${r}"`).join(', ');
  for (const [r, where] of ranges)
    if (NODE_MAJORS.provided.every((m) => majorSatisfies(r, m) === null))
      decisions.push(`${where} "${r}" not read as a range`);
  if (fits === undefined) {
    decisions.push(`no provided Node major satisfies ${from}: Node ${NODE_MAJORS.default}`);
    return null;
  }
  return { major: fits, from: `${from} (the newest provided major satisfying it)` };
}

export function chooseNode(
  input: {
    recipeNode?: string;
    files: JsFiles;
    jobs: CiJob[];
    root: Record<string, unknown>;
    /** Where the test command came from (`.github/workflows/ci.yml job test step …`). */
    testFrom: string;
  },
  decisions: string[],
): NodeChoice {
  const recipe = input.recipeNode === undefined ? null : majorOf(input.recipeNode);
  if (recipe !== null) return provided(recipe, 'the recipe', decisions);
  for (const path of ['.nvmrc', '.node-version', '.tool-versions']) {
    const major = fromVersionFile(input.files, path);
    if (major !== null) return provided(major, path, decisions);
  }
  const ci = fromCi(input.jobs, input.files, input.testFrom);
  if (ci) return provided(ci.major, ci.from, decisions);
  return fromRanges(input.root, decisions) ?? { major: NODE_MAJORS.default, from: 'the default' };
}
