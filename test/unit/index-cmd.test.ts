// `piper-agent index` as a function: JSON and text output over a fixture repo, the ledger cache
// between two runs, and a bad --repo.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexCommand } from '../../cli/commands/index-cmd.js';
import { UsageError } from '../../core/exit-codes.js';
import { packageRoot } from '../../runtime/package-root.js';

const temps: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const code = await indexCommand(argv);
  vi.restoreAllMocks();
  return { code, out };
}

function fixture(name: string): { repo: string; ledger: string } {
  const dir = mkdtempSync(join(tmpdir(), 'piper-index-cmd-'));
  temps.push(dir);
  const repo = join(dir, name);
  cpSync(join(packageRoot(), 'test', 'fixtures', 'repos', name), repo, { recursive: true });
  return { repo, ledger: join(dir, 'ledger.db') };
}

describe('piper-agent index', () => {
  it('prints one JSON object with files, entities and duplicates; the second run parses nothing', async () => {
    const { repo, ledger } = fixture('flat');
    const first = await run(['--repo', repo, '--ledger', ledger, '--json']);
    expect(first.code).toBe(0);
    const json = JSON.parse(first.out) as {
      stats: { parsed: number; cached: number; files: number };
      files: Array<{ path: string; syntaxError: boolean }>;
      entities: Array<{ selector: string; kind: string }>;
      duplicates: Array<{ selector: string; definitions: Array<{ path: string; line: number }> }>;
    };
    expect(json.stats).toMatchObject({ files: 6, parsed: 6, cached: 0 });
    expect(json.files.filter((f) => f.syntaxError).map((f) => f.path)).toEqual(['broken.py']);
    expect(json.entities).toContainEqual(
      expect.objectContaining({ selector: 'shapes.Shape.unit_area', kind: 'method' }),
    );
    expect(json.duplicates).toContainEqual({
      selector: 'dupes.handler',
      definitions: [
        { path: 'dupes.py', line: 4 },
        { path: 'dupes.py', line: 12 },
      ],
    });
    const second = JSON.parse((await run(['--repo', repo, '--ledger', ledger, '--json'])).out) as typeof json;
    expect(second.stats).toMatchObject({ parsed: 0, cached: 6 });
    expect(second.entities).toEqual(json.entities);
  });

  it('lists entities as text, with syntax errors, duplicates and a summary', async () => {
    const { repo, ledger } = fixture('srclayout');
    const { code, out } = await run(['--repo', repo, '--ledger', ledger]);
    expect(code).toBe(0);
    expect(out).toMatch(/^src\.calc\.ops\.Calc\.add\s+method\s+src\/calc\/ops\.py:10-13$/m);
    expect(out).toMatch(
      /^3 files \(3 parsed, 0 cached, 0 removed, listed by walk\), 9 entities, 0 with syntax errors/m,
    );
  });

  it('refuses a --repo that is not a directory', async () => {
    await expect(indexCommand(['--repo', '/nonexistent/piper-repo'])).rejects.toBeInstanceOf(UsageError);
  });
});
