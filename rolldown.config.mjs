// The installed command's bundle (dist/bundle/, run by bin/piper-agent.js): tsc's output of the CLI
// joined into a few files, split at every dynamic import so each command still loads only its own
// code. Why: Node 20 reads, decodes and compiles each ES module on its own, and start-up is
// dominated by that per-file work (a headless `fix` loaded ~250 modules before its first event, 95
// of them zod's, with all 64 of its locales). Pure ES-module packages go in, tree-shaken; CommonJS,
// native and WebAssembly packages (dockerode, better-sqlite3, tree-sitter, ruff, Ink's tree) stay
// with Node's loader, which handles them as it always has. Measured by `npm run bench:startup`.
import { builtinModules } from 'node:module';

/** Bundled: ES-module packages with no native or WebAssembly part. */
const INLINED = ['zod', 'smol-toml'];

const isPackage = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0');
const inlined = (id) => INLINED.some((name) => id === name || id.startsWith(`${name}/`));

export default {
  // The code index's parse worker is its own entry: a worker thread starts from a file
  // (primitives/index/parse-pool.ts finds dist/bundle/scan-worker.js beside its chunk).
  // The evaluation (`piper-agent ab`) is an entry of its own: the product never imports it.
  input: {
    main: 'dist/cli/main.js',
    eval: 'dist/eval/main.js',
    'scan-worker': 'dist/primitives/index/scan-worker.js',
  },
  platform: 'node',
  external: (id) => id.startsWith('node:') || builtinModules.includes(id) || (isPackage(id) && !inlined(id)),
  output: {
    dir: 'dist/bundle',
    format: 'esm',
    cleanDir: true,
    // Names a reader (and test/integration/cli-start.test.ts) can tell apart: a command's own
    // chunk is command-NAME-…js, an inlined package's pkg-NAME-…js; the others are named after
    // their first module (run-agent-….js).
    chunkFileNames: (chunk) =>
      /\/dist\/(cli|eval)\/commands\//.test(chunk.facadeModuleId ?? '')
        ? 'command-[name]-[hash].js'
        : '[name]-[hash].js',
    codeSplitting: {
      groups: INLINED.map((name) => ({
        name: `pkg-${name}`,
        test: new RegExp(`[\\/]node_modules[\\/]${name}[\\/]`),
      })),
    },
    // Stack traces and error messages keep the source's function and class names.
    keepNames: true,
    comments: false,
    minify: true,
    sourcemap: true,
  },
};
