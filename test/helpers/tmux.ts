// A real terminal for TUI tests: one tmux session, its screen, waiting for text to appear on it,
// and killing it at the end.
import { execFileSync } from 'node:child_process';

export interface TmuxSession {
  name: string;
  tmux: (...args: string[]) => string;
  screen: () => string;
  waitFor: (text: string, timeoutMs?: number) => Promise<string>;
  kill: () => void;
}

export function tmuxSession(name: string, defaultTimeoutMs = 30_000): TmuxSession {
  const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-t', name, '-p');
  const waitFor = async (text: string, timeoutMs = defaultTimeoutMs): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = screen();
      if (s.includes(text)) return s;
      if (Date.now() > deadline) throw new Error(`"${text}" never appeared; the screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const kill = () => {
    try {
      tmux('kill-session', '-t', name);
    } catch {
      // already gone
    }
  };
  return { name, tmux, screen, waitFor, kill };
}
