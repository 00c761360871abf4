// The installed tree lives in the image at JS_TREE, the checkout arrives at /work with each run, and
// the sandbox's entry point links /work/<dir>/node_modules to JS_TREE/<dir>/node_modules for every
// directory this step lists. Node resolves a module's real path, so a dependency found through the
// link resolves its own dependencies inside JS_TREE; a workspace package, though, must resolve to
// the checkout's copy (its source), so each link the manager made to a workspace directory is
// made absolute, to /work/<dir>. The caches tools keep in node_modules are links into the run's /tmp
// (the entry point makes their directories). Run with the provided Node in the offline box.
import { NODE_HOME, JS_LINKS_FILE, JS_TREE } from '../toolchain/layout.js';
import { shQuote } from '../../build/steps.js';
import type { StepSpec } from '../../build/build-box.js';

const PROGRAM = String.raw`
const fs = require('fs'), path = require('path');
const root = process.argv[1], listFile = process.argv[2];
const dirs = ['.', ...JSON.parse(process.argv[3])];
const CACHES = ['.cache', '.vite'], CACHE_ROOT = '/tmp/piper-node-modules';
const inWorkspace = (abs) => {
  const rel = path.relative(root, abs);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) && !rel.split(path.sep).includes('node_modules') ? rel : null;
};
const entries = (nm) => fs.readdirSync(nm).flatMap((n) =>
  n.startsWith('@') && fs.lstatSync(path.join(nm, n)).isDirectory() ? fs.readdirSync(path.join(nm, n)).map((m) => n + '/' + m) : [n]);
const listed = [];
let moved = 0;
for (const dir of dirs) {
  const nm = path.join(root, dir, 'node_modules');
  if (!fs.existsSync(nm)) continue;
  listed.push(dir);
  for (const name of entries(nm)) {
    const at = path.join(nm, name);
    if (!fs.lstatSync(at).isSymbolicLink()) continue;
    const rel = inWorkspace(path.resolve(path.dirname(at), fs.readlinkSync(at)));
    if (rel === null) continue;
    fs.unlinkSync(at);
    fs.symlinkSync('/work/' + rel.split(path.sep).join('/'), at);
    moved++;
  }
}
// Tools keep caches in node_modules (nyc and babel in .cache, vite and vitest in .vite), which the
// image's tree cannot take: each becomes a link into the run's /tmp, made there by the entry point.
listed.forEach((dir, i) => {
  for (const name of CACHES) {
    const at = path.join(root, dir, 'node_modules', name);
    if (!fs.existsSync(at) && !fs.lstatSync(path.dirname(at)).isSymbolicLink()) fs.symlinkSync(CACHE_ROOT + '/' + i + '/' + name, at);
  }
});
fs.writeFileSync(listFile, listed.join('\n') + '\n');
console.log('piper-links ' + listed.length + ' node_modules, ' + moved + ' workspace link(s) to /work');
`;

export function workspaceLinksStep(workspaces: string[]): StepSpec {
  return {
    name: 'workspace links',
    script: `${NODE_HOME}/bin/node -e ${shQuote(PROGRAM)} ${shQuote(JS_TREE)} ${shQuote(JS_LINKS_FILE)} ${shQuote(JSON.stringify(workspaces))}`,
    display: `node -e <piper's workspace links> ${JS_TREE}`,
    timeoutS: 120,
  };
}
