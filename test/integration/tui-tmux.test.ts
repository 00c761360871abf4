// The real CLI in a real terminal: tmux at 60 columns, NO_COLOR, the inline ask_user answered with
// send-keys, the final screen, the exit code, and the answer in the ledger.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { observationsOf } from '../../runtime/ledger/turns.js';
import { CLI } from '../helpers/cli.js';
import { MODELS, sampleRepo } from '../helpers/sample-repo.js';
import { tmuxSession } from '../helpers/tmux.js';

const terminal = tmuxSession(`piper-tui-${process.pid}`, 30_000);
const { tmux, waitFor } = terminal;
const session = terminal.name;

afterAll(terminal.kill);

describe('the TUI in tmux', () => {
  it('asks inline, takes the answer, finishes on its own with exit 0 and records the answer', async () => {
    const repo = sampleRepo();
    const command = [
      'env -u CI NO_COLOR=1',
      process.execPath,
      CLI,
      'fix',
      '--repo',
      repo,
      '--model',
      `script:${join(MODELS, 'ask-then-fix.jsonl')}`,
      '--test',
      'tests/test_words.py',
      join(repo, 'ISSUE.md'),
      '; echo EXIT=$?; sleep 120',
    ].join(' ');
    tmux('new-session', '-d', '-s', session, '-x', '60', '-y', '45', command);
    const asking = await waitFor('Enter answers · Esc declines');
    expect(asking).toContain('Should top_words(text, n) return exactly n words?');
    expect(asking).toContain('piper-agent');
    tmux('send-keys', '-t', session, '-l', 'yes, exactly n');
    await waitFor('› yes, exactly n');
    tmux('send-keys', '-t', session, 'Enter');
    const end = await waitFor('EXIT=');
    expect(end).toContain('EXIT=0');
    expect(end).toContain('resolved');
    expect(end).toContain('repro test passed in the sandbox after the last edit: yes');
    expect(end).toContain('+    return ranked[:n]');
    for (const line of end.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
    // NO_COLOR: no colour codes reach the terminal (bold and dim are not colours).
    expect(tmux('capture-pane', '-t', session, '-p', '-e')).not.toMatch(
      new RegExp(String.fromCharCode(27) + '\\[(?:[0-9]+;)*(?:3[0-7]|9[0-7])m'),
    );
    const ledger = Ledger.open(join(repo, '.piper', 'ledger.db'));
    const answers = observationsOf(
      ledger,
      (ledger.database.prepare("SELECT id FROM runs WHERE kind = 'fix'").get() as { id: string }).id,
    ).filter((o) => o.kind === 'user');
    ledger.close();
    expect(answers.map((o) => JSON.parse(o.result))).toEqual([{ answer: 'yes, exactly n' }]);
  });
});
