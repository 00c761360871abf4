// The standard library's top-level module names, from runtime/env/data/stdlib-modules (made with
// sys.stdlib_module_names on each sandbox Python; its header says how). A test's import of one of
// them needs no distribution. A module either Python has counts for both: one removed in 3.13
// (`imp`, `cgi`) is not on an index either, so inferring a distribution for it would be wrong.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../package-root.js';

const STDLIB_MODULES_PATH = join('runtime', 'env', 'data', 'stdlib-modules');

let names: Set<string> | undefined;

function parseStdlibModules(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.split('\n')) {
    const name = raw.trim().split(/\s+/)[0];
    if (name && !name.startsWith('#')) out.add(name);
  }
  return out;
}

export function isStdlibModule(module: string): boolean {
  names ??= parseStdlibModules(readFileSync(join(packageRoot(), STDLIB_MODULES_PATH), 'utf8'));
  return names.has(module);
}
