// The trust question in a real terminal (tmux) through resizes: narrower, then twice in a row (the
// last one wider). Each time the question is drawn afresh for the new width and is on the terminal
// once, the old frame re-flowed by the terminal left nowhere; the answer typed after the resizes
// is the one taken.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { tuiFixCommand } from '../helpers/tui-fix-command.js';
import { MODELS, sampleRepo } from '../helpers/sample-repo.js';
import { expectRedrawnOnce } from '../helpers/tmux-redraw.js';
import { tmuxSession } from '../helpers/tmux.js';

const terminal = tmuxSession(`piper-trust-resize-${process.pid}`, 60_000);
afterAll(terminal.kill);

describe('the trust question through resizes', () => {
  it('is drawn once for each new width and takes the answer typed afterwards', async () => {
    const xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    const repo = sampleRepo();
    mkdirSync(join(repo, '.piper'), { recursive: true });
    const image = loadRecipe().ref;
    writeFileSync(join(repo, '.piper', 'config.json'), JSON.stringify({ image, maxTurns: 40 }));
    const command = tuiFixCommand({
      env: `-u CI -u PIPER_IMAGE -u PIPER_MAX_TURNS NO_COLOR=1 XDG_CONFIG_HOME=${xdg}`,
      repo,
      model: `script:${join(MODELS, 'sample-fix.jsonl')}`,
      approval: 'auto',
    });
    terminal.start(command, 100, 45);
    await terminal.waitFor('[y/N]');

    const question = ['[y/N]', `image = ${image}`, 'maxTurns = 40', 'raises maxTurns from 30 to 40'];
    terminal.resize(60, 45);
    await expectRedrawnOnce(terminal, 60, /^┌─{58}┐$/m, question);
    terminal.resize(44, 45);
    terminal.resize(110, 45);
    await expectRedrawnOnce(terminal, 110, /^┌─{108}┐$/m, question);

    terminal.type('y');
    const end = await terminal.waitFor('EXIT=');
    expect(end).toContain('EXIT=0');
    expect(end).not.toContain('[y/N]');
    const user = JSON.parse(readFileSync(join(xdg, 'piper-agent', 'config.json'), 'utf8'));
    expect(user.trustedRepos.map((r: { path: string }) => r.path)).toEqual([realpathSync(repo)]);
  });
});
