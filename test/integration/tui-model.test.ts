// The TUI with a model over real HTTP (a fake OpenAI-compatible server on 127.0.0.1, native tool
// calls) in a real terminal (tmux): the model thinking (its name and a running time) while its
// reply is held back, its words beside the call, a failed test's names and first assertion line,
// the answer box's editing keys, resizes while it thinks and during the question (nothing left
// twice, not even for a moment), Esc's resume hint, and Ctrl-C in a run that made no edits.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tuiFixCommand } from '../helpers/tui-fix-command.js';
import { behave, FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { sampleRepo } from '../helpers/sample-repo.js';
import { expectRedrawnOnce } from '../helpers/tmux-redraw.js';
import { tmuxSession, type TmuxSession } from '../helpers/tmux.js';

/**
 * In front of the fake server: each request waits until the test lets it through, so the model is
 * "thinking" for exactly as long as the test needs to look at the screen (no timing involved).
 */
class HeldModel {
  private readonly waiting: Array<() => void> = [];
  private open = false;
  private readonly server: Server;

  private constructor(readonly fake: FakeOpenAIServer) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const forward = () =>
          void fetch(`${fake.baseUrl.replace(/\/v1$/, '')}${req.url}`, {
            method: req.method,
            headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
            body: Buffer.concat(chunks),
          })
            .then(async (r) => {
              res.writeHead(r.status, { 'content-type': 'application/json' });
              res.end(await r.text());
            })
            .catch(() => res.destroy());
        if (this.open) forward();
        else this.waiting.push(forward);
      });
    });
  }

  static async start(fake: FakeOpenAIServer): Promise<HeldModel> {
    const held = new HeldModel(fake);
    await new Promise<void>((resolve) => held.server.listen(0, '127.0.0.1', () => resolve()));
    return held;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Lets the requests that arrived, and every later one, through. */
  release(): void {
    this.open = true;
    for (const forward of this.waiting.splice(0)) forward();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.fake.close();
  }
}

const QUESTION = 'Should top_words return exactly n words?';

/** The screen without whitespace: a narrow terminal breaks a long line anywhere, even mid-word. */
const squash = (text: string) => text.replace(/\s+/g, '');

const RUN_ID = /run r-\d{8}-\d{6}-[0-9a-f]+/;

function fixCommand(repo: string, baseUrl: string): string {
  return tuiFixCommand({
    env: `-u CI NO_COLOR=1 OPENAI_BASE_URL=${baseUrl} OPENAI_API_KEY=test-key`,
    repo,
    model: 'openai-tools:slow-model',
    // These tests are about the answer box: edits are applied unasked (approval-tmux tests asking).
    approval: 'auto',
  });
}

let terminal: TmuxSession | null = null;
let model: HeldModel | null = null;
afterEach(async () => {
  terminal?.kill();
  terminal = null;
  await model?.close();
  model = null;
});
afterAll(() => terminal?.kill());

