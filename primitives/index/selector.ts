// The selector rule (docs/policy.md, "The tool registry"): the path relative to the repo root
// without `.py`, `/` → `.`, `pkg/__init__.py` → `pkg`, then the qualified name (`src/calc/ops.py` +
// `Calc.add` → `src.calc.ops.Calc.add`).
// A JavaScript/TypeScript file follows the same rule, dotted like Python's so the symbol trigger and
// the import-form lookup read both alike: the path without its last ending, `/` → `.`
// (`src/util/math.ts` → `src.util.math`, `src/util/index.ts` → `src.util.index`: an index file keeps
// its name, as `import './util'` resolving to it is the bundler's rule, not the file's). Other dots
// of a name stay (`types.d.ts` → `types.d`); two files that differ only in their ending
// (`math.ts` beside a built `math.js`) share a selector, listed as duplicates.

/** `src/calc/ops.py` → `src.calc.ops`; `pkg/__init__.py` → `pkg`; a root `__init__.py` → `__init__`. */
export function moduleSelector(path: string): string {
  const parts = path.replace(/\.(?:py|[cm]?[jt]sx?)$/, '').split('/');
  if (parts.length > 1 && parts[parts.length - 1] === '__init__') parts.pop();
  return parts.join('.');
}

/** The module's own name: the last component of its selector (`ops`, `pkg`). */
export function moduleName(path: string): string {
  const selector = moduleSelector(path);
  return selector.slice(selector.lastIndexOf('.') + 1);
}

/** The qualified name inside its module (`Calc.add`), or '' for the module itself. */
export function qualifiedName(selector: string, path: string): string {
  const module = moduleSelector(path);
  return selector === module ? '' : selector.slice(module.length + 1);
}
