// The project's install, rebuilt by piper from what its build left (read back as data, see
// project-layer.ts): nothing is copied as the build wrote it. The dist-info is piper's — METADATA's
// checked header lines and body, entry_points.txt from the entry points that parse, INSTALLER,
// WHEEL, direct_url.json and RECORD written fresh; console scripts are piper's wrappers for the
// `console_scripts`/`gui_scripts` entry points whose name and `module:attr` check, never one named
// like a system command (system-commands.ts); the build's `.pth` files give only their checked
// workspace paths (pth-lines.ts), which piper writes into its own `.pth`; setuptools' finder is
// regenerated from its mapping. Whatever does not check is left out and named, never fatal.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { finderSource, readFinderMapping } from './editable-finder.js';
import { VENV_PYTHON } from '../../floor/names.js';
import { pthImportLine, pthPathProblem, pythonLines } from './pth-lines.js';
import { normalize } from '../step-output.js';
import { isSystemCommand } from './system-commands.js';
import type { FileToWrite, TarFile } from '../tar-files.js';

export interface ProjectFiles {
  files: FileToWrite[];
  /** The project's name and version from its own METADATA (null: not installed). */
  installed: { name: string; version: string } | null;
  /** Workspace paths the build's `.pth` files named, each checked (for piper's own `.pth`). */
  roots: string[];
  /** piper's import lines for the finders it regenerated. */
  imports: string[];
  /** What was left out, one phrase each. */
  leftOut: string[];
}

export interface ProjectWhere {
  site: string;
  bin: string;
  project: string | null;
  /** Names the build added to the venv's bin. */
  scripts: string[];
  /** Names already in the image's command directories. */
  reserved: ReadonlySet<string>;
  /** Directories of the snapshot, as /work paths. */
  dirs: ReadonlySet<string>;
}

const FINDER_IMPORT = /^import (__editable___[A-Za-z0-9_]+_finder); \1\.install\(\)$/;
const ENTRY = /^([A-Za-z_][\w.]*)(?::([A-Za-z_][\w.]*))?(\s*\[[\w\s,.-]*\])?$/;
const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const GROUP = /^[A-Za-z0-9_][\w.-]*$/;
const METADATA_MAX = 1 << 20;

/** `read`: each path read back → the tar the engine gave for it (names relative to the path's parent). */
export function projectFiles(read: Map<string, TarFile[]>, where: ProjectWhere): ProjectFiles {
  const out: ProjectFiles = { files: [], installed: null, roots: [], imports: [], leftOut: [] };
  const finders = new Set<string>();
  for (const [path, entries] of read) {
    if (path.endsWith('.dist-info')) distInfo(out, posix.dirname(path), entries, where);
    else if (path.endsWith('_finder.py')) finder(out, path, entries, finders);
  }
  for (const [path, entries] of read) if (path.endsWith('.pth')) pthFile(out, path, entries, where, finders);
  const written = new Set(
    out.files.filter((f) => f.path.startsWith(`${where.bin}/`)).map((f) => posix.basename(f.path)),
  );
  for (const name of where.scripts)
    if (!written.has(name)) out.leftOut.push(`${where.bin}/${name} (not a console script piper wrote)`);
  return out;
}

function fileOf(entries: TarFile[]): TarFile | null {
  return entries.length === 1 && entries[0]!.type === 'file' ? entries[0]! : null;
}

function utf8(data: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return null;
  }
}

function distInfo(out: ProjectFiles, site: string, entries: TarFile[], where: ProjectWhere): void {
  const dir = entries.find((e) => e.type === 'directory' && !e.name.includes('/'))?.name;
  const byName = new Map(
    entries
      .filter((e) => e.type === 'file' && dir && e.name.startsWith(`${dir}/`))
      .map((e) => [e.name.slice(dir!.length + 1), e]),
  );
  const raw = byName.get('METADATA');
  const meta = raw && raw.data.length <= METADATA_MAX ? metadataOf(utf8(raw.data) ?? '') : null;
  if (!dir || !meta) {
    out.leftOut.push(`${site}/${dir ?? '?'} (no METADATA piper can read)`);
    return;
  }
  if (where.project && normalize(meta.name) !== normalize(where.project)) {
    out.leftOut.push(`${site}/${dir} (its METADATA names ${meta.name}, not ${where.project})`);
    return;
  }
  out.installed = { name: meta.name, version: meta.version };
  const groups = entryPoints(utf8(byName.get('entry_points.txt')?.data ?? Buffer.alloc(0)) ?? '', out);
  const at = (name: string) => `${site}/${dir}/${name}`;
  const files: FileToWrite[] = [
    { path: at('METADATA'), data: Buffer.from(meta.text), mode: 0o644 },
    { path: at('INSTALLER'), data: Buffer.from('piper-agent\n'), mode: 0o644 },
    {
      path: at('WHEEL'),
      data: Buffer.from(
        'Wheel-Version: 1.0\nGenerator: piper-agent\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
      ),
      mode: 0o644,
    },
    {
      path: at('direct_url.json'),
      data: Buffer.from('{"url": "file:///work", "dir_info": {"editable": true}}\n'),
      mode: 0o644,
    },
  ];
  if (groups.size)
    files.push({ path: at('entry_points.txt'), data: Buffer.from(entryPointsText(groups)), mode: 0o644 });
  files.push(...consoleScripts(out, groups, where));
  files.push({
    path: at('RECORD'),
    data: Buffer.from(recordText(site, [...files, { path: at('RECORD'), data: Buffer.alloc(0), mode: 0 }])),
    mode: 0o644,
  });
  out.files.push(...files);
}

