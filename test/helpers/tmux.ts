// A real terminal for TUI tests: one tmux server of its own (its own socket, so no other tmux on
// the machine, nor its environment, is involved), one session in it, its screen, keys and pastes
// sent to it, waiting for text to appear, resizing it, and killing it at the end.
import { execFileSync } from 'node:child_process';

export interface TmuxSession {
  name: string;
  tmux: (...args: string[]) => string;
  /** Starts `command` (a shell string) in a detached session of the given size. */
  start: (command: string, columns: number, rows: number) => void;
  /**
   * The visible screen; with `history`, the scrollback above it too; with `join`, each line the
   * terminal wrapped as the one line it was written as.
   */
  screen: (opts?: { history?: boolean; join?: boolean }) => string;
  /**
   * The first screen that shows `text`. Every `pollMs` by default; 0 looks as often as tmux can
   * answer, to catch a frame that is on the screen only for a moment.
   */
  waitFor: (text: string | RegExp, timeoutMs?: number, pollMs?: number) => Promise<string>;
  /** Key names as tmux knows them (Enter, BSpace, DC, Left, Home, C-u, Escape…), in one write. */
  keys: (...names: string[]) => void;
  /** Literal text, as typed. */
  type: (text: string) => void;
  /** Text as a terminal pastes it: bracketed when the program asked for it. */
  paste: (text: string) => void;
  resize: (columns: number, rows: number) => void;
  kill: () => void;
}

export function tmuxSession(name: string, defaultTimeoutMs = 30_000): TmuxSession {
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', name, ...args], { encoding: 'utf8' });
  const start = (command: string, columns: number, rows: number) => {
    tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', String(rows), command);
  };
  const screen = (opts: { history?: boolean; join?: boolean } = {}) =>
    tmux(
      'capture-pane',
      '-t',
      name,
      '-p',
      ...(opts.history ? ['-S', '-'] : []),
      ...(opts.join ? ['-J'] : []),
    );
  const waitFor = async (
    text: string | RegExp,
    timeoutMs = defaultTimeoutMs,
    pollMs = 100,
  ): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = screen();
      if (typeof text === 'string' ? s.includes(text) : text.test(s)) return s;
      if (Date.now() > deadline) throw new Error(`${String(text)} never appeared; the screen:\n${s}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };
  const keys = (...names: string[]) => void tmux('send-keys', '-t', name, ...names);
  const type = (text: string) => void tmux('send-keys', '-t', name, '-l', text);
  const paste = (text: string) => {
    tmux('set-buffer', '-b', 'paste', text);
    tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', name);
  };
  const resize = (columns: number, rows: number) =>
    void tmux('resize-window', '-t', name, '-x', String(columns), '-y', String(rows));
  const kill = () => {
    try {
      // The session's own server (its own socket) exits with its last session.
      tmux('kill-session', '-t', name);
    } catch {
      // already gone
    }
  };
  return { name, tmux, start, screen, waitFor, keys, type, paste, resize, kill };
}
