// Why a Swarm job ended without a result (eval/cluster/job-failure.ts), from the task states and
// messages Docker 20.10 gives: the node's reasons (the image missing there, killed, the engine
// failing to start it, the node lost) are retried on another node; the instance's own (a non-zero
// exit of its `ab`, no valid block, the time limit) are not. The output tail is the job's last lines.
import { describe, expect, it } from 'vitest';
import { describeFailure, readFailure, TAIL_LINES } from '../../eval/cluster/job-failure.js';
import type { SwarmTask } from '../../runtime/engine/swarm-client.js';

const task = (over: Partial<SwarmTask>): SwarmTask => ({
  id: 't1',
  nodeId: 'node-a',
  state: 'failed',
  message: '',
  exitCode: null,
  containerId: null,
  ...over,
});
const noLogs = { stdout: '', stderr: '' };

describe('a failed job, read', () => {
  it("names a node's reasons and marks them worth a retry elsewhere", () => {
    const cases: Array<[Partial<SwarmTask>, string]> = [
      [{ state: 'rejected', message: 'No such image: piper-agent-ci:0123456789ab' }, 'no such image'],
      [{ state: 'failed', exitCode: 137, message: 'task: non-zero exit (137)' }, 'killed'],
      [
        { state: 'rejected', message: 'starting container failed: OCI runtime create failed' },
        'engine error',
      ],
      [{ state: 'orphaned', message: 'node is down' }, 'node lost'],
    ];
    for (const [over, reason] of cases) {
      const f = readFailure(task(over), noLogs, 'the job printed no result block');
      expect([f.reason, f.nodeFault, f.node]).toEqual([reason, true, 'node-a']);
    }
  });

  it("keeps the instance's own failure and the time limit from a retry", () => {
    const own = readFailure(
      task({ exitCode: 1, message: 'task: non-zero exit (1)' }),
      { stdout: '', stderr: 'building the environment\nfailed: policy pb-1: the model refused\n' },
      'the job printed no result block',
    );
    expect([own.reason, own.nodeFault]).toEqual(['instance', false]);
    expect(own.tail).toEqual(['building the environment', 'failed: policy pb-1: the model refused']);
    expect(describeFailure(own)).toBe(
      'instance on node-a: failed (exit 1): task: non-zero exit (1); the job printed no result block — last line: failed: policy pb-1: the model refused',
    );
    const late = readFailure(null, noLogs, 'the job did not end in 60 s');
    expect([late.reason, late.nodeFault, late.node]).toEqual(['timeout', false, '']);
  });

  it('keeps the last lines, stderr first, without a result block', () => {
    const many = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\r\n');
    expect(readFailure(task({ exitCode: 2 }), { stdout: '', stderr: many }, 'x').tail).toEqual(
      Array.from({ length: TAIL_LINES }, (_, i) => `line ${40 - TAIL_LINES + i}`),
    );
    const block = `-----BEGIN PIPER RESULT bytes=1 sha256=00-----\n${'A'.repeat(76)}\nthe end\n`;
    expect(readFailure(task({ exitCode: 0 }), { stdout: block, stderr: '' }, 'x').tail).toEqual([
      '-----BEGIN PIPER RESULT bytes=1 sha256=00-----',
      'the end',
    ]);
  });
});
