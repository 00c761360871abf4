// Which pytest plugins an environment holds: the `pytest11` entry points of every installed
// distribution, read from the entry_points.txt files themselves with `sed` — never by starting a
// Python, which a `.pth` of any installed package could answer for (as installed-versions.ts).
// The run side (pytest-run-env.ts) turns autoload off and loads, by entry point name, only the
// plugins whose distribution the project names. Recorded with the image as a label, so a cache hit
// knows them without the ledger that saw the build.
import type { StepSpec } from '../build-box.js';
import { distributionDirs } from '../deps/installed-versions.js';
import { normalize } from '../step-output.js';
import type { FileToWrite } from '../tar-files.js';

export interface PytestPlugin {
  /** The PEP 503-normalized name of the distribution that declares it. */
  dist: string;
  /** The entry point's name: what `-p NAME` and `-p no:NAME` say, and what pytest registers. */
  name: string;
  /** Its value, `module` or `module:attr`. */
  module: string;
}

export const PYTEST_PLUGINS_LABEL = 'piper.env.pytest-plugins';

export function entryPointsScanStep(name: string, python: string): StepSpec {
  const globs = distributionDirs(python)
    .map((d) => `${d}/*.dist-info/entry_points.txt ${d}/*.egg-info/entry_points.txt`)
    .join(' ');
  const script = [
    `for f in ${globs}; do`,
    '  [ -f "$f" ] || continue',
    '  echo "piper-ep $f"',
    // The [pytest11] section's lines, up to the next section header.
    `  sed -n '/^\\[pytest11\\]/,/^\\[/{/^\\[/!p}' "$f"`,
    'done',
    'true',
  ].join('\n');
  return { name, script, timeoutS: 60, quiet: true };
}

/** `pytest_asyncio-0.25.1.dist-info` or `foo.egg-info` → the normalized distribution name. */
function distOfPath(path: string): string | null {
  const dir = path.split('/').at(-2) ?? '';
  if (!/\.(?:dist|egg)-info$/.test(dir)) return null;
  // The name never holds a `-` in these directory names (it is escaped to `_`): the first one ends it.
  const stem = dir.replace(/\.(?:dist|egg)-info$/, '').split('-')[0];
  return stem ? normalize(stem) : null;
}

const NAME = /^[A-Za-z0-9_.-]+$/;
const VALUE = /^[A-Za-z_][\w.]*(?::[A-Za-z_][\w.]*)?$/;

/** One `[pytest11]` line; null for blanks, comments and anything that is not a plain entry point. */
function entryOf(line: string, dist: string): PytestPlugin | null {
  const at = line.indexOf('=');
  if (at < 0) return null;
  const name = line.slice(0, at).trim();
  const module = line.slice(at + 1).trim();
  return NAME.test(name) && VALUE.test(module) ? { dist, name, module } : null;
}

/**
 * The scan's output as plugins; a distribution seen in an earlier directory hides later copies
 * (sys.path order), and an entry point name seen first wins, as pluggy registers the first.
 */
export function parseEntryPointsScan(stdout: string, into: PytestPlugin[] = []): PytestPlugin[] {
  const dists = new Set(into.map((p) => p.dist));
  const seen = new Set<string>();
  let dist: string | null = null;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('piper-ep ')) {
      const found = distOfPath(line.slice(9).trim());
      dist = found && !dists.has(found) && !seen.has(found) ? found : null;
      if (dist) seen.add(dist);
      continue;
    }
    const entry = dist ? entryOf(line, dist) : null;
    if (entry && !into.some((p) => p.name === entry.name)) into.push(entry);
  }
  return into;
}

/** The project's own entry points, from the dist-info its editable install left (read as data). */
export function projectEntryPoints(files: FileToWrite[], into: PytestPlugin[]): PytestPlugin[] {
  const text = files
    .filter((f) => f.path.endsWith('.dist-info/entry_points.txt'))
    .map((f) => `piper-ep ${f.path}\n${pytestSection(f.data.toString('utf8'))}`)
    .join('\n');
  return parseEntryPointsScan(text, into);
}

function pytestSection(text: string): string {
  const out: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('[')) inside = line.trim() === '[pytest11]';
    else if (inside) out.push(line);
  }
  return out.join('\n');
}

/** The build's record of them, one line among its sources. */
export function pluginsSentence(plugins: PytestPlugin[]): string {
  const listed = plugins.map((p) => `${p.name} (${p.dist})`).join(', ');
  return `pytest plugins in the image: ${listed || 'none'}`;
}

/** The sentence read back from a build's recorded sources (the module is not in it); null without one. */
export function pluginsFromSentence(sources: string[]): PytestPlugin[] | null {
  const line = sources.find((s) => s.startsWith('pytest plugins in the image: '));
  if (line === undefined) return null;
  return [...line.matchAll(/([A-Za-z0-9_.-]+) \(([a-z0-9-]+)\)/g)].map((m) => ({
    name: m[1]!,
    dist: m[2]!,
    module: '',
  }));
}

/** The label's value: `name=module@dist` joined by commas (every part already checked). */
export function pluginsLabel(plugins: PytestPlugin[]): string {
  return plugins.map((p) => `${p.name}=${p.module}@${p.dist}`).join(',');
}

/** The label read back; null when the image has none (built before plugins were recorded). */
export function pluginsFromLabel(value: string | undefined): PytestPlugin[] | null {
  if (value === undefined) return null;
  const out: PytestPlugin[] = [];
  for (const part of value.split(',')) {
    const found = /^([^=@,]+)=([^=@,]+)@([^=@,]+)$/.exec(part);
    if (found) out.push({ name: found[1]!, module: found[2]!, dist: found[3]! });
  }
  return out;
}
