// What piper leaves in the user's directories: a call in a repository writes nothing there (its
// ledger is in the state directory); `.piper/` comes with a `.gitignore` of `*` when piper creates
// it (the run lock), so `git status` stays clean; a `.piper/` the user made is left as it is; and
// run outside any repository, `doctor` and `tool` write no ledger (nor `.piper/`) there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';
import { runCli } from '../helpers/cli.js';
import { sampleRepo } from '../helpers/sample-repo.js';

const env = { PIPER_LEDGER: '', CI: 'true' };
const READ = JSON.stringify({ selector: 'textstats.words.top_words' });

const gitStatus = (repo: string) =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo, encoding: 'utf8' });

/** A `tool` call in the repository; its run id. */
async function toolCall(repo: string): Promise<string> {
  const r = await runCli(['tool', 'read_entity', READ], { cwd: repo, env });
  expect(r.code, r.stderr).toBe(0);
  return /── run (\S+) ·/.exec(r.stderr)![1]!;
}

describe('the repository after a run', () => {
  it('a call writes nothing into it: its ledger is in the state directory', async () => {
    const repo = sampleRepo();
    expect(gitStatus(repo)).toBe('');
    await toolCall(repo);
    expect(existsSync(defaultLedgerPath(repo))).toBe(true);
    expect(existsSync(join(repo, '.piper'))).toBe(false);
    expect(gitStatus(repo)).toBe('');
  });

  it('.piper/ made for the run lock comes with a .gitignore of everything: git status stays clean', async () => {
    const repo = sampleRepo();
    const runId = await toolCall(repo);
    // undo holds the run lock, the one thing piper still keeps in the repository.
    await runCli(['undo', runId, '--json'], { cwd: repo, env });
    expect(readFileSync(join(repo, '.piper', '.gitignore'), 'utf8')).toBe(
      '# Created by piper-agent automatically.\n*\n',
    );
    expect(gitStatus(repo)).toBe('');
  });

  it("a .piper/ the user made (its config, say) gets no .gitignore: it is the user's", async () => {
    const repo = sampleRepo();
    mkdirSync(join(repo, '.piper'));
    writeFileSync(join(repo, '.piper', 'config.json'), '{"maxTurns": 5}\n');
    const runId = await toolCall(repo);
    await runCli(['undo', runId, '--json'], { cwd: repo, env });
    expect(existsSync(join(repo, '.piper', '.gitignore'))).toBe(false);
  });
});

describe('outside any repository', () => {
  it('tool runs the call and records it nowhere; doctor writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-no-repo-'));
    writeFileSync(join(dir, 'calc.py'), 'def add(a, b):\n    return a + b\n');
    const tool = await runCli(['tool', 'read_entity', '{"selector": "calc.add"}'], { cwd: dir, env });
    expect(tool.code).toBe(0);
    expect(JSON.parse(tool.stdout)).toMatchObject({ kind: 'read', ok: true });
    expect(tool.stderr).toContain('not in a git repository: the call is not recorded');

    const doctor = await runCli(['doctor', '--json'], { cwd: dir, env });
    const ledger = (
      JSON.parse(doctor.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> }
    ).checks.find((c) => c.name === 'ledger');
    expect(ledger).toMatchObject({ ok: true });
    expect(ledger!.detail).toContain('does not exist yet');
    expect(existsSync(join(dir, '.piper'))).toBe(false);
  });
});
