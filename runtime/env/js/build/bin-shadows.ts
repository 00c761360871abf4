// A package's bin is linked into node_modules/.bin, which is first on every run's PATH: one named
// like a command the image has (`node`, `sh`, `git`, `ls`, piper's own `npm` and `yarn`) would run
// instead of it for every test command that names it. Such links are removed after the offline
// scripts, each named in the build's sources; the bins the image lacks stay.
import type { StepSpec } from '../../build/build-box.js';
import { shQuote } from '../../build/steps.js';
import { JS_LINKS_FILE, JS_TREE, NODE_HOME, TOOL_BIN } from '../toolchain/layout.js';

const COMMAND_DIRS = [
  TOOL_BIN,
  `${NODE_HOME}/bin`,
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
];
/** Printed once per removed link: `piper-shadow <dir> <name>`. */
const SHADOW_MARK = 'piper-shadow';

export function binShadowsStep(): StepSpec {
  const script = [
    'set -e',
    `cd ${JS_TREE}`,
    `while IFS= read -r dir; do`,
    '  [ -n "$dir" ] && [ -d "$dir/node_modules/.bin" ] || continue',
    '  for bin in "$dir"/node_modules/.bin/* "$dir"/node_modules/.bin/.[!.]*; do',
    '    [ -e "$bin" ] || [ -L "$bin" ] || continue',
    '    name=${bin##*/}',
    `    for cmd in ${COMMAND_DIRS.map(shQuote).join(' ')}; do`,
    `      if [ -e "$cmd/$name" ]; then rm -f "$bin"; echo "${SHADOW_MARK} $dir $name"; break; fi`,
    '    done',
    '  done',
    `done < ${JS_LINKS_FILE}`,
  ].join('\n');
  return { name: 'bin shadows', script, timeoutS: 120 };
}

/** The sources line of the removed links; null when none was. */
export function shadowsSaid(stdout: string): string | null {
  const removed = stdout
    .split('\n')
    .filter((l) => l.startsWith(`${SHADOW_MARK} `))
    .map((l) => {
      const [, dir = '.', name = ''] = l.split(' ');
      return dir === '.' ? name : `${name} (${dir})`;
    });
  if (!removed.length) return null;
  return `bins left out, named like a command of the image: ${removed.join(', ')}`;
}
