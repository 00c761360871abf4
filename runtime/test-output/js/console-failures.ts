// The tests a JavaScript runner's console report names as failed, where it names them at the left
// edge in a form of its own: jest's `  ● describe › test` headers (stderr; a test's console.log is
// shown indented under `● Console`, never there), vitest's ` FAIL  file > describe > test` lines
// and ` FAIL  file [ file ]` for a file that did not load. They only ever add a failure.
import type { SummaryWord } from '../worse-word.js';
import { putWorse } from '../worse-word.js';
import { ID_JOIN } from './reading.js';

/** `jestHeaders` false: jest's listing named each test with its file already (jest-verbose.ts). */
export function consoleFailures(
  stdout: string,
  stderr: string,
  jestHeaders = true,
): Map<string, SummaryWord> {
  const out = new Map<string, SummaryWord>();
  for (const m of jestHeaders ? stderr.matchAll(/^ {2}● (.+)$/gm) : []) {
    const title = m[1]!.trim();
    if (title === 'Console' || title === 'Test suite failed to run') continue;
    putWorse(out, title, 'FAILED');
  }
  for (const text of [stdout, stderr])
    for (const m of text.matchAll(/^ FAIL {2}(.+)$/gm)) {
      const rest = m[1]!.trim();
      const file = /^(\S+) \[ \1 \]$/.exec(rest);
      if (file) putWorse(out, file[1]!, 'ERROR');
      else if (rest.includes(' > ')) putWorse(out, rest.split(' > ').join(ID_JOIN), 'FAILED');
    }
  return out;
}
