// The environment build's log as the TUI reads it (cli/tui/setup-log.ts): the line shapes
// runtime/env writes, the one progress line they move, and what stderr gets after the run.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { App } from '../../cli/tui/app.js';
import { advance, FAILED_BUILD_TAIL, logAfterRun, setupLine } from '../../cli/tui/setup-log.js';
import { ViewStore } from '../../cli/tui/store.js';
import { demoInit, frameWith } from '../helpers/ink-frames.js';

// The shapes of runtime/env/choose/ensure.ts, builder.ts and build-box.ts, and a word to the user around them.
const LOG = [
  'start-up sweep: removed 1 orphan container(s), closed 0 ledger call(s)',
  'building the environment of /repo (2 requirement(s); key 0123456789ab)',
  'environment piper-env-abc:0123: dependencies (network: bridge)',
  '  [pip] pip install --find-links /wheels attrs>=22.1 packaging>=23',
  '    ERROR: No matching distribution found for attrs>=22.1',
  '  [debian] apt-get install -y python3-attr python3-packaging',
  '    Unpacking python3-attr (25.3.0-1) ...',
  '    Setting up python3-attr (25.3.0-1) ...',
  'environment piper-env-abc:0123: the project (network: none)',
  '  [project] pip install -e /work',
  '    Successfully installed tinycalc-0.3.1',
  'environment: pruned 1 older environment image(s) of this project',
];

describe('the set-up log', () => {
  it('tells phases, steps and output from words to the user', () => {
    expect(LOG.map((line) => setupLine(line).kind)).toEqual([
      'other',
      'phase',
      'phase',
      'step',
      'output',
      'step',
      'output',
      'output',
      'phase',
      'step',
      'output',
      'other',
    ]);
    expect(setupLine(LOG[2]!)).toEqual({ kind: 'phase', phase: 'dependencies' });
    expect(setupLine(LOG[5]!)).toEqual({ kind: 'step', step: 'debian' });
  });

  it('moves one progress line: the phase, its step, the start of the build', () => {
    let p = null;
    p = advance(p, LOG[0]!, 1000);
    expect(p).toBeNull();
    p = advance(p, LOG[1]!, 1000);
    p = advance(p, LOG[2]!, 2000);
    p = advance(p, LOG[5]!, 3000);
    expect(p).toEqual({ phase: 'dependencies', step: 'debian', since: 1000 });
    expect(advance(p, LOG[6]!, 4000)).toBe(p);
    expect(advance(p, LOG[8]!, 5000)).toEqual({ phase: 'the project', step: null, since: 1000 });
  });

  it('after the run: the words to the user; the build only with --verbose, or its tail when it failed', () => {
    const said = [LOG[0], LOG[11]];
    expect(logAfterRun(LOG, { verbose: false, failedBuild: false })).toEqual(said);
    expect(logAfterRun(LOG, { verbose: true, failedBuild: false })).toEqual(LOG);
    expect(logAfterRun(LOG, { verbose: false, failedBuild: true })).toEqual([
      ...said,
      "the environment build's last 10 of 10 line(s) (all of them: --verbose):",
      ...LOG.slice(1, 11),
    ]);
    const long = [...LOG.slice(0, 3), ...Array.from({ length: 100 }, (_, i) => `    line ${i}`)];
    const tail = logAfterRun(long, { verbose: false, failedBuild: true });
    expect(tail[1]).toBe(
      `the environment build's last ${FAILED_BUILD_TAIL} of 102 line(s) (all of them: --verbose):`,
    );
    expect(tail.slice(2)).toEqual(long.slice(-FAILED_BUILD_TAIL));
  });

  it('the screen shows the build as one line, never its output', async () => {
    const store = new ViewStore(false);
    const ui = render(<App store={store} />);
    for (const line of LOG.slice(0, 7)) store.log(line);
    const frame = await frameWith(ui, 'building the environment: dependencies · debian ·');
    expect(frame).toMatch(/building the environment: dependencies · debian · \d+\.\d s/);
    expect(frame).not.toContain('Unpacking');
    expect(frame).not.toContain('start-up sweep');
    store.push(demoInit());
    await frameWith(ui, 'run r-1');
    expect(ui.lastFrame()).not.toContain('building the environment');
    ui.unmount();
  });
});
