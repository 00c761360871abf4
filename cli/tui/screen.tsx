// The Ink app on the terminal, kept right through what Ink alone gets wrong:
// - a resize: Ink erases its last frame by counting lines, which the terminal's re-flow to the new
//   width makes wrong; the app is drawn afresh instead (redraw-on-resize.ts).
// - Ctrl-C or a signal: the screen says the run is stopping and Ink draws its last frame before the
//   session's interrupt handler writes its summary, so the two never overwrite each other.
import { render } from 'ink';
import { EXIT } from '../../core/exit-codes.js';
import { App } from './app.js';
import { redrawOnResize } from './redraw-on-resize.js';
import type { ViewStore } from './store.js';

export interface Screen {
  /** Draws the last frame and lets go of the terminal. */
  close: () => Promise<void>;
}

export function openScreen(store: ViewStore, stdout: NodeJS.WriteStream = process.stdout): Screen {
  const screen = redrawOnResize(
    () => render(<App store={store} />, { stdout, exitOnCtrlC: false, patchConsole: false }),
    stdout,
  );
  let closed = false;

  const onSignal = (signal: NodeJS.Signals) => {
    store.interrupt();
    // A store change reaches the screen on React's schedule; the process may be gone by then.
    // rerender commits it now, and unmount writes that frame.
    screen.app.rerender(<App store={store} />);
    release();
    // Before the run's session exists nothing else handles the signal: end here, as Node would.
    if (process.listenerCount(signal) === 0) process.exit(signal === 'SIGINT' ? EXIT.interrupted : 128 + 15);
  };

  const release = () => {
    if (closed) return;
    closed = true;
    screen.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    screen.app.unmount();
  };

  // First in line, ahead of the session's handler, which exits once the containers are gone.
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);

  return {
    close: async () => {
      const last = screen.app;
      release();
      await last.waitUntilExit().catch(() => undefined);
    },
  };
}
