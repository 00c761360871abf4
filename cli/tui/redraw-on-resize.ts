// An Ink app kept whole across resizes. Ink erases its last frame by counting the lines it wrote,
// but the terminal has re-flowed those lines to the new width, so the erase misses rows and the
// new frame is drawn below what is left of the old one: a block on the screen twice. Here, on each
// width change and ahead of Ink's own resize handler, the app is unmounted, the terminal cleared
// (screen and scrollback, so no frame of the old width is kept anywhere; Ink itself does the same
// when a frame outgrows the screen) and the app mounted afresh: what <Static> wrote (the
// transcript) is written again, once, for the new width. What is being typed lives outside the
// components (in the store), so the new mount starts from it.
import type { Instance } from 'ink';

/** Clear the screen and its scrollback, cursor home: what Ink itself writes to redraw in full. */
const CLEAR_TERMINAL = '\u001b[2J\u001b[3J\u001b[H';

export interface Redrawn {
  /** The app as mounted now: a resize replaces it. */
  readonly app: Instance;
  /** Stops following resizes; the app stays mounted. */
  stop: () => void;
}

/** Mounts the app (`mount` must render to `stdout`) and mounts it afresh on each width change. */
export function redrawOnResize(mount: () => Instance, stdout: NodeJS.WriteStream): Redrawn {
  let app = mount();
  let width = stdout.columns;
  const onResize = () => {
    if (stdout.columns === width) return;
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
  stdout.prependListener('resize', onResize);
  return {
    get app() {
      return app;
    },
    stop: () => void stdout.off('resize', onResize),
  };
}
