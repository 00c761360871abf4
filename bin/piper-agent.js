#!/usr/bin/env node
// The installed command: runs the bundled CLI (npm run build / make build writes dist/bundle/;
// rolldown.config.mjs says why it is bundled).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write(
    'piper-agent: not built yet; run `make build` (or `npm run build`) in the package first\n',
  );
  process.exit(1);
}
await import(main.href);
