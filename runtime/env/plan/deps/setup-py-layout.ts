// Where a setup.py puts the root package, read as text and never run: `package_dir={"": "lib"}`
// (either quote style, any spacing) is the one form projects write. Anything computed (a variable,
// `dict(...)`, os.path.join) is not read, and then the layout falls back to what the tree shows;
// setuptools' own editable install still maps it at build time.
export const SETUP_PY = 'setup.py';

export function setupPyPackageDir(text: string): { dir: string; key: string } | null {
  const found = /\bpackage_dir\s*=\s*\{\s*(['"])\1\s*:\s*(['"])([^'"\n]*)\2/.exec(text);
  return found ? { dir: found[3]!, key: 'package_dir' } : null;
}
