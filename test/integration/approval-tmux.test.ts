// The authorization stage on a real terminal: `fix --approval ask` (the TUI's default) shows each
// edit's diff and waits. Enter applies one edit once, n refuses another with a reason, a approves a
// file for the rest of the run (its next edit is not asked about). The ledger holds every decision
// with its scope, the refused file is byte-identical, the model is told why, and the run goes on.
// While a box waits, the footer says so and nothing spins or counts; Enter on an empty reason
// refuses without one, and the transcript says `denied by you` (never `denied: undefined`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { approvalsForRun } from '../../runtime/ledger/approvals.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { callsOf, observationsOf } from '../../runtime/ledger/turns.js';
import { tuiFixCommand } from '../helpers/tui-fix-command.js';
import { MODELS, sampleRepo } from '../helpers/sample-repo.js';
import { tmuxSession } from '../helpers/tmux.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const terminal = tmuxSession(`piper-approval-${process.pid}`, 60_000);
const { tmux, waitFor } = terminal;
const session = terminal.name;
afterAll(terminal.kill);

const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);

describe('approval ask in tmux', () => {
  it('applies what the user approves, refuses what they refuse, and records both with their scope', async () => {
    const repo = sampleRepo();
    const reportBefore = readFileSync(join(repo, 'textstats', 'report.py'));
    const command = tuiFixCommand({
      env: '-u CI -u PIPER_APPROVAL NO_COLOR=1',
      repo,
      model: `script:${join(MODELS, 'approval-ask.jsonl')}`,
    });
    tmux('new-session', '-d', '-s', session, '-x', '100', '-y', '50', command);

    const first = await waitFor('Apply this edit to textstats/words.py?');
    expect(first).toContain('textstats.words.top_words');
    expect(first).toContain('-    return ranked[: n - 1]');
    expect(first).toContain('+    return ranked[:n]');
    keys('Enter');

    const second = await waitFor('Apply this edit to textstats/report.py?');
    expect(second).toContain('+    return f"{len(words(text))} words, top:');
    keys('n');
    await waitFor('Why not? (optional');
    keys('-l', 'keep the summary format');
    await waitFor('› keep the summary format');
    keys('Enter');

    await waitFor('(textstats.words.word_counts)');
    keys('a');
    const end = await waitFor('EXIT=', 120_000);
    expect(end).toContain('EXIT=0');
    // The fourth edit (words.py again) was covered by the file-scoped approval: never asked.
    expect(end).not.toContain('(textstats.words.words)');

    expect(readFileSync(join(repo, 'textstats', 'report.py')).equals(reportBefore)).toBe(true);
    const words = readFileSync(join(repo, 'textstats', 'words.py'), 'utf8');
    expect(words).toContain('return ranked[:n]');
    expect(words).toContain('How often each word occurs in the text.');
    expect(words).toContain('Split the text into');

    const ledger = Ledger.open(defaultLedgerPath(repo));
    try {
      const runId = (
        ledger.database.prepare("SELECT id FROM runs WHERE kind = 'fix'").get() as { id: string }
      ).id;
      const approvals = approvalsForRun(ledger, runId);
      expect(
        approvals.map((a) => [a.selector, a.decision, a.scope, a.decided_by, a.reason, a.basis]),
      ).toEqual([
        ['textstats.words.top_words', 'approved', 'once', 'user', null, null],
        ['textstats.report.summary', 'denied', 'once', 'user', 'keep the summary format', null],
        ['textstats.words.word_counts', 'approved', 'file', 'user', null, null],
        ['textstats.words.words', 'approved', 'file', 'user', null, approvals[2]!.id],
      ]);
      const calls = callsOf(ledger, runId);
      const byId = new Map(calls.map((c) => [c.id, c]));
      for (const a of approvals) expect(byId.get(a.call_id)?.tool).toBe('edit_entity');
      expect(byId.get(approvals[1]!.call_id)?.status).toBe('denied');
      expect(
        approvals.filter((a) => a.decision === 'approved').map((a) => byId.get(a.call_id)?.status),
      ).toEqual(['completed', 'completed', 'completed']);
      const denied = observationsOf(ledger, runId).filter((o) => o.kind === 'denied');
      expect(denied.map((o) => JSON.parse(o.result))).toEqual([
        { denied: true, reason: 'denied by the user: keep the summary format' },
      ]);
      // Only the approved edits are in the run's record, so undo reverses exactly those.
      const edits = ledger.database
        .prepare('SELECT selector FROM edits WHERE run_id = ? ORDER BY id')
        .all(runId);
      expect(edits).toEqual([
        { selector: 'textstats.words.top_words' },
        { selector: 'textstats.words.word_counts' },
        { selector: 'textstats.words.words' },
      ]);
    } finally {
      ledger.close();
    }
    expect(
      execFileSync('git', ['-C', repo, 'status', '--porcelain', '--', 'textstats/report.py'], {
        encoding: 'utf8',
      }),
    ).toBe('');
  }, 300_000); // four edits, three post-patch tests: minutes on a loaded machine

  it('waits without a spinner, refuses on an empty reason, and says who refused', async () => {
    const repo = sampleRepo();
    const t = tmuxSession(`piper-refuse-${process.pid}`, 60_000);
    try {
      t.start(
        tuiFixCommand({
          env: '-u CI -u PIPER_APPROVAL NO_COLOR=1',
          repo,
          model: `script:${join(MODELS, 'approval-refuse.jsonl')}`,
        }),
        100,
        50,
      );
      const box = await t.waitFor('Apply this edit to textstats/words.py?');
      // A second later the screen is the same wait: no tool timer, no spinner frame.
      await new Promise((r) => setTimeout(r, 1200));
      for (const screen of [box, t.screen()]) {
        expect(screen).toContain('waiting for your answer · turn 2/30');
        expect(screen).not.toMatch(/edit_entity \d+\.\d s/);
        expect(screen).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
      }
      t.keys('n');
      await t.waitFor('Why not? (optional');
      expect(t.screen()).toContain('waiting for your answer');
      t.keys('Enter');
      const refused = await t.waitFor('Apply this edit to textstats/report.py?');
      expect(refused).toMatch(/◆ denied by you\s*\n/);
      t.keys('n');
      await t.waitFor('Why not? (optional');
      t.type('keep the summary format');
      await t.waitFor('› keep the summary format');
      t.keys('Enter');
      const end = await t.waitFor('EXIT=', 120_000);
      expect(end).toContain('EXIT=4');
      const transcript = t.screen({ history: true });
      expect(transcript).toContain('◆ denied by you: keep the summary format');
      expect(transcript).not.toContain('undefined');
      expect(execFileSync('git', ['-C', repo, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');

      const ledger = Ledger.open(defaultLedgerPath(repo));
      try {
        const runId = (
          ledger.database.prepare("SELECT id FROM runs WHERE kind = 'fix'").get() as { id: string }
        ).id;
        expect(approvalsForRun(ledger, runId).map((a) => [a.decision, a.reason])).toEqual([
          ['denied', 'no reason given'],
          ['denied', 'keep the summary format'],
        ]);
        const denied = observationsOf(ledger, runId).filter((o) => o.kind === 'denied');
        expect(denied.map((o) => JSON.parse(o.result))).toEqual([
          { denied: true, reason: 'denied by the user: no reason given' },
          { denied: true, reason: 'denied by the user: keep the summary format' },
        ]);
      } finally {
        ledger.close();
      }
    } finally {
      t.kill();
    }
  }, 300_000);
});
