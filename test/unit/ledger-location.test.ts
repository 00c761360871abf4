// Where the ledger lives, and what piper will not take as its record: the default ledger is in the
// user's state directory, one per repository (its real path), never inside a repository; a ledger
// file git tracks is not opened whoever names it; a `.piper/ledger.db` a repository ships feeds no
// cache (the regression gate's "before"); and what a cache reuses is the newest by when it was
// written, not by an id a file can choose.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRuntimeError } from '../../runtime/errors.js';
import { lastBuildOf, recordEnvironment, type EnvironmentRow } from '../../runtime/ledger/environments.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import {
  defaultLedgerPath,
  ledgerDirectory,
  ledgerPath,
  movedLedgerNote,
} from '../../runtime/ledger/location.js';
import { cachedBaseRun } from '../../runtime/ledger/suite-cache.js';
import { trackedBy } from '../../runtime/ledger/tracked.js';

const KEY = 'k'.repeat(32);
const saved = { XDG_STATE_HOME: process.env.XDG_STATE_HOME, PIPER_STATE_DIR: process.env.PIPER_STATE_DIR };
const savedLedger = process.env.PIPER_LEDGER;
let state: string;

beforeEach(() => {
  state = mkdtempSync(join(tmpdir(), 'piper-state-'));
  process.env.XDG_STATE_HOME = state;
  delete process.env.PIPER_STATE_DIR;
  delete process.env.PIPER_LEDGER;
});

afterEach(() => {
  for (const [name, value] of Object.entries(saved))
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  if (savedLedger === undefined) delete process.env.PIPER_LEDGER;
  else process.env.PIPER_LEDGER = savedLedger;
});

/** A git repository with one commit, in a directory of its own. */
function gitRepo(name = 'project'): string {
  const repo = join(mkdtempSync(join(tmpdir(), 'piper-loc-')), name);
  mkdirSync(repo);
  writeFileSync(join(repo, 'a.py'), 'x = 1\n');
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'first');
  return repo;
}

function git(repo: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], {
    cwd: repo,
    stdio: 'ignore',
  });
}

function refusal(open: () => unknown): unknown {
  try {
    open();
  } catch (error) {
    return error;
  }
  return null;
}

/** A finished base suite run under KEY, as a forger writes it: raw rows, any stamp. */
function plantBaseRun(ledger: Ledger, stdout: string, startedAt = new Date().toISOString()): string {
  const id = `r-forged-${Math.random().toString(16).slice(2, 8)}`;
  const db = ledger.database;
  db.prepare(
    `INSERT INTO runs (id, kind, repo, config, owner, outcome, started_at, ended_at)
     VALUES (?, 'run_test', '/somewhere', ?, 'x:1:1', 'passed', ?, ?)`,
  ).run(id, JSON.stringify({ suite: { side: 'base', key: KEY } }), startedAt, startedAt);
  db.prepare(
    `INSERT INTO calls (id, run_id, origin, tool, args, verdict, status, owner, created_at, updated_at)
     VALUES (?, ?, 'user', 'run_test', '{}', 'valid', 'completed', 'x:1:1', ?, ?)`,
  ).run(`c-${id}`, id, startedAt, startedAt);
  db.prepare(
    `INSERT INTO executions (call_id, image, image_digest, container_id, warm, limits, exit_code,
       timed_out, oom_killed, stdout, stderr, stdout_bytes, stderr_bytes, stdout_sha256, stderr_sha256,
       stdout_truncated, stderr_truncated, created_at)
     VALUES (?, 'img', 'sha256:0', 'c0', 0, '{}', 0, 0, 0, ?, '', 0, 0, '', '', 0, 0, ?)`,
  ).run(`c-${id}`, stdout, startedAt);
  return id;
}

