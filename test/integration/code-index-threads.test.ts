// The code index parsed by worker threads (primitives/index/parse-pool.ts) gives the same index as
// one thread, and as the older walk over every node (IndexOptions.baseline), so neither faster path
// changes what is indexed, on real Python:
// sqlparse's repository when its bundle is on this machine, and always this repository's own
// fixtures and task set. The workers start from compiled files, so this runs dist/ (make build).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
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
type Index = Awaited<ReturnType<CodeIndexModule['CodeIndex']['open']>>;

const SQLPARSE_BUNDLE = join(process.env.PIPER_REAL_REPOS ?? '/work/shared/real-repos', 'sqlparse.bundle');
const dir = mkdtempSync(join(tmpdir(), 'piper-index-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function repos(): string[] {
  const own = join(dir, 'own');
  cpSync(join(packageRoot(), 'test', 'fixtures', 'repos'), join(own, 'fixtures'), { recursive: true });
  cpSync(join(packageRoot(), 'eval', 'tasks', 'piperbench'), join(own, 'piperbench'), { recursive: true });
  const out = [own];
  if (existsSync(SQLPARSE_BUNDLE)) {
    execFileSync('git', ['clone', '-q', SQLPARSE_BUNDLE, join(dir, 'sqlparse')]);
    out.push(join(dir, 'sqlparse'));
  }
  return out;
}

async function open(repo: string, options: Parameters<CodeIndexModule['CodeIndex']['open']>[2]) {
  const ledger = Ledger.open(join(mkdtempSync(join(dir, 'ledger-')), 'ledger.db'));
  try {
    const index = await CodeIndex.open(repo, ledger, options);
    return { index, view: view(index) };
  } finally {
    ledger.close();
  }
}

/** Every entity with the text search embeds for it (its terms), every file, every duplicate. */
function view(index: Index) {
  return {
    entities: index.all().map((e) => ({ ...e, text: index.searchText(e) })),
    files: index.files(),
    duplicates: index.duplicates(),
  };
}

describe('the code index on worker threads', () => {
  it.each(repos())('gives the entities one thread gives, and the baseline walk gives: %s', async (repo) => {
    const threaded = await open(repo, { threads: 2, parallelMinFiles: 1 });
    const single = await open(repo, { threads: 1 });
    const baseline = await open(repo, { baseline: true });
    expect(threaded.index.lastUpdate.parsed).toBeGreaterThan(16); // more than one batch: the worker took some
    expect(single.view.entities.length).toBeGreaterThan(100);
    expect(threaded.view).toEqual(single.view);
    expect(baseline.view).toEqual(single.view);
  });
});
