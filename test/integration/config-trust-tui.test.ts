// The trust question in a real terminal (tmux): `fix` on a repository whose .piper/config.json sets
// keys that need trust shows them with their values, y trusts and is remembered in the user's
// config by the repository's real path and the file's sha256 — the next headless run applies the
// file without a warning, and a changed file is untrusted again.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { runCli } from '../helpers/cli.js';
import { MODELS, sampleRepo } from '../helpers/sample-repo.js';
import { tuiFixCommand } from '../helpers/tui-fix-command.js';
import { tmuxSession } from '../helpers/tmux.js';

const terminal = tmuxSession(`piper-trust-${process.pid}`, 60_000);
const { tmux, waitFor } = terminal;
const session = terminal.name;

afterAll(terminal.kill);

describe('trusting a repository config in the TUI', () => {
  it('asks once with the keys and values, remembers yes by path and hash, asks again after a change', async () => {
    const xdg = mkdtempSync(join(tmpdir(), 'piper-trust-xdg-'));
    const repo = sampleRepo();
    const file = join(repo, '.piper', 'config.json');
    mkdirSync(join(repo, '.piper'), { recursive: true });
    // The real sandbox image named explicitly: a key that needs trust, and a run that still works.
    const image = loadRecipe().ref;
    writeFileSync(file, JSON.stringify({ image, maxTurns: 40 }));
    const script = `script:${join(MODELS, 'sample-fix.jsonl')}`;
    const command = tuiFixCommand({
      env: `-u CI -u PIPER_IMAGE -u PIPER_MAX_TURNS NO_COLOR=1 XDG_CONFIG_HOME=${xdg}`,
      repo,
      model: script,
      // About the config's trust, not the edits': applied unasked (approval-tmux tests asking).
      approval: 'auto',
    });
    tmux('new-session', '-d', '-s', session, '-x', '100', '-y', '45', command);
    const asking = await waitFor('[y/N]');
    expect(asking).toContain(`image = ${image}`);
    expect(asking).toContain('maxTurns = 40');
    expect(asking).toContain('raises maxTurns from 30 to 40');
    tmux('send-keys', '-t', session, 'y');
    const end = await waitFor('EXIT=');
    expect(end).toContain('EXIT=0');

    const user = JSON.parse(readFileSync(join(xdg, 'piper-agent', 'config.json'), 'utf8'));
    expect(user.trustedRepos).toEqual([
      {
        path: realpathSync(repo),
        file: '.piper/config.json',
        sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
      },
    ]);

    // Remembered: `config` applies the whole file and flags nothing.
    const env = { XDG_CONFIG_HOME: xdg, PIPER_IMAGE: '', PIPER_MAX_TURNS: '' };
    const trusted = await runCli(['config', '--repo', repo, '--json'], { env });
    expect(JSON.parse(trusted.stdout)).toMatchObject({ config: { image, maxTurns: 40 }, ignored: [] });
    // A changed file is a new question.
    writeFileSync(file, JSON.stringify({ image, maxTurns: 41 }));
    const changed = await runCli(['config', '--repo', repo, '--json'], { env });
    expect(JSON.parse(changed.stdout).ignored.map((k: { key: string }) => k.key)).toEqual([
      'maxTurns',
      'image',
    ]);
  });
});
