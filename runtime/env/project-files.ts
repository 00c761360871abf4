// The files of the project's install, read back from the project phase's container as data and
// rewritten by piper (see project-layer.ts): the dist-info's files as they are (metadata, not code;
// its METADATA gives the recorded version), `.pth` files reduced to their workspace paths,
// setuptools' finder regenerated from its mapping, console scripts regenerated from the dist-info's
// entry points. Whatever cannot be read that way is a violation, named.
import { posix } from 'node:path';
import { finderSource, insideWorkspace, readFinderMapping } from './editable-finder.js';
import { VENV_PYTHON } from './names.js';
import { normalize } from './step-output.js';
import type { FileToWrite, TarFile } from './tar-files.js';

export interface ProjectFiles {
  files: FileToWrite[];
  /** The project's name and version from its own METADATA (null: not installed). */
  installed: { name: string; version: string } | null;
  violations: string[];
}

const FINDER_IMPORT = /^import (__editable___[A-Za-z0-9_]+_finder); \1\.install\(\)$/;
const ENTRY = /^([A-Za-z_][\w.]*):([A-Za-z_][\w.]*)(\s*\[[^\]]*\])?$/;

/** `read`: each kept path → the tar the engine gave for it (names relative to the path's parent). */
export function projectFiles(
  read: Map<string, TarFile[]>,
  where: { site: string; bin: string; project: string | null },
): ProjectFiles {
  const out: ProjectFiles = { files: [], installed: null, violations: [] };
  const scripts = new Map<string, { module: string; attr: string }>();
  const finders = new Set<string>();
  for (const [path, entries] of read) {
    const parent = posix.dirname(path);
    if (path.endsWith('.dist-info')) {
      for (const e of entries) {
        if (e.type === 'directory') continue;
        if (e.type !== 'file') out.violations.push(`not a regular file: ${parent}/${e.name}`);
        else out.files.push({ path: `${parent}/${e.name}`, data: e.data, mode: 0o644 });
        if (e.name.endsWith('/METADATA')) out.installed = metadataOf(e.data.toString('utf8'));
        if (e.name.endsWith('/entry_points.txt'))
          for (const [k, v] of consoleScripts(e.data.toString('utf8'))) scripts.set(k, v);
      }
    }
  }
  if (out.installed && where.project && normalize(out.installed.name) !== normalize(where.project))
    out.violations.push(
      `the installed METADATA names ${out.installed.name}, not the project ${where.project}`,
    );
  for (const [path, entries] of read) {
    const file = entries.find((e) => e.type === 'file');
    const name = posix.basename(path);
    if (path.endsWith('.dist-info')) continue;
    if (!file || entries.some((e) => e.type === 'other')) {
      out.violations.push(`not a regular file: ${path}`);
      continue;
    }
    const text = file.data.toString('utf8');
    if (name.endsWith('.pth')) {
      const lines = pthLines(text);
      if (typeof lines === 'string') out.violations.push(`${path}: ${lines}`);
      else out.files.push({ path, data: Buffer.from(lines.join('\n') + '\n'), mode: 0o644 });
    } else if (name.endsWith('_finder.py') && path.startsWith(`${where.site}/`)) {
      const mapping = readFinderMapping(text);
      if (typeof mapping === 'string') out.violations.push(`${path}: ${mapping}`);
      else out.files.push({ path, data: Buffer.from(finderSource(mapping)), mode: 0o644 });
      finders.add(name.replace(/\.py$/, ''));
    } else if (path.startsWith(`${where.bin}/`)) {
      const entry = scripts.get(name);
      if (!entry) out.violations.push(`${path}: not a console script the project declares`);
      else out.files.push({ path, data: Buffer.from(scriptSource(entry)), mode: 0o755 });
    } else out.violations.push(`${path}: not part of a project's install`);
  }
  // A .pth may name a finder module; it must be one read above.
  for (const f of out.files) {
    if (!f.path.endsWith('.pth')) continue;
    for (const line of f.data.toString('utf8').split('\n')) {
      const m = FINDER_IMPORT.exec(line);
      if (m && !finders.has(m[1]!))
        out.violations.push(`${f.path}: imports ${m[1]}, which the install did not write`);
    }
  }
  return out;
}

/** A .pth's lines that piper keeps: workspace paths, and the one form of setuptools' finder import. */
function pthLines(text: string): string[] | string {
  const kept: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (FINDER_IMPORT.test(line) || insideWorkspace(line)) kept.push(line);
    else
      return `line ${JSON.stringify(line.slice(0, 80))} is neither a path in /work nor setuptools' finder import`;
  }
  return kept;
}

function metadataOf(text: string): { name: string; version: string } | null {
  const header = text.split(/\r?\n\r?\n/)[0] ?? '';
  const name = /^Name:\s*(.+)$/m.exec(header)?.[1]?.trim();
  const version = /^Version:\s*(.+)$/m.exec(header)?.[1]?.trim();
  return name && version ? { name, version } : null;
}

/** [console_scripts] and [gui_scripts] of an entry_points.txt: name → module:attr. */
function consoleScripts(text: string): Map<string, { module: string; attr: string }> {
  const out = new Map<string, { module: string; attr: string }>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!;
    else if ((section === 'console_scripts' || section === 'gui_scripts') && line.includes('=')) {
      const at = line.indexOf('=');
      const name = line.slice(0, at).trim();
      const entry = ENTRY.exec(line.slice(at + 1).trim());
      if (entry && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
        out.set(name, { module: entry[1]!, attr: entry[2]! });
    }
  }
  return out;
}

/** pip's console-script wrapper, for an entry point piper has checked is `module:attr`. */
function scriptSource(e: { module: string; attr: string }): string {
  const [first, ...rest] = e.attr.split('.');
  return `#!${VENV_PYTHON}
import sys
from ${e.module} import ${first}
if __name__ == "__main__":
    sys.exit(${[first, ...rest].join('.')}())
`;
}
