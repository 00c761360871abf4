// The import form of a selector. A selector follows the file's path (`src/click/core.py` →
// `src.click.core`), but engineers and models name code as Python imports it: in a src layout
// `click.core.Context.invoke`, not `src.click.core.Context.invoke`. The import form drops the
// leading directories that are not packages (no `__init__.py`): the directories a test runner or an
// install puts on sys.path. Where no directory of the path is a package, only a leading `src` is
// dropped (a namespace package's directories look the same as a source root's).
// Which selectors have which import form is kept by selector-table.ts. A form that two entities share
// (`conftest` from `conftest.py` at two levels) resolves to neither: the lookup says unknown rather than guess.

/** Directories (repo-relative, '/' separators) that are packages: they hold an indexed `__init__.py`. */
export function packageDirectories(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const path of paths) {
    const slash = path.lastIndexOf('/');
    if (slash > 0 && path.slice(slash + 1) === '__init__.py') dirs.add(path.slice(0, slash));
  }
  return dirs;
}

/**
 * The selector as it would be imported (`click.core.Context` for `src.click.core.Context` defined
 * in `src/click/core.py`), or undefined when it is the same as the selector.
 */
export function importForm(
  selector: string,
  path: string,
  packages: ReadonlySet<string>,
): string | undefined {
  const dirs = path.split('/').slice(0, -1);
  let strip = 0;
  while (strip < dirs.length && !packages.has(dirs.slice(0, strip + 1).join('/'))) strip++;
  // No package anywhere on the path: only the conventional source root.
  if (strip === dirs.length) strip = dirs[0] === 'src' ? 1 : 0;
  if (strip === 0) return undefined;
  const prefix = `${dirs.slice(0, strip).join('.')}.`;
  return selector.startsWith(prefix) ? selector.slice(prefix.length) : undefined;
}
