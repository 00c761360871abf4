// The shell line the tmux tests run: the real CLI's `fix` on a sample repository in the TUI, its
// exit code left on the screen (`EXIT=N`) and the pane kept open long enough to read it (or, typed
// into a shell, the shell's prompt back for the next command).
import { join } from 'node:path';
import { CLI } from './cli.js';

export interface TuiFixCommand {
  repo: string;
  /** The --model spec, e.g. `script:/…/sample-fix.jsonl`. */
  model: string;
  /** What `env` runs the CLI with (unset variables, NO_COLOR, endpoints…). */
  env: string;
  /** --approval; `undefined` leaves the TUI's default (ask). */
  approval?: 'auto';
  /** The repro target (--test); the sample repository's by default. */
  test?: string;
  /** false: the line ends after `EXIT=N` (typed into a shell that goes on); default: the pane is held. */
  hold?: boolean;
}

export function tuiFixCommand(c: TuiFixCommand): string {
  return [
    `env ${c.env}`,
    process.execPath,
    CLI,
    'fix',
    '--repo',
    c.repo,
    '--model',
    c.model,
    '--test',
    c.test ?? 'tests/test_words.py',
    ...(c.approval ? ['--approval', c.approval] : []),
    join(c.repo, 'ISSUE.md'),
    c.hold === false ? '; echo EXIT=$?' : '; echo EXIT=$?; sleep 120',
  ].join(' ');
}
