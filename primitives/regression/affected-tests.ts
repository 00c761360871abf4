// The test files that import what a fix changed: what the regression gate runs when the whole
// suite is over its budget. A changed module is named as the code index names it (its selector,
// and its import form in a src layout: primitives/index/), and a test file counts when one of its
// import lines names that module, a package above it, or imports it from its package. A changed
// test file counts itself.
import { realpathSync } from 'node:fs';
import { readRepoFile } from '../../runtime/host/inside-repo.js';
import { importForm, packageDirectories } from '../index/selector-alias.js';
import { moduleSelector } from '../index/selector.js';

const TEST_FILE = /(^|\/)(test_[^/]*|[^/]*_test)\.py$/;
const IMPORT_LINE = /^\s*(?:from\s+([\w.]+)\s+import\s+(.+)|import\s+(.+))$/gm;

export function affectedTestFiles(
  root: string,
  files: readonly string[],
  changed: readonly string[],
): string[] {
  const realRoot = realpathSync(root);
  const packages = packageDirectories(files);
  const modules = new Set<string>();
  for (const path of changed.filter((p) => p.endsWith('.py'))) {
    const selector = moduleSelector(path);
    modules.add(selector);
    const form = importForm(selector, path, packages);
    if (form) modules.add(form);
  }
  return files.filter(
    (f) => TEST_FILE.test(f) && (changed.includes(f) || importsAny(readText(realRoot, f), modules)),
  );
}

function importsAny(text: string, modules: ReadonlySet<string>): boolean {
  for (const m of text.matchAll(IMPORT_LINE)) {
    const named = m[1] !== undefined ? fromNames(m[1], m[2]!) : m[3]!.split(',').map(asName);
    if (named.some((n) => touches(n, modules))) return true;
  }
  return false;
}

/** `from pkg import mod, other as o` names pkg, pkg.mod and pkg.other. */
function fromNames(from: string, names: string): string[] {
  const leaves = names
    .replace(/[()\\]/g, '')
    .split(',')
    .map(asName)
    .filter(Boolean);
  return [from, ...leaves.map((leaf) => `${from}.${leaf}`)];
}

function asName(part: string): string {
  return part
    .trim()
    .split(/\s+as\s+/)[0]!
    .trim();
}

/** The name is the module, a module inside it, or the package that holds it. */
function touches(name: string, modules: ReadonlySet<string>): boolean {
  for (const m of modules)
    if (name === m || name.startsWith(`${m}.`) || m.startsWith(`${name}.`)) return true;
  return false;
}

/** A test file's text through the one bounded reader (a FIFO or a link out reads as nothing). */
function readText(realRoot: string, path: string): string {
  const bytes = readRepoFile(realRoot, path, 'source');
  return Buffer.isBuffer(bytes) ? bytes.toString('utf8') : '';
}
