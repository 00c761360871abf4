import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { SCHEMA_VERSION } from '../../runtime/ledger/migrations.js';
import { findRun } from '../../cli/ledger/find-run.js';
import { renderRun } from '../../cli/ledger/render-run.js';
import { runDocument } from '../../cli/ledger/run-document.js';
import { sweepLedger } from '../../runtime/ledger/sweep.js';
import type { Receipt } from '../../runtime/sandbox/spec.js';
import { createRun, getRun } from '../../runtime/ledger/runs.js';
import {
  completeCall,
  containerCreated,
  dispatchCall,
  endCall,
  getCall,
  getExecution,
} from '../../runtime/ledger/calls.js';

const file = () => join(mkdtempSync(join(tmpdir(), 'piper-ledger-')), 'sub', 'ledger.db');

const receipt: Receipt = {
  exit_code: 0,
  timed_out: false,
  oom_killed: false,
  stdout: 'hi\n',
  stderr: '',
  stdout_bytes: 3,
  stderr_bytes: 0,
  stdout_sha256: 'a'.repeat(64),
  stderr_sha256: 'b'.repeat(64),
  stdout_truncated: false,
  stderr_truncated: false,
  timings: { create_ms: 1, start_ms: 2, run_ms: 3, total_ms: 6 },
  container_id: 'c0ffee',
  image: 'img',
  image_digest: 'sha256:x',
  warm: false,
  limits: { cpus: 1, memoryMb: 512, pids: 128, timeoutS: 30, outputCapBytes: 100, tmpfsMb: 64 },
};

describe('Ledger', () => {
  it('creates the file with WAL and the current schema, and reopens it', () => {
    const path = file();
    const a = Ledger.open(path);
    expect(a.journalMode).toBe('wal');
    expect(a.schemaVersion).toBe(SCHEMA_VERSION);
    const run = createRun(a, { kind: 'execute', repo: '/r', owner: 'h:1:1' });
    a.close();
    const b = Ledger.open(path);
    expect(getRun(b, run)).toMatchObject({ kind: 'execute', repo: '/r', outcome: null });
    b.close();
  });

  it('refuses a ledger from a newer piper-agent', () => {
    const path = file();
    const a = Ledger.open(path);
    a.database.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    a.close();
    expect(() => Ledger.open(path)).toThrow(/newer than this piper-agent knows/);
  });

  it('moves a call dispatched → completed with its execution, and never back', () => {
    const l = Ledger.open(file());
    const run = createRun(l, { kind: 'execute', repo: '/r', owner: 'h:1:1' });
    const call = dispatchCall(l, {
      runId: run,
      tool: 'execute',
      args: { code: 'x' },
      origin: 'user',
      owner: 'h:1:1',
    });
    expect(getCall(l, call)?.status).toBe('dispatched');
    completeCall(l, call, receipt);
    expect(getCall(l, call)).toMatchObject({ status: 'completed', container_id: 'c0ffee' });
    expect(getExecution(l, call)).toMatchObject({ exit_code: 0, stdout: 'hi\n', warm: 0 });
    expect(() => endCall(l, call, 'failed', 'late')).toThrow(/only moves forward/);
    expect(getCall(l, call)?.status).toBe('completed');
  });

  it("keeps a receipt's kill reason (an engine that reports no OOM kill), null when there is none", () => {
    const l = Ledger.open(file());
    const run = createRun(l, { kind: 'execute', repo: '/r', owner: 'h:1:1' });
    const killed = dispatchCall(l, { runId: run, tool: 'execute', args: {}, origin: 'user', owner: 'h:1:1' });
    const reason =
      'killed by SIGKILL (this engine does not report OOM kills; the memory limit is the likely cause)';
    completeCall(l, killed, { ...receipt, exit_code: 137, kill_reason: reason });
    expect(getExecution(l, killed)).toMatchObject({ exit_code: 137, oom_killed: 0, kill_reason: reason });
    const plain = dispatchCall(l, { runId: run, tool: 'execute', args: {}, origin: 'user', owner: 'h:1:1' });
    completeCall(l, plain, receipt);
    expect(getExecution(l, plain)?.kill_reason).toBeNull();
    // `ledger show` says it beside the exit code.
    expect(renderRun(runDocument(l, findRun(l, run)))).toContain(`sandbox: exit 137 (${reason})`);
  });

  it('keeps one call one transaction: a failing completion leaves no execution row', () => {
    const l = Ledger.open(file());
    const run = createRun(l, { kind: 'execute', repo: '/r', owner: 'h:1:1' });
    const call = dispatchCall(l, { runId: run, tool: 'execute', args: {}, origin: 'user', owner: 'h:1:1' });
    endCall(l, call, 'not_executed', 'test');
    expect(() => completeCall(l, call, receipt)).toThrow();
    expect(getExecution(l, call)).toBeUndefined();
  });

  it('sweeps dead owners: not_executed without a container, failed with one, runs interrupted', () => {
    const l = Ledger.open(file());
    const dead = 'host:99999:1';
    const run = createRun(l, { kind: 'execute', repo: '/r', owner: dead });
    const noContainer = dispatchCall(l, {
      runId: run,
      tool: 'execute',
      args: {},
      origin: 'user',
      owner: dead,
    });
    const withContainer = dispatchCall(l, {
      runId: run,
      tool: 'execute',
      args: {},
      origin: 'user',
      owner: dead,
    });
    containerCreated(l, withContainer, 'abcdef0123456789');
    const alive = dispatchCall(l, {
      runId: run,
      tool: 'execute',
      args: {},
      origin: 'user',
      owner: 'host:1:1',
    });
    const inProcess = dispatchCall(l, {
      runId: run,
      tool: 'edit_entity',
      args: {},
      origin: 'model',
      owner: dead,
    });
    const swept = sweepLedger(l, (owner) => owner !== dead);
    expect(swept.map((s) => s.status).sort()).toEqual(['failed', 'failed', 'not_executed']);
    // An in-process call has no container, yet it may have written: its outcome is unknown.
    expect(getCall(l, inProcess)).toMatchObject({ status: 'failed' });
    expect(getCall(l, inProcess)?.status_reason).toMatch(
      /while edit_entity ran in process; the outcome is unknown/,
    );
    expect(getCall(l, noContainer)).toMatchObject({ status: 'not_executed' });
    expect(getCall(l, withContainer)?.status_reason).toMatch(
      /died while the call was in container abcdef012345/,
    );
    expect(getCall(l, alive)?.status).toBe('dispatched');
    expect(getRun(l, run)).toMatchObject({ outcome: 'interrupted' });
  });
});
