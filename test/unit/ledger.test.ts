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
    const run = a.createRun({ kind: 'execute', repo: '/r', owner: 'h:1:1' });
    a.close();
    const b = Ledger.open(path);
    expect(b.getRun(run)).toMatchObject({ kind: 'execute', repo: '/r', outcome: null });
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
    const run = l.createRun({ kind: 'execute', repo: '/r', owner: 'h:1:1' });
    const call = l.dispatchCall({
      runId: run,
      tool: 'execute',
      args: { code: 'x' },
      origin: 'user',
      owner: 'h:1:1',
    });
    expect(l.getCall(call)?.status).toBe('dispatched');
    l.completeCall(call, receipt);
    expect(l.getCall(call)).toMatchObject({ status: 'completed', container_id: 'c0ffee' });
    expect(l.getExecution(call)).toMatchObject({ exit_code: 0, stdout: 'hi\n', warm: 0 });
    expect(() => l.endCall(call, 'failed', 'late')).toThrow(/only moves forward/);
    expect(l.getCall(call)?.status).toBe('completed');
  });

  it("keeps a receipt's kill reason (an engine that reports no OOM kill), null when there is none", () => {
    const l = Ledger.open(file());
    const run = l.createRun({ kind: 'execute', repo: '/r', owner: 'h:1:1' });
    const killed = l.dispatchCall({ runId: run, tool: 'execute', args: {}, origin: 'user', owner: 'h:1:1' });
    const reason =
      'killed by SIGKILL (this engine does not report OOM kills; the memory limit is the likely cause)';
    l.completeCall(killed, { ...receipt, exit_code: 137, kill_reason: reason });
    expect(l.getExecution(killed)).toMatchObject({ exit_code: 137, oom_killed: 0, kill_reason: reason });
    const plain = l.dispatchCall({ runId: run, tool: 'execute', args: {}, origin: 'user', owner: 'h:1:1' });
    l.completeCall(plain, receipt);
    expect(l.getExecution(plain)?.kill_reason).toBeNull();
    // `ledger show` says it beside the exit code.
    expect(renderRun(runDocument(l, findRun(l, run)))).toContain(`sandbox: exit 137 (${reason})`);
  });

  it('keeps one call one transaction: a failing completion leaves no execution row', () => {
    const l = Ledger.open(file());
    const run = l.createRun({ kind: 'execute', repo: '/r', owner: 'h:1:1' });
    const call = l.dispatchCall({ runId: run, tool: 'execute', args: {}, origin: 'user', owner: 'h:1:1' });
    l.endCall(call, 'not_executed', 'test');
    expect(() => l.completeCall(call, receipt)).toThrow();
    expect(l.getExecution(call)).toBeUndefined();
  });

  it('sweeps dead owners: not_executed without a container, failed with one, runs interrupted', () => {
    const l = Ledger.open(file());
    const dead = 'host:99999:1';
    const run = l.createRun({ kind: 'execute', repo: '/r', owner: dead });
    const noContainer = l.dispatchCall({
      runId: run,
      tool: 'execute',
      args: {},
      origin: 'user',
      owner: dead,
    });
    const withContainer = l.dispatchCall({
      runId: run,
      tool: 'execute',
      args: {},
      origin: 'user',
      owner: dead,
    });
    l.containerCreated(withContainer, 'abcdef0123456789');
    const alive = l.dispatchCall({
      runId: run,
      tool: 'execute',
      args: {},
      origin: 'user',
      owner: 'host:1:1',
    });
    const inProcess = l.dispatchCall({
      runId: run,
      tool: 'edit_entity',
      args: {},
      origin: 'model',
      owner: dead,
    });
    const swept = sweepLedger(l, (owner) => owner !== dead);
    expect(swept.map((s) => s.status).sort()).toEqual(['failed', 'failed', 'not_executed']);
    // An in-process call has no container, yet it may have written: its outcome is unknown.
    expect(l.getCall(inProcess)).toMatchObject({ status: 'failed' });
    expect(l.getCall(inProcess)?.status_reason).toMatch(
      /while edit_entity ran in process; the outcome is unknown/,
    );
    expect(l.getCall(noContainer)).toMatchObject({ status: 'not_executed' });
    expect(l.getCall(withContainer)?.status_reason).toMatch(
      /died while the call was in container abcdef012345/,
    );
    expect(l.getCall(alive)?.status).toBe('dispatched');
    expect(l.getRun(run)).toMatchObject({ outcome: 'interrupted' });
  });
});
