// tox.ini's [testenv]: the last resort for test dependencies. `deps` lines are requirements-file
// lines (so `-r requirements-test.txt` works); tox substitutions (`{[base]deps}`) and factor-
// conditional lines (`py311: mock`) cannot be resolved without tox and are skipped, with the reason.
// `extras` names the project's extras to install.
import { iniLines, parseIni } from './ini.js';
import type { RepoReader } from './repo-reader.js';

export const TOX_INI = 'tox.ini';

export interface ToxTestenv {
  /** Lines of [testenv] deps that read as requirement-file lines, with where each came from. */
  deps: Array<{ text: string; from: string }>;
  skipped: Array<{ line: string; from: string; reason: string }>;
  extras: string[];
}

export function readToxTestenv(reader: RepoReader): ToxTestenv | null {
  const text = reader.readText(TOX_INI, 'dependencies');
  if (text === null) return null;
  const testenv = parseIni(text, TOX_INI).get('testenv');
  if (!testenv) return { deps: [], skipped: [], extras: [] };
  const from = `${TOX_INI} [testenv].deps`;
  const out: ToxTestenv = { deps: [], skipped: [], extras: [] };
  for (const line of iniLines(testenv.get('deps'))) {
    if (line.includes('{')) out.skipped.push({ line, from, reason: 'a tox substitution: not resolved' });
    else if (/^[A-Za-z0-9_.,!-]+:\s/.test(line) && !line.startsWith('-')) {
      out.skipped.push({ line, from, reason: 'a tox factor-conditional line: not resolved' });
    } else out.deps.push({ text: line, from });
  }
  out.extras = iniLines(testenv.get('extras')?.replace(/,/g, '\n'));
  return out;
}
