// `.pth` lines as Python itself reads them, for the one `.pth` piper writes and the ones a build
// left. site.py (3.13) splits a `.pth` with str.splitlines — every one of \n \r \v \f \x1c \x1d
// \x1e \x85 \u2028 \u2029 ends a line, not only \n — and executes a line that starts with `import `
// or `import\t`; 3.11 reads it with universal newlines (\n, \r), a subset. A reader that splits on
// \n alone sees one harmless path where Python sees a path and an import: so every line is split,
// and checked, the way Python does.
import { posix } from 'node:path';

/** The characters str.splitlines ends a line at (\r\n is \r then \n). */
// eslint-disable-next-line no-control-regex -- control characters are what Python splits at
const PY_LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

export function pythonLines(text: string): string[] {
  const lines = text.split(PY_LINE_BREAK);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Why `line` may not stand in a `.pth` as a path into the workspace, or null when it may. */
export function pthPathProblem(line: string): string | null {
  if (PY_LINE_BREAK.test(line)) return 'holds a character Python reads as a line end';
  if (/^import[ \t]/.test(line)) return 'is an import line: site.py executes it';
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\x00-\x1f\x7f]/.test(line)) return 'holds a control character';
  if (line !== line.trim()) return 'has surrounding white space';
  if (!posix.isAbsolute(line) || posix.normalize(line) !== line || line.split('/').includes('..'))
    return 'is not a normalized absolute path';
  if (line !== '/work' && !line.startsWith('/work/')) return 'is not in the workspace';
  return null;
}

/** An import line piper writes itself: `import M; M.install()` for a module name it checked. */
export function pthImportLine(module: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(module)) throw new Error(`not a module name: ${module}`);
  return `import ${module}; ${module}.install()`;
}

/** The text of piper's `.pth`: the import roots, each checked, then piper's own import lines. */
export function pthText(roots: string[], imports: string[]): string {
  for (const root of roots) {
    const problem = pthPathProblem(root);
    if (problem) throw new Error(`import root ${JSON.stringify(root)} ${problem}`);
  }
  return [...new Set(roots), ...imports].map((l) => `${l}\n`).join('');
}
