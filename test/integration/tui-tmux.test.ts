// The real CLI in a real terminal: tmux at 60 columns, NO_COLOR, the header's facts kept whole,
// the inline ask_user answered with a paste and the editing keys, control characters kept out of
// the ledger, the final screen (a long diff line wrapped, the undo command whole), the exit code,
// and the answer in the ledger.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { observationsOf } from '../../runtime/ledger/turns.js';
import { tuiFixCommand } from '../helpers/tui-fix-command.js';
import { MODELS, sampleRepo } from '../helpers/sample-repo.js';
import { tmuxSession } from '../helpers/tmux.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const terminal = tmuxSession(`piper-tui-${process.pid}`, 120_000);
const { waitFor } = terminal;

afterAll(terminal.kill);

/** The screen without whitespace and box sides: a narrow terminal breaks a long line anywhere. */
const squash = (text: string) => text.replace(/[\s│]+/g, '');

describe('the TUI in tmux', () => {
  it('asks inline, takes a pasted and edited answer, finishes on its own with exit 0 and records it clean', async () => {
    const repo = sampleRepo();
    const script = join(MODELS, 'ask-then-fix.jsonl');
    const command = tuiFixCommand({
      env: '-u CI NO_COLOR=1',
      repo,
      model: `script:${script}`,
      // These tests are about the answer box: edits are applied unasked (approval-tmux tests asking).
      approval: 'auto',
    });
    terminal.start(command, 60, 60);
    const asking = await waitFor('Enter answers · Esc declines');
    expect(asking).toContain('Should top_words(text, n) return exactly n words?');
    expect(asking).toContain('piper-agent');
    // At 60 columns the header wraps instead of cutting: the whole model path, the run id, the repro target.
    expect(squash(asking)).toContain(squash(`model script:${script}`));
    expect(asking).toMatch(/│ run r-\d{8}-\d{6}-[0-9a-f]+ +│/);
    expect(asking).toMatch(/│ repro tests\/test_words\.py +│/);

    // A paste of several lines with control characters in it (a bell, a colour, a title change).
    terminal.paste('yes,\nexactly n\u0007 \u001b[31mwords\u001b]0;pwned\u0007');
    // The OSC's ESC and the bell are dropped; what follows them is text.
    await waitFor(/› yes,\s+│\n│ {3}exactly n words0;pwned/);
    terminal.keys('C-w', 'C-w');
    await waitFor(/│ {3}exactly\s+│/);
    terminal.keys('C-u', 'C-u', 'C-u');
    await waitFor(/› \s+│/);
    terminal.type('yes, exactly n');
    await waitFor('› yes, exactly n');
    terminal.keys('Enter');
    const end = await waitFor('EXIT=');
    expect(end).toContain('EXIT=0');
    expect(end).toContain('resolved');
    expect(end).toContain('repro test passed in the sandbox after the last edit: yes');
    expect(end).toContain('◆ test: ✓ passed, exit 0');
    expect(end).toContain('+    return ranked[:n]');
    // A diff line longer than the terminal wraps: its end is on the screen too.
    expect(end).toContain('in order of first appearance."""');
    const runId = /run (r-\d{8}-\d{6}-[0-9a-f]+)/.exec(end)![1]!;
    expect(squash(end)).toContain(squash(`undo: piper-agent undo ${runId}`));
    for (const line of end.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
    // NO_COLOR: no colour codes reach the terminal (bold and dim are not colours).
    expect(terminal.tmux('capture-pane', '-t', terminal.name, '-p', '-e')).not.toMatch(
      new RegExp(String.fromCharCode(27) + '\\[(?:[0-9]+;)*(?:3[0-7]|9[0-7])m'),
    );
    const ledger = Ledger.open(defaultLedgerPath(repo));
    const answers = observationsOf(
      ledger,
      (ledger.database.prepare("SELECT id FROM runs WHERE kind = 'fix'").get() as { id: string }).id,
    ).filter((o) => o.kind === 'user');
    ledger.close();
    expect(answers.map((o) => JSON.parse(o.result))).toEqual([{ answer: 'yes, exactly n' }]);
  }, 300_000);

  it('stores a pasted answer without its control characters', async () => {
    const repo = sampleRepo();
    const t = tmuxSession(`piper-tui-paste-${process.pid}`, 120_000);
    try {
      t.start(
        tuiFixCommand({
          env: '-u CI NO_COLOR=1',
          repo,
          model: `script:${join(MODELS, 'ask-then-fix.jsonl')}`,
          approval: 'auto',
        }),
        60,
        60,
      );
      await t.waitFor('Enter answers · Esc declines');
      t.paste('exactly\u0007 n\u001b[2J\u001b]0;pwned\u0007\u202e,\nnot n - 1\u0001');
      await t.waitFor('not n - 1');
      t.keys('Enter');
      expect(await t.waitFor('EXIT=')).toContain('EXIT=0');
      const ledger = Ledger.open(defaultLedgerPath(repo));
      const runId = (
        ledger.database.prepare("SELECT id FROM runs WHERE kind = 'fix'").get() as { id: string }
      ).id;
      const answer = observationsOf(ledger, runId).find((o) => o.kind === 'user')!;
      ledger.close();
      const stored = (JSON.parse(answer.result) as { answer: string }).answer;
      expect(stored).toBe('exactly n0;pwned,\nnot n - 1');
      // eslint-disable-next-line no-control-regex -- the point: none of them is stored
      expect(stored).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    } finally {
      t.kill();
    }
  }, 300_000);
});
