// execute in a JavaScript/TypeScript repository: the program is the project's language, written
// into the workspace as a file of its own and run by the environment's Node, so `require('./lib')`
// and `import … from './src/x.ts'` resolve from the checkout as they would from a file at its root.
// Which module system it is written for is read from the program itself: import/export statements
// make it an ES module (.mts), a require() with none of them CommonJS (.cts), anything else is left
// to the package.json's "type" (.ts), as the project's own files are. A Node that strips types
// (22.18 and later, every 24) runs TypeScript and plain JavaScript alike; an older one runs the file
// through the project's tsx when it has one, else as JavaScript (.mjs, .cjs or .js).

const ES_MODULE = /^\s*(import\s*[\w{*'"]|export\s)/m;
const COMMONJS = /\brequire\s*\(/;

/** The file the entry point writes the program to: its ending says which module system it is. */
export function jsProgramFile(code: string): string {
  const ending = ES_MODULE.test(code) ? '.mts' : COMMONJS.test(code) ? '.cts' : '.ts';
  return `/work/.piper-execute${ending}`;
}

const RUN_PROGRAM = [
  'f="$1"',
  'strips=$(node -e "const [a,b]=process.versions.node.split(\'.\').map(Number);console.log(a>22||(a===22&&b>=18)?1:0)")',
  'if [ "$strips" = 1 ]; then exec node "$f"; fi',
  'if [ -x /work/node_modules/.bin/tsx ]; then exec /work/node_modules/.bin/tsx "$f"; fi',
  'case "$f" in *.mts) js="${f%.mts}.mjs";; *.cts) js="${f%.cts}.cjs";; *) js="${f%.ts}.js";; esac',
  'mv "$f" "$js"; exec node "$js"',
].join('\n');

/** The argv that runs the program file the entry point wrote. */
export function jsProgramArgv(file: string): string[] {
  return ['sh', '-c', RUN_PROGRAM, 'sh', file];
}
