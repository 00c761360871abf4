#!/usr/bin/env node
// The installed command: runs the bundled CLI (npm run build / make build writes dist/bundle/;
// rolldown.config.mjs says why it is bundled). `ab` is the evaluation (eval/), a program of its own
// that the product never imports: its entry is started instead of the product's.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [command, topic] = process.argv.slice(2);
const evaluation = command === 'ab' || (command === 'help' && topic === 'ab');
const main = new URL(evaluation ? '../dist/bundle/eval.js' : '../dist/bundle/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write(
    'piper-agent: not built yet; run `make build` (or `npm run build`) in the package first\n',
  );
  process.exit(1);
}
await import(main.href);