/** METADATA's header lines that hold no control character, and its body; Name and Version required. */
function metadataOf(text: string): { name: string; version: string; text: string } | null {
  const split = text.search(/\r?\n\r?\n/);
  const header = (split < 0 ? text : text.slice(0, split)).split(/\r?\n/);
  const kept = header.filter(
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    (l) => /^([A-Za-z0-9-]+: |[ \t])/.test(l) && !/[\x00-\x08\x0a-\x1f\x7f]/.test(l),
  );
  const field = (f: string) =>
    kept
      .find((l) => l.toLowerCase().startsWith(`${f}: `))
      ?.slice(f.length + 2)
      .trim();
  const name = field('name');
  const version = field('version');
  if (!name || !version || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || !/^[A-Za-z0-9.+!_-]+$/.test(version))
    return null;
  const body = split < 0 ? '' : text.slice(split).replace(/^\r?\n\r?\n/, '');
  return { name, version, text: `${kept.join('\n')}\n\n${body}` };
}

/** entry_points.txt's groups, only the entries that parse; the rest named. */
function entryPoints(text: string, out: ProjectFiles): Map<string, Map<string, string>> {
  const groups = new Map<string, Map<string, string>>();
  let group: Map<string, string> | null = null;
  for (const raw of pythonLines(text)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      group = GROUP.test(header[1]!) ? (groups.get(header[1]!) ?? new Map<string, string>()) : null;
      if (group) groups.set(header[1]!, group);
      else out.leftOut.push(`entry point group ${JSON.stringify(header[1]!.slice(0, 60))}`);
      continue;
    }
    const at = line.indexOf('=');
    const name = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    if (group && at > 0 && SCRIPT_NAME.test(name) && ENTRY.test(value)) group.set(name, value);
    else if (group) out.leftOut.push(`entry point ${JSON.stringify(line.slice(0, 80))}`);
  }
  return groups;
}

function entryPointsText(groups: Map<string, Map<string, string>>): string {
  return [...groups]
    .map(([g, entries]) => `[${g}]\n${[...entries].map(([n, v]) => `${n} = ${v}\n`).join('')}`)
    .join('\n');
}

function consoleScripts(
  out: ProjectFiles,
  groups: Map<string, Map<string, string>>,
  where: ProjectWhere,
): FileToWrite[] {
  const files: FileToWrite[] = [];
  for (const group of ['console_scripts', 'gui_scripts'])
    for (const [name, value] of groups.get(group) ?? []) {
      const entry = ENTRY.exec(value)!;
      if (!entry[2]) out.leftOut.push(`console script ${name} (${value} names no function)`);
      else if (isSystemCommand(name, where.reserved))
        out.leftOut.push(`console script ${name} (named like a system command)`);
      else
        files.push({
          path: `${where.bin}/${name}`,
          data: Buffer.from(scriptSource(entry[1]!, entry[2])),
          mode: 0o755,
        });
    }
  return files;
}

/** pip's console-script wrapper, for an entry point piper has checked is `module:attr`. */
function scriptSource(module: string, attr: string): string {
  const first = attr.split('.')[0]!;
  return `#!${VENV_PYTHON}\nimport sys\nfrom ${module} import ${first}\nif __name__ == "__main__":\n    sys.exit(${attr}())\n`;
}

function recordText(site: string, files: FileToWrite[]): string {
  return files
    .map((f) => {
      const rel = posix.relative(site, f.path);
      if (f.path.endsWith('/RECORD')) return `${rel},,\n`;
      const digest = createHash('sha256').update(f.data).digest('base64url');
      return `${rel},sha256=${digest},${f.data.length}\n`;
    })
    .join('');
}

function finder(out: ProjectFiles, path: string, entries: TarFile[], finders: Set<string>): void {
  const text = utf8(fileOf(entries)?.data ?? Buffer.alloc(0));
  const mapping = text === null ? 'not a UTF-8 regular file' : readFinderMapping(text);
  if (typeof mapping === 'string') {
    out.leftOut.push(`${path} (${mapping})`);
    return;
  }
  out.files.push({ path, data: Buffer.from(finderSource(mapping)), mode: 0o644 });
  finders.add(posix.basename(path, '.py'));
}

/** A build's `.pth`, split as Python splits it: its workspace paths, or the whole file left out. */
function pthFile(
  out: ProjectFiles,
  path: string,
  entries: TarFile[],
  where: ProjectWhere,
  finders: Set<string>,
): void {
  const text = utf8(fileOf(entries)?.data ?? Buffer.alloc(0));
  if (text === null) return void out.leftOut.push(`${path} (not a UTF-8 regular file)`);
  const roots: string[] = [];
  const imports: string[] = [];
  for (const [i, raw] of pythonLines(text.replace(/^\ufeff/, '')).entries()) {
    if (raw.startsWith('#') || raw.trim() === '') continue;
    const finderImport = FINDER_IMPORT.exec(raw);
    if (finderImport && finders.has(finderImport[1]!)) imports.push(pthImportLine(finderImport[1]!));
    else {
      const problem = finderImport
        ? 'imports a finder the build did not leave'
        : pthPathProblem(raw.trimEnd());
      if (problem) return void out.leftOut.push(`${path} (line ${i + 1} ${problem})`);
      if (where.dirs.has(raw.trimEnd())) roots.push(raw.trimEnd());
      else out.leftOut.push(`${path}: ${raw.trimEnd()} (not a directory of the checkout)`);
    }
  }
  out.roots.push(...roots.filter((r) => !out.roots.includes(r)));
  out.imports.push(...imports.filter((l) => !out.imports.includes(l)));
}
