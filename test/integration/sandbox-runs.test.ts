// Ordinary runs against the real engine: exact exit codes and bytes, concurrency, the warm pool,
// a workspace tar stream with real pytest, and the bad specs the runtime refuses.
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { isRuntimeError } from '../../runtime/errors.js';
import { IMAGE, expectNoContainersLeft, makeSandbox, python } from '../helpers/sandbox.js';

const sandbox = makeSandbox({ concurrency: 4 });
const pooled = makeSandbox({ poolSize: 2 });

afterAll(async () => {
  await sandbox.close();
  await pooled.close();
  await expectNoContainersLeft();
});

function workspace(files: Record<string, string>): Readable {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name, mode: 0o644 }, content);
  pack.finalize();
  return pack as unknown as Readable;
}

describe('sandbox runs (real engine)', () => {
  it.each([0, 1, 2, 137])('returns exit code %i exactly', async (code) => {
    const r = await sandbox.run(python(`import os, sys\nsys.stdout.flush()\nos._exit(${code})`));
    expect(r.exit_code).toBe(code);
    expect(r.oom_killed).toBe(false);
    expect(r.timed_out).toBe(false);
  });

  it('returns non-ASCII output byte for byte, stdout and stderr apart', async () => {
    const text = 'héllo wörld — 你好 🐍';
    const r = await sandbox.run(
      python(`import sys\nprint(${JSON.stringify(text)})\nprint("érr ✗", file=sys.stderr)`),
    );
    expect(r.stdout).toBe(`${text}\n`);
    expect(r.stderr).toBe('érr ✗\n');
    expect(r.stdout_bytes).toBe(Buffer.byteLength(`${text}\n`));
    expect(r.stdout_truncated).toBe(false);
  });

  it('gives a Python traceback and exit 1 for an exception', async () => {
    const r = await sandbox.run(python('def f():\n    raise ValueError("boom")\nf()'));
    expect(r.exit_code).toBe(1);
    expect(r.stderr).toContain('ValueError: boom');
    expect(r.stderr).toContain('Traceback');
  });

  it('runs 8 calls concurrently (4 at a time), each with its own output', async () => {
    const runs = Array.from({ length: 8 }, (_, i) =>
      sandbox.run(python(`import time\ntime.sleep(0.2)\nprint("call", ${i}, "x" * ${i * 1000})`)),
    );
    const receipts = await Promise.all(runs);
    receipts.forEach((r, i) => {
      expect(r.exit_code).toBe(0);
      expect(r.stdout).toBe(`call ${i} ${'x'.repeat(i * 1000)}\n`);
    });
    expect(new Set(receipts.map((r) => r.container_id)).size).toBe(8);
  });

  it('serves execute from pre-started containers, one container per call', async () => {
    await pooled.init();
    const a = await pooled.run(python('print("first")'));
    const b = await pooled.run(python('import os\nprint("second", os.getuid())'));
    expect(a.warm).toBe(true);
    expect(b.warm).toBe(true);
    expect(a.stdout).toBe('first\n');
    expect(b.stdout).toBe('second 1000\n');
    expect(a.container_id).not.toBe(b.container_id);
    // Limits the pool was not created with go cold.
    const c = await pooled.run(python('print("cold")', { memoryMb: 128 }));
    expect(c.warm).toBe(false);
    expect(c.stdout).toBe('cold\n');
  });

  it('keeps the time limit on a warm container too', async () => {
    await pooled.init();
    const r = await pooled.run(python('while True: pass', { timeoutS: 1 }));
    expect(r.warm).toBe(true);
    expect(r.timed_out).toBe(true);
  });

  it('unpacks a workspace tar stream and runs real pytest in it', async () => {
    const ws = workspace({
      'calc.py': 'def add(a, b):\n    return a + b\n',
      'test_calc.py':
        'from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n\ndef test_bad():\n    assert add(2, 2) == 5\n',
    });
    const r = await sandbox.run({ image: IMAGE, argv: ['python3', '-m', 'pytest', '-q'], workspace: ws });
    expect(r.exit_code).toBe(1);
    expect(r.stdout).toMatch(/1 failed, 1 passed/);
  });

  it('refuses a spec with both stdin and a workspace, and bad limits', async () => {
    const both = sandbox.run({ image: IMAGE, argv: ['true'], stdin: 'x', workspace: workspace({}) });
    await expect(both).rejects.toSatisfy((e) => isRuntimeError(e, 'bad_spec'));
    await expect(sandbox.run(python('1', { timeoutS: 0 }))).rejects.toSatisfy((e) =>
      isRuntimeError(e, 'bad_spec'),
    );
  });

  it('says how to build a missing image', async () => {
    const r = sandbox.run({ image: 'piper-sandbox-python:does-not-exist', argv: ['true'] });
    await expect(r).rejects.toSatisfy(
      (e) => isRuntimeError(e, 'image_missing') && /image build/.test(e.fix ?? ''),
    );
  });
});