describe('the default ledger', () => {
  it('is in $XDG_STATE_HOME/piper-agent/ledgers, named by the real path’s digest and the name', () => {
    const repo = gitRepo('my project');
    const path = defaultLedgerPath(repo);
    expect(path.startsWith(join(state, 'piper-agent', 'ledgers') + '/')).toBe(true);
    expect(path).toMatch(/\/[0-9a-f]{16}-my_project\.db$/);
    expect(ledgerPath({ repo })).toBe(path);
  });

  it('is one per repository: two checkouts of one name differ; a link to a checkout is the same', () => {
    const one = gitRepo('same');
    const two = gitRepo('same');
    expect(defaultLedgerPath(one)).not.toBe(defaultLedgerPath(two));
    const link = join(mkdtempSync(join(tmpdir(), 'piper-link-')), 'via-link');
    symlinkSync(one, link);
    expect(defaultLedgerPath(link)).toBe(defaultLedgerPath(one));
  });

  it('is under ~/.local/state without XDG_STATE_HOME (or with a relative one); PIPER_STATE_DIR moves it', () => {
    const home = join(homedir(), '.local', 'state', 'piper-agent', 'ledgers');
    expect(ledgerDirectory({})).toBe(home);
    expect(ledgerDirectory({ XDG_STATE_HOME: 'relative/state' })).toBe(home);
    expect(ledgerDirectory({ XDG_STATE_HOME: '/x/state' })).toBe('/x/state/piper-agent/ledgers');
    expect(ledgerDirectory({ PIPER_STATE_DIR: '/p', XDG_STATE_HOME: '/x/state' })).toBe('/p/ledgers');
  });

  it('gives way to --ledger, then PIPER_LEDGER', () => {
    const repo = gitRepo();
    process.env.PIPER_LEDGER = join(state, 'env.db');
    expect(ledgerPath({ repo })).toBe(join(state, 'env.db'));
    expect(ledgerPath({ repo, flag: join(state, 'flag.db') })).toBe(join(state, 'flag.db'));
  });

  it('is created in directories only its user may enter (0700), and nothing is written in the repository', () => {
    const repo = gitRepo();
    Ledger.open(ledgerPath({ repo })).close();
    for (const dir of [join(state, 'piper-agent'), join(state, 'piper-agent', 'ledgers')])
      expect(statSync(dir).mode & 0o777, dir).toBe(0o700);
    expect(() => statSync(join(repo, '.piper'))).toThrow();
  });
});

describe('a ledger file git tracks', () => {
  it('is refused before it is opened, named by a flag or PIPER_LEDGER; an untracked one in the same place opens', () => {
    const repo = gitRepo();
    const shipped = join(repo, '.piper', 'ledger.db');
    Ledger.open(shipped).close();
    expect(trackedBy(shipped)).toBeNull();
    git(repo, 'add', '-f', '.piper/ledger.db');
    git(repo, 'commit', '-q', '-m', 'ship a ledger');
    expect(trackedBy(shipped)).toBe(realpathSync(repo));

    const error = refusal(() => Ledger.open(ledgerPath({ repo, flag: shipped })));
    expect(isRuntimeError(error, 'ledger_refused')).toBe(true);
    expect((error as Error).message).toContain('is tracked by git');
    process.env.PIPER_LEDGER = shipped;
    expect(
      isRuntimeError(
        refusal(() => Ledger.open(ledgerPath({ repo }))),
        'ledger_refused',
      ),
    ).toBe(true);

    const mine = join(repo, '.piper', 'mine.db');
    Ledger.open(mine).close();
  });

  it('is refused through a link from outside the repository, and when only its -wal is tracked', () => {
    const repo = gitRepo();
    const shipped = join(repo, 'data', 'ledger.db');
    mkdirSync(join(repo, 'data'));
    writeFileSync(`${shipped}-wal`, '');
    git(repo, 'add', '-f', 'data/ledger.db-wal');
    git(repo, 'commit', '-q', '-m', 'a journal');
    expect(
      isRuntimeError(
        refusal(() => Ledger.open(shipped)),
        'ledger_refused',
      ),
    ).toBe(true);

    const other = gitRepo();
    writeFileSync(join(other, 'real.db'), '');
    git(other, 'add', 'real.db');
    git(other, 'commit', '-q', '-m', 'a ledger');
    const link = join(mkdtempSync(join(tmpdir(), 'piper-link-')), 'ledger.db');
    symlinkSync(join(other, 'real.db'), link);
    expect(
      isRuntimeError(
        refusal(() => Ledger.open(link)),
        'ledger_refused',
      ),
    ).toBe(true);
  });

  it('a name with pattern characters names that file only', () => {
    const repo = gitRepo();
    writeFileSync(join(repo, 'ledger1.db'), '');
    git(repo, 'add', 'ledger1.db');
    git(repo, 'commit', '-q', '-m', 'one');
    expect(trackedBy(join(repo, 'ledger?.db'))).toBeNull();
    expect(trackedBy(join(repo, 'ledger*'))).toBeNull();
  });
});

