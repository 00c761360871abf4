// setup.py's `python_requires`, read as text and never run: a string literal (either quote style)
// is the one form old projects write, and the only one a Python older than the default needs to be
// chosen by (their setup.cfg and pyproject often say nothing). Anything computed is not read.
export function setupPyPythonRequires(text: string): string | null {
  const found = /\bpython_requires\s*=\s*(['"])([^'"\n]{1,256})\1/.exec(text);
  return found ? found[2]!.trim() || null : null;
}
