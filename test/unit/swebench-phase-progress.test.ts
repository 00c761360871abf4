// The progress of a validation run (eval/swebench/phase-progress.ts): in a log, one line per phase
// and per build step (a step's own output is left out), base-image lines told apart from the
// project's environment; on a terminal, a live line redrawn in place and cleared when the instance
// is done. Written to a real stream; fake timers only drive the once-a-second redraw.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PhaseProgress } from '../../eval/swebench/phase-progress.js';

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  return { stream, text: () => chunks.join('') };
}

afterEach(() => vi.useRealTimers());

describe('PhaseProgress', () => {
  it('writes one line per phase and per build step in a log, naming the instance of how many', async () => {
    const { stream, text } = sink();
    const p = new PhaseProgress(stream, 3, false);
    p.start(2, 'sympy__sympy-23950');
    p.phase('repository');
    p.phase('environment');
    p.buildLine('building the Debian bookworm root filesystem in /var/cache/x (debootstrap; about a minute)');
    p.buildLine('  I: Retrieving Release');
    p.buildLine('environment piper-env:abc: dependencies (network: bridge)');
    p.buildLine('  [venv] python3 -m venv /opt/venv');
    p.buildLine('    Collecting mpmath');
    p.phase('tests before');
    p.phase('tests before');
    p.finished('valid    sympy__sympy-23950 (81.0 s, environment built)');
    p.close();
    await new Promise((r) => setImmediate(r));
    expect(text().split('\n')).toEqual([
      '[2/3] sympy__sympy-23950: repository',
      '[2/3] sympy__sympy-23950: environment',
      '[2/3] sympy__sympy-23950: base image',
      '[2/3] sympy__sympy-23950: base image: building the Debian bookworm root filesystem in /var/cache/x (debootstrap; about a minute)',
      '[2/3] sympy__sympy-23950: base image: I: Retrieving Release',
      '[2/3] sympy__sympy-23950: environment',
      '[2/3] sympy__sympy-23950: environment: environment piper-env:abc: dependencies (network: bridge)',
      '[2/3] sympy__sympy-23950: environment: [venv] python3 -m venv /opt/venv',
      '[2/3] sympy__sympy-23950: tests before',
      'valid    sympy__sympy-23950 (81.0 s, environment built)',
      '',
    ]);
  });

  it("shows a build step's terminal controls as text, in a log and on a terminal", async () => {
    for (const tty of [false, true]) {
      const { stream, text } = sink();
      const p = new PhaseProgress(stream, 1, tty);
      p.start(1, 'x__y-1');
      p.buildLine('  [deps] \x1b]0;owned\x07 \x1b[2J');
      p.finished('INVALID  x__y-1: \x1b[31mred');
      p.close();
      await new Promise((r) => setImmediate(r));
      // Only piper's own clear-line sequence reaches the stream as a control.
      const shown = text().replaceAll('\r\x1b[2K', '');
      expect([shown.includes('\x1b'), shown.includes('\x07')]).toEqual([false, false]);
      expect(text()).toContain('\\x1b]0;owned\\x07 \\x1b[2J');
    }
  });

  it('says in a log that a quiet phase is still going, with its step', async () => {
    vi.useFakeTimers();
    const { stream, text } = sink();
    const p = new PhaseProgress(stream, 1, false);
    p.start(1, 'sympy__sympy-24661');
    p.buildLine('  [deps] apt-get install python3-mpmath');
    vi.advanceTimersByTime(10_000);
    p.close();
    await vi.runAllTimersAsync();
    expect(text()).toContain(
      '[1/1] sympy__sympy-24661: environment, 10 s so far · [deps] apt-get install python3-mpmath\n',
    );
  });

  it('keeps one live line on a terminal, redrawn each second, and clears it when the instance is done', async () => {
    vi.useFakeTimers();
    const { stream, text } = sink();
    const p = new PhaseProgress(stream, 20, true);
    p.start(1, 'django__django-1');
    p.phase('environment');
    p.buildLine('  [deps] pip download');
    vi.advanceTimersByTime(3000);
    p.finished();
    p.close();
    await vi.runAllTimersAsync();
    const out = text();
    expect(out).not.toContain('\n');
    expect(out).toContain('\r\x1b[2K[1/20] django__django-1: environment (3 s) · [deps] pip download');
    expect(out.endsWith('\r\x1b[2K')).toBe(true);
  });
});