describe('a `.piper/ledger.db` the repository ships', () => {
  it('with a base suite run under the key feeds no cache of a run on that repository', () => {
    const repo = gitRepo();
    const shipped = join(repo, '.piper', 'ledger.db');
    const forged = Ledger.open(shipped);
    plantBaseRun(forged, '1 passed');
    forged.close();
    // What the forgery would do where it was taken as the record.
    const named = Ledger.open(shipped);
    expect(cachedBaseRun(named, KEY)?.stdout).toBe('1 passed');
    named.close();

    const ledger = Ledger.open(ledgerPath({ repo }));
    try {
      expect(ledger.path).not.toContain(repo);
      expect(cachedBaseRun(ledger, KEY)).toBeUndefined();
    } finally {
      ledger.close();
    }
  });

  it('an untracked one (an earlier piper-agent’s) is named once, before the new ledger exists; a tracked one is not', () => {
    const repo = gitRepo();
    const legacy = join(repo, '.piper', 'ledger.db');
    Ledger.open(legacy).close();
    const path = ledgerPath({ repo });
    expect(movedLedgerNote(repo, path)).toBe(
      `the ledger of ${repo} is now ${path}; its .piper/ledger.db is no longer read (pass --ledger ${legacy} to read the runs in it)`,
    );
    Ledger.open(path).close();
    expect(movedLedgerNote(repo, path)).toBeNull();

    const other = gitRepo();
    mkdirSync(join(other, '.piper'));
    writeFileSync(join(other, '.piper', 'ledger.db'), '');
    git(other, 'add', '-f', '.piper/ledger.db');
    git(other, 'commit', '-q', '-m', 'shipped');
    expect(movedLedgerNote(other, ledgerPath({ repo: other }))).toBeNull();
  });
});

describe('what a cache reuses', () => {
  const built = (seconds: number): EnvironmentRow => ({
    key: KEY,
    repo: '/r',
    status: 'built',
    image: 'piper-env:x',
    imageId: 'sha256:1',
    baseImageId: 'sha256:0',
    sizeBytes: 1,
    seconds,
    inputs: [],
    decisions: [],
    plan: {},
    steps: [],
    resolved: [],
    sources: [],
    shortfalls: [{ requirement: `from the build of ${seconds} s` }],
    error: null,
  });

  function plantBuild(ledger: Ledger, id: bigint, createdAt: string, note: string): void {
    ledger.database
      .prepare(
        `INSERT INTO environments (id, key, repo, status, image, seconds, inputs, decisions, plan, steps,
           resolved, sources, shortfalls, created_at)
         VALUES (?, ?, '/r', 'built', 'forged', 1, '[]', '[]', '{}', '[]', '[]', '[]', ?, ?)`,
      )
      .run(id, KEY, JSON.stringify([{ requirement: note }]), createdAt);
  }

  it('an environment build: the newest written, not the largest id; a row stamped in the future never', () => {
    const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-env-order-')), 'ledger.db'));
    try {
      plantBuild(ledger, 9223372036854775807n, '2000-01-01T00:00:00.000Z', 'forged, old');
      recordEnvironment(ledger, built(7));
      expect(lastBuildOf(ledger, KEY)?.shortfalls).toEqual([{ requirement: 'from the build of 7 s' }]);
      plantBuild(ledger, 5n, '9999-01-01T00:00:00.000Z', 'forged, future');
      expect(lastBuildOf(ledger, KEY)?.shortfalls).toEqual([{ requirement: 'from the build of 7 s' }]);
    } finally {
      ledger.close();
    }
  });

  it('the gate’s base run: the newest written; one stamped in the future never', () => {
    const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'piper-base-order-')), 'ledger.db'));
    try {
      plantBaseRun(ledger, 'older', '2020-01-01T00:00:00.000Z');
      plantBaseRun(ledger, 'newer', '2021-01-01T00:00:00.000Z');
      plantBaseRun(ledger, 'oldest', '2019-01-01T00:00:00.000Z');
      expect(cachedBaseRun(ledger, KEY)?.stdout).toBe('newer');
      plantBaseRun(ledger, 'future', '9999-01-01T00:00:00.000Z');
      expect(cachedBaseRun(ledger, KEY)?.stdout).toBe('newer');
    } finally {
      ledger.close();
    }
  });
});
