// What a repository's own files may not do, as the repository is untrusted input (docs/security.md),
// against the real CLI, headless: a hostile repository's
// .piper/config.json cannot send the user's API key to its own server (a real listener on
// 127.0.0.1 hears nothing unless the user passes --trust-repo-config), move the ledger, or raise
// the cost cap; issue sources that are not GitHub or not text are refused; and a ledger that
// cannot be used is one line with the fix from every command that opens it.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { behave, FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { MODELS, sampleRepo } from '../helpers/sample-repo.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const USER_KEY = 'sk-user-0123456789abcdef';
const STOP = JSON.stringify({ tool: 'stop', args: { reason: 'nothing to do in this test' } });

let server: FakeOpenAIServer;
let xdg: string;

/** The environment of an engineer with a key and a model, and nothing else of the test machine's. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: xdg, CI: 'true', ...extra };
  for (const name of Object.keys(env))
    if (/^(PIPER_|OPENAI_|GITHUB_)|^TOOL_POLICY$/.test(name) && !(name in extra)) delete env[name];
  return env;
}

function repoConfig(repo: string, config: unknown): void {
  mkdirSync(join(repo, '.piper'), { recursive: true });
  writeFileSync(join(repo, '.piper', 'config.json'), JSON.stringify(config));
}

function userConfig(config: unknown): void {
  mkdirSync(join(xdg, 'piper-agent'), { recursive: true });
  writeFileSync(join(xdg, 'piper-agent', 'config.json'), JSON.stringify(config));
}

const script = (name = 'sample-fix.jsonl') => `script:${join(MODELS, name)}`;

beforeAll(async () => {
  server = await FakeOpenAIServer.start();
});

afterAll(async () => {
  await server.close();
});

describe('a hostile repository config', () => {
  it('cannot send the user key to its baseUrl; --trust-repo-config can', async () => {
    xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    const repo = sampleRepo();
    repoConfig(repo, { baseUrl: server.baseUrl });
    // The user's own server (in the user's file, under the repository's layer): where the key goes
    // while the repository's base URL is left out.
    const mine = await FakeOpenAIServer.start();
    userConfig({ baseUrl: mine.baseUrl });
    const env = userEnv({ OPENAI_API_KEY: USER_KEY, PIPER_MODEL: 'openai:test-model' });
    const issue = join(repo, 'ISSUE.md');

    mine.enqueue(behave.text(STOP));
    const untrusted = await runCli(['fix', '--repo', repo, issue], { env });
    await mine.close();
    expect(server.requests).toEqual([]);
    expect(mine.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${USER_KEY}`]);
    expect(untrusted.code, untrusted.stderr).toBe(4); // stopped without a verified fix
    const warnings = untrusted.stderr.split('\n').filter((l) => l.includes('repository config not trusted'));
    expect(warnings).toEqual([
      `piper-agent: ignoring baseUrl from ${join(repo, '.piper', 'config.json')}: repository config not trusted (pass --trust-repo-config to use them)`,
    ]);

    server.enqueue(behave.text(STOP));
    const trusted = await runCli(['fix', '--repo', repo, '--trust-repo-config', issue], { env });
    expect(trusted.code, trusted.stderr).toBe(4); // stopped without a verified fix
    expect(trusted.stderr).not.toContain('not trusted');
    expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['POST', '/v1/chat/completions', `Bearer ${USER_KEY}`],
    ]);
    // The flag trusts for one command: nothing was remembered.
    const userFile = readFileSync(join(xdg, 'piper-agent', 'config.json'), 'utf8');
    expect(JSON.parse(userFile)).toEqual({ baseUrl: mine.baseUrl });
  });

  it('cannot move the ledger or raise the cost cap; a lowered cap applies', async () => {
    xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    userConfig({ maxCostUsd: 1 });
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'piper-trust-ledger-')), 'x.db');
    const budget = async (repoSettings: Record<string, unknown>) => {
      const repo = sampleRepo();
      repoConfig(repo, repoSettings);
      // A model that stops at once: the budget is in the first event, no sandbox run is needed.
      const stopAtOnce = join(repo, '.piper', 'stop.jsonl');
      writeFileSync(stopAtOnce, `${JSON.stringify(STOP)}\n`);
      const r = await runCli(
        [
          'fix',
          '--repo',
          repo,
          '--model',
          `script:${stopAtOnce}`,
          '--output',
          'stream-json',
          join(repo, 'ISSUE.md'),
        ],
        { env: userEnv() },
      );
      expect(r.code, r.stderr).toBe(4);
      const init = JSON.parse(r.stdout.split('\n')[0]!) as { budget: { max_cost_usd: number | null } };
      return { repo, stderr: r.stderr, maxCost: init.budget.max_cost_usd };
    };

    const raised = await budget({ maxCostUsd: 50, ledger: elsewhere });
    expect(raised.maxCost).toBe(1);
    expect(raised.stderr).toContain('ignoring maxCostUsd, ledger from');
    expect(existsSync(elsewhere)).toBe(false);
    expect(existsSync(defaultLedgerPath(raised.repo))).toBe(true);

    const lowered = await budget({ maxCostUsd: 0.25 });
    expect(lowered.maxCost).toBe(0.25);
    expect(lowered.stderr).not.toContain('not trusted');
  });

  it('`piper-agent config` shows the ignored keys', async () => {
    xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    const repo = sampleRepo();
    repoConfig(repo, { baseUrl: server.baseUrl, image: 'attacker/python:1' });
    const r = await runCli(['config', '--repo', repo], { env: userEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}baseUrl .*http:\/\/127\.0\.0\.1:\d+\/v1 .*ignored: repository config not trusted/m,
    );
    expect(r.stdout).toMatch(/^ {2}image .*attacker\/python:1 .*ignored: repository config not trusted/m);
  });
});

describe('issue sources and --repo', () => {
  it('refuses a non-GitHub URL without a request, a binary or empty file, and a missing --repo (exit 2)', async () => {
    xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    const repo = sampleRepo();
    const api = server.baseUrl.replace(/\/v1$/, '');
    const env = userEnv({ GITHUB_TOKEN: 'ghp_user_secret', GITHUB_API_URL: api });
    const before = server.requests.length;
    const evil = await runCli(
      ['fix', '--repo', repo, '--model', script(), 'https://evil.example/acme/calc/issues/1'],
      {
        env,
      },
    );
    expect(evil.code, evil.stderr).toBe(2);
    expect(evil.stderr).toContain('evil.example is not GitHub');
    expect(server.requests.length).toBe(before);

    const dir = mkdtempSync(join(tmpdir(), 'piper-issue-'));
    for (const [name, bytes, says] of [
      ['empty.md', Buffer.alloc(0), 'is empty'],
      ['nul.md', Buffer.from('fix\0this'), 'is binary'],
      ['latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'not valid UTF-8'],
    ] as const) {
      writeFileSync(join(dir, name), bytes);
      const r = await runCli(['fix', '--repo', repo, '--model', script(), join(dir, name)], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(says);
    }

    const missing = join(dir, 'no-such-repo');
    const r = await runCli(['fix', '--repo', missing, '--model', script(), 'fix it'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--repo ${missing} does not exist`);
    expect(existsSync(missing)).toBe(false);
  });
});

describe('a ledger that cannot be used', () => {
  const commands = (repo: string, ledger: string) => [
    ['fix', '--repo', repo, '--ledger', ledger, '--model', script(), join(repo, 'ISSUE.md')],
    ['run-test', '--repo', repo, '--ledger', ledger, 'tests/'],
    ['ledger', 'runs', '--ledger', ledger],
    ['ledger', 'show', 'r-1', '--ledger', ledger],
    ['undo', 'r-1', '--repo', repo, '--ledger', ledger],
  ];

  /** Exactly one stderr line, the given one, and exit 1: no stack trace, no usage text. */
  async function expectOneLine(args: string[], line: RegExp, env = userEnv()): Promise<void> {
    const r = await runCli(args, { env });
    expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, args.join(' ')).toHaveLength(1);
    expect(lines[0]).toMatch(line);
  }

  it('random bytes: "file is not a database", from fix, run-test, ledger runs/show and undo', async () => {
    xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    const repo = sampleRepo();
    const ledger = join(repo, '.piper', 'ledger.db');
    mkdirSync(join(repo, '.piper'), { recursive: true });
    writeFileSync(ledger, randomBytes(16_384));
    for (const args of commands(repo, ledger))
      await expectOneLine(
        args,
        new RegExp(`^piper-agent: ledger ${ledger}: file is not a database — move it away or point --ledger`),
      );
  });

  it('a parent that is a regular file: one line, from every command that creates the ledger', async () => {
    xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    const repo = sampleRepo();
    const file = join(repo, 'not-a-dir');
    writeFileSync(file, 'x');
    const ledger = join(file, 'ledger.db');
    for (const args of commands(repo, ledger).slice(0, 2))
      await expectOneLine(
        args,
        new RegExp(`^piper-agent: ledger ${ledger}: a file is where its directory should be`),
      );
  });

  it('read-only ledger and directory, as a user who cannot write them', () => {
    xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    const dir = mkdtempSync(join(tmpdir(), 'piper-ro-'));
    const ledger = join(dir, 'ledger.db');
    // Root ignores file modes: the CLI runs as nobody then.
    writeFileSync(ledger, ''); // an empty file is a valid empty database to SQLite
    chmodSync(ledger, 0o444);
    chmodSync(dir, 0o555);
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    try {
      for (const args of [
        ['ledger', 'runs', '--ledger', ledger],
        ['undo', 'r-1', '--repo', dir, '--ledger', ledger],
      ]) {
        const r = spawnSync(process.execPath, [CLI, ...args], {
          env: userEnv({ HOME: dir }),
          cwd: dir,
          encoding: 'utf8',
          ...asUser,
        });
        expect(r.status, r.stderr).toBe(1);
        const lines = r.stderr.trimEnd().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          new RegExp(`^piper-agent: ledger ${ledger}: .*read-only — make it writable`),
        );
      }
    } finally {
      chmodSync(dir, 0o755);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
