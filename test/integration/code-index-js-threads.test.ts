// The code index of a TypeScript repository parsed by worker threads gives the index one thread
// gives: the workers load the language's grammars (TypeScript, TSX, JavaScript) from the pool's
// word, not Python's. The repository is this one's own TypeScript, a real project of a few hundred
// files. The workers start from compiled files, so this runs dist/ (make build).
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

type CodeIndexModule = typeof import('../../primitives/index/code-index.js');
type LedgerModule = typeof import('../../runtime/ledger/ledger.js');

const dist = (path: string) => pathToFileURL(join(packageRoot(), 'dist', path)).href;
const { CodeIndex } = (await import(dist('primitives/index/code-index.js'))) as CodeIndexModule;
const { Ledger } = (await import(dist('runtime/ledger/ledger.js'))) as LedgerModule;

const dir = mkdtempSync(join(tmpdir(), 'piper-index-js-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ownTypeScript(): string {
  const repo = join(dir, 'repo');
  for (const folder of ['primitives', 'policy', 'cli'])
    cpSync(join(packageRoot(), folder), join(repo, folder), { recursive: true });
  writeFileSync(join(repo, 'package.json'), '{"name": "own", "private": true}\n');
  return repo;
}

async function open(repo: string, threads: number) {
  const ledger = Ledger.open(join(mkdtempSync(join(dir, 'ledger-')), 'ledger.db'));
  try {
    const index = await CodeIndex.open(repo, ledger, {
      language: 'javascript',
      threads,
      parallelMinFiles: 1,
    });
    return {
      stats: index.lastUpdate,
      view: {
        entities: index.all().map((e) => ({ ...e, text: index.searchText(e) })),
        files: index.files(),
        duplicates: index.duplicates(),
      },
    };
  } finally {
    ledger.close();
  }
}

describe('the TypeScript code index on worker threads', () => {
  it('gives the entities one thread gives', async () => {
    const repo = ownTypeScript();
    const threaded = await open(repo, 2);
    const single = await open(repo, 1);
    expect(threaded.stats.parsed).toBeGreaterThan(100);
    expect(single.view.entities.length).toBeGreaterThan(1000);
    expect(single.view.files.every((f) => !f.syntaxError)).toBe(true);
    expect(threaded.view).toEqual(single.view);
  });
});
