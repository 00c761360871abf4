// The Ink app on the terminal, kept right through what Ink alone gets wrong:
// - a resize: Ink erases its last frame by counting lines, but the terminal has re-flowed those
//   lines to the new width, so the count is wrong and the erase leaves part of the frame behind,
//   with the new frame drawn below it. On a width change, before Ink's own handler runs, the screen
//   and its scrollback are cleared and the app drawn afresh: the transcript (Static) from the view,
//   the answer being typed from the store. The transcript is then on the terminal once, as drawn
//   for the new width; the scrollback keeps no frame of the old width.
// - Ctrl-C or a signal: the screen says the run is stopping and Ink draws its last frame before the
//   session's interrupt handler writes its summary, so the two never overwrite each other.
import { render, type Instance } from 'ink';
import { EXIT } from '../exit-codes.js';
import { App } from './app.js';
import type { ViewStore } from './store.js';

/** Clear the screen and its scrollback, cursor home: what Ink itself writes to redraw in full. */
const CLEAR_TERMINAL = '\u001b[2J\u001b[3J\u001b[H';

export interface Screen {
  /** Draws the last frame and lets go of the terminal. */
  close: () => Promise<void>;
}

export function openScreen(store: ViewStore, stdout: NodeJS.WriteStream = process.stdout): Screen {
  const mount = (): Instance =>
    render(<App store={store} />, { stdout, exitOnCtrlC: false, patchConsole: false });
  let app = mount();
  let closed = false;
  let width = stdout.columns;

  const onResize = () => {
    if (closed || stdout.columns === width) return;
    width = stdout.columns;
    // In the resize's own tick, ahead of Ink's handler: unmounted, this instance's handler draws
    // nothing, and the new instance listens from the next resize on. Corked, the redraw reaches
    // the terminal as one write (the frame the old instance may still flush, the clear, the new
    // screen), so no state in between is ever shown.
    stdout.cork();
    try {
      app.unmount();
      stdout.write(CLEAR_TERMINAL);
      app = mount();
    } finally {
      stdout.uncork();
    }
  };

  const onSignal = (signal: NodeJS.Signals) => {
    store.interrupt();
    // A store change reaches the screen on React's schedule; the process may be gone by then.
    // rerender commits it now, and unmount writes that frame.
    app.rerender(<App store={store} />);
    release();
    // Before the run's session exists nothing else handles the signal: end here, as Node would.
    if (process.listenerCount(signal) === 0) process.exit(signal === 'SIGINT' ? EXIT.interrupted : 128 + 15);
  };

  const release = () => {
    if (closed) return;
    closed = true;
    stdout.off('resize', onResize);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    app.unmount();
  };

  stdout.prependListener('resize', onResize);
  // First in line, ahead of the session's handler, which exits once the containers are gone.
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);

  return {
    close: async () => {
      const last = app;
      release();
      await last.waitUntilExit().catch(() => undefined);
    },
  };
}
