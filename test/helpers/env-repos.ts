// Repositories for the environment tests: a fixture (or files) copied into a scratch git repo, the
// ledger's environments rows read back, and the pip settings of the machine cleared (the user's
// own pip configuration is an input of every environment; these tests set their own).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { Ledger } from '../../runtime/ledger/ledger.js';

/**
 * The machine's pip settings cleared, and pip pointed at an index that never answers (nothing
 * listens on port 9): a build here is the fallback from Debian's packages whether or not this
 * machine reaches a public index, and pip is told at once (no retries). A test that serves an index
 * sets PIP_INDEX_URL over it.
 */
export const UNREACHABLE_INDEX = 'http://127.0.0.1:9/simple/';

export const NO_PIP = {
  PIP_INDEX_URL: UNREACHABLE_INDEX,
  PIP_RETRIES: '0',
  PIP_EXTRA_INDEX_URL: '',
  PIP_FIND_LINKS: '',
  PIP_CONFIG_FILE: '/dev/null',
  PIP_DEFAULT_TIMEOUT: '',
  // The user's uv settings are index settings too (plan/indexes/uv-user.ts).
  UV_DEFAULT_INDEX: '',
  UV_INDEX_URL: '',
  UV_INDEX: '',
  UV_EXTRA_INDEX_URL: '',
  UV_NO_CONFIG: '1',
  CI: 'true',
};

export interface EnvRow {
  key: string | null;
  status: string;
  image: string;
  sources: string;
  resolved: string;
  steps: string;
  shortfalls: string | null;
  error: string | null;
  seconds: number;
}

export function envRows(repo: string): EnvRow[] {
  const ledger = Ledger.open(defaultLedgerPath(repo));
  try {
    return ledger.database.prepare('SELECT * FROM environments ORDER BY id').all() as EnvRow[];
  } finally {
    ledger.close();
  }
}

/** A scratch directory of repositories; `cleanup` removes them and their environment images. */
export function envScratch(prefix: string) {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  const repos: string[] = [];
  return {
    scratch,
    newRepo(name: string, files: Record<string, string>, from?: string): string {
      const src = join(scratch, `${name}-src`);
      if (from) cpSync(from, src, { recursive: true });
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(src, path, '..'), { recursive: true });
        writeFileSync(join(src, path), text);
      }
      const repo = copyAsGitRepo(src, join(scratch, name), 'fixture');
      repos.push(repo);
      return repo;
    },
    async cleanup(engine: DockerEngine): Promise<void> {
      for (const repo of repos) await removeProjectImages(engine, repo);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** An HTTP listener on 127.0.0.1 that records every request (path and headers) and answers 404. */
export async function listener(): Promise<{
  port: number;
  requests: Array<{ path: string; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}> {
  const requests: Array<{ path: string; headers: Record<string, unknown> }> = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A project's environment images, newest first: a kept dependency image goes after the images built on it. */
export async function removeProjectImages(engine: DockerEngine, repo: string): Promise<void> {
  const images = await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`]);
  for (const image of images.sort((a, b) => b.created - a.created))
    await engine.removeImage(image.id).catch(() => undefined);
}