describe('the TUI with a model over HTTP, in tmux', () => {
  it('shows the model thinking, its words, the failed tests; edits the answer; survives a resize; Esc hints resume', async () => {
    const fake = await FakeOpenAIServer.start();
    fake.enqueue(
      {
        kind: 'reply',
        content: 'Let me run the failing test first.',
        toolCalls: [{ name: 'run_test', arguments: JSON.stringify({ target: 'tests/test_words.py' }) }],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      },
      behave.toolCalls([{ name: 'ask_user', arguments: JSON.stringify({ question: QUESTION }) }]),
    );
    model = await HeldModel.start(fake);
    const repo = sampleRepo();
    const t = (terminal = tmuxSession(`piper-tui-model-${process.pid}-1`, 120_000));
    t.start(fixCommand(repo, model.baseUrl), 60, 60);

    // Item 5: while the reply is held, the spinner names the model and counts the time.
    const thinking = await t.waitFor(/thinking \d+\.\d s · openai-tools:slow-model/);
    expect(thinking).toContain('repro tests/test_words.py');
    expect(thinking).toMatch(RUN_ID);
    // Item 7 while the spinner redraws itself: narrower, then back. Drawn afresh in one piece with
    // the transcript (whose lines are cut at the terminal's width), the header box spans the width.
    const spinning = [/thinking \d+\.\d s/, RUN_ID, 'repro tests/test_words.py'];
    t.resize(46, 60);
    await expectRedrawnOnce(t, 46, /^╭─{44}╮$/m, spinning);
    t.resize(60, 60);
    await expectRedrawnOnce(t, 60, /^╭─{58}╮$/m, spinning);
    model.release();

    const failed = await t.waitFor('Enter answers · Esc declines');
    expect(failed).toContain('“Let me run the failing test first.”');
    expect(failed).toContain('▸ model run_test target="tests/test_words.py"');
    // The trust mark (◆) and the test's own mark (✗) are two glyphs.
    expect(failed).toContain('◆ test: ✗ failed, exit 1 (1 passed, 2 failed, 0 errors)');
    expect(failed).toContain('✗ tests/test_words.py::test_top_words_returns_n_words');
    expect(failed).toContain("AssertionError: assert ['a'] == ['a', 'b']");
    expect(failed).not.toMatch(/thinking \d/);

    // Item 6: the editing keys, each as a terminal sends it.
    t.type('yes, exactlyyy');
    await t.waitFor('› yes, exactlyyy');
    t.keys('BSpace', 'BSpace', 'BSpace'); // three Backspaces in one write
    await t.waitFor(/› yes, exactl \n|› yes, exactl\s*│/);
    t.keys('Left', 'DC'); // Delete removes the character under the cursor: the l
    await t.waitFor(/› yes, exact\s*│/);
    t.type('ly n');
    t.keys('Home');
    t.type('so ');
    t.keys('End');
    t.type(' words');
    await t.waitFor('› so yes, exactly n words');
    t.keys('C-w');
    await t.waitFor(/› so yes, exactly n\s+│/);
    t.keys('C-u');
    await t.waitFor(/› \s+│/);
    t.type('exactly n, not n - 1');
    await t.waitFor('› exactly n, not n - 1');

    // Item 7: a resize during the question, narrower, then twice in a row (the last one wider),
    // redraws the run once for the new width, the answer being typed kept.
    const question = [
      `? ${QUESTION}`,
      'Enter answers · Esc declines',
      '› exactly n, not n - 1',
      RUN_ID,
      'turn 1',
    ];
    t.resize(50, 60);
    await expectRedrawnOnce(t, 50, /^┌─{48}┐$/m, question);
    t.resize(44, 60);
    t.resize(70, 60);
    await expectRedrawnOnce(t, 70, /^┌─{68}┐$/m, question);

    // Esc declines: the final screen says how to answer later, as headless does, and keeps the failures.
    t.keys('Escape');
    const end = await t.waitFor('EXIT=');
    expect(end).toContain('EXIT=3');
    expect(end).toContain(`question: ${QUESTION}`);
    expect(end).toContain('last test run (tests/test_words.py) failed:');
    expect(squash(end)).toContain(squash('✗ tests/test_words.py::test_top_words_default_is_three'));
    const runId = /run (r-\d{8}-\d{6}-[0-9a-f]+)/.exec(end)![1]!;
    expect(squash(end)).toContain(squash(`answer: piper-agent resume ${runId} --answer "..."`));
    expect(end).not.toContain('undo');
  }, 300_000);

  it('Ctrl-C while the model thinks, with no edits, offers resume and not undo', async () => {
    model = await HeldModel.start(await FakeOpenAIServer.start());
    const repo = sampleRepo();
    const t = (terminal = tmuxSession(`piper-tui-model-${process.pid}-2`, 120_000));
    t.start(fixCommand(repo, model.baseUrl), 60, 50);
    const thinking = await t.waitFor(/thinking \d+\.\d s/);
    const runId = /run (r-\d{8}-\d{6}-[0-9a-f]+)/.exec(thinking)![1]!;
    t.keys('C-c');
    const end = await t.waitFor('EXIT=');
    expect(end).toContain('EXIT=130');
    expect(end).toContain(`continue: piper-agent resume ${runId}`);
    expect(squash(end)).toContain(squash(`It made no edits. Continue it with: piper-agent resume ${runId}`));
    expect(end).not.toContain('undo');
    // No duplicated block: the interrupted screen and the note are each there once.
    expect(end.split('interrupted: removing the running container')).toHaveLength(2);
  }, 300_000);
});
