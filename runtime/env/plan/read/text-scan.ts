// Patterns the planner runs over a repository's text, each linear in the text's length. A pattern
// anchored with `^` under the `m` flag is tried at every line start, so `^\s*` (where `\s` also
// matches newlines) re-reads every blank line that follows each line start: quadratic in a run of
// blank lines. Here indentation is `[ \t]*`, and a `[\s\S]*` that would rescan the rest of the text
// from every match is a search from the first match instead.

/** Whether a test module imports pytest at the start of a line (`import pytest`, `from pytest …`). */
export function importsPytest(text: string): boolean {
  return /^[ \t]*(import pytest|from pytest\b)/m.test(text);
}

/** Whether a module names unittest and, after that, TestCase. */
export function usesUnittestTestCase(text: string): boolean {
  const at = text.search(/\bunittest\b/);
  return at >= 0 && /\bTestCase\b/.test(text.slice(at));
}

/**
 * Whether setup.cfg's `setup_requires` names setuptools_scm: the key at the start of a line, its
 * value up to the next `[` (the next section), as the INI value and its continuation lines.
 */
export function setupRequiresScm(setupCfg: string): boolean {
  let searchedTo = -1;
  for (const key of setupCfg.matchAll(/^[ \t]*setup_requires[ \t]*=/gm)) {
    const start = key.index + key[0].length;
    // A later key before the next `[` has a value inside the span already searched: skip it, so
    // every character is searched once however many keys there are.
    if (start < searchedTo) continue;
    const bracket = setupCfg.indexOf('[', start);
    searchedTo = bracket < 0 ? setupCfg.length : bracket;
    if (/\bsetuptools[_-]scm\b/.test(setupCfg.slice(start, searchedTo))) return true;
  }
  return false;
}

/** The headers a C/C++/Cython source includes (`#include <x.h>`, `cdef extern from "x.h"`). */
export function includedHeaders(text: string): string[] {
  const headers: string[] = [];
  for (const m of text.matchAll(
    /^[ \t]*(?:#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]|cdef extern from[ \t]+"([^"\n]+)")/gm,
  ))
    headers.push(m[1] ?? m[2] ?? '');
  return headers;
}

/** Whether pyproject.toml sets `ext-modules` (setuptools' [tool.setuptools] key) at a line start. */
export function setsExtModules(pyproject: string): boolean {
  return /^[ \t]*ext-modules[ \t]*=/m.test(pyproject);
}
