// What a CI job reads after a run, through the real CLI with scripted models and the real sandbox:
// --patch-out holds exactly the run's diff (and `git apply --check` takes it on a fresh copy), is
// empty for a run without edits and still written when the run ends unverified; GITHUB_STEP_SUMMARY
// gets one more summary per run, never truncated; `resume` writes both too; `ledger export` →
// `ledger show --from` on another copy, the original ledger gone, prints what `ledger show` printed.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { startCli, type CliResult } from '../helpers/cli.js';
import { sampleFixArgs, sampleRepo } from '../helpers/sample-repo.js';
import { engine } from '../helpers/sandbox.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-ci-outputs-'));
const summary = join(dir, 'step-summary.md');
const pids: number[] = [];

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const { child, done } = startCli(args, {
    cwd: dir,
    env: { PIPER_LEDGER: '', CI: 'true', GITHUB_STEP_SUMMARY: summary, ...env },
  });
  pids.push(child.pid!);
  return done;
}

const fix = (repo: string, script: string, ...extra: string[]) =>
  cli(sampleFixArgs(repo, script, '--output', 'json', ...extra));

const ledgerOf = (repo: string) => defaultLedgerPath(repo);
let fixedRepo = '';
let fixedRun = '';

afterAll(async () => {
  // No container of any CLI process this file started is left (pool containers included).
  const all = await engine.listContainers([LABEL.owner]);
  expect(all.filter((c) => pids.includes(Number((c.labels[LABEL.owner] ?? '').split(':')[1])))).toEqual([]);
});

describe('CI outputs of fix and resume (real CLI, real sandbox)', () => {
  it('--patch-out holds the run diff, which git apply takes on a fresh copy; the step summary is appended to', async () => {
    writeFileSync(summary, '## an earlier step\n');
    fixedRepo = sampleRepo();
    const patch = join(dir, 'fix.patch');
    const r = await fix(fixedRepo, 'sample-fix.jsonl', '--patch-out', patch);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { run_id: string; diff: string };
    fixedRun = result.run_id;
    expect(result.diff).toContain('+    return ranked[:n]');
    expect(readFileSync(patch, 'utf8')).toBe(result.diff);
    const fresh = sampleRepo();
    execFileSync('git', ['apply', '--check', patch], { cwd: fresh });
    execFileSync('git', ['apply', patch], { cwd: fresh });
    expect(readFileSync(join(fresh, 'textstats', 'words.py'), 'utf8')).toBe(
      readFileSync(join(fixedRepo, 'textstats', 'words.py'), 'utf8'),
    );
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('## an earlier step\n### piper-agent fix: resolved, verified\n')).toBe(true);
    expect(md).toContain(`- run id: \`${fixedRun}\``);
    expect(md).toContain(`- undo: \`piper-agent undo ${fixedRun}\``);
    expect(md).toContain(`\`\`\`diff\n${result.diff}\`\`\`\n`);
  });

  it('a run without edits, ending unverified (exit 4), writes an empty patch and a second summary', async () => {
    const repo = sampleRepo();
    const patch = join(dir, 'none.patch');
    writeFileSync(patch, 'stale content from an earlier job\n');
    const r = await fix(repo, 'rejections.jsonl', '--patch-out', patch);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'stop', verified: false, diff: '' });
    expect(readFileSync(patch, 'utf8')).toBe('');
    const md = readFileSync(summary, 'utf8');
    expect(md.match(/^### piper-agent fix: /gm)).toHaveLength(2);
    expect(md).toContain('### piper-agent fix: stop, not verified\n');
    expect(md).toContain('No edits.');
    expect(md.startsWith('## an earlier step\n')).toBe(true);
  });

  it('refuses a --patch-out whose directory does not exist with exit 2, before any work', async () => {
    const repo = sampleRepo();
    const r = await fix(repo, 'sample-fix.jsonl', '--patch-out', join(dir, 'nope', 'out.patch'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `--patch-out ${join(dir, 'nope', 'out.patch')}: the directory ${join(dir, 'nope')} does not exist`,
    );
    expect(existsSync(ledgerOf(repo))).toBe(false);
  });

  it('resume writes the patch of the whole run and its own summary', async () => {
    const repo = sampleRepo();
    const patch = join(dir, 'resume.patch');
    const asked = await fix(repo, 'sample-ask.jsonl', '--patch-out', patch);
    expect(asked.code).toBe(3);
    const runId = (JSON.parse(asked.stdout) as { run_id: string }).run_id;
    expect(readFileSync(patch, 'utf8')).toBe('');
    const r = await cli([
      'resume',
      runId,
      '--repo',
      repo,
      '--answer',
      'Yes: exactly n words whenever there are at least n distinct words.',
      '--non-interactive',
      '--output',
      'json',
      '--patch-out',
      patch,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { diff: string };
    expect(result.diff).toContain('+    return ranked[:n]');
    expect(readFileSync(patch, 'utf8')).toBe(result.diff);
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('### piper-agent fix: ask_user, not verified\n');
    expect(md).toContain('### piper-agent resume: resolved, verified\n');
  });
});

describe('ledger export → ledger show --from on another machine', () => {
  it('prints exactly what ledger show printed from the database, with the original ledger deleted', async () => {
    const shown = await cli(['ledger', 'show', fixedRun, '--repo', fixedRepo]);
    expect(shown.code, shown.stderr).toBe(0);
    const shownJson = await cli(['ledger', 'show', fixedRun, '--repo', fixedRepo, '--json']);
    const artifact = join(dir, 'run.json');
    const exported = await cli([
      'ledger',
      'export',
      // A prefix into the random part: the regression gate's suite runs start in the same second.
      fixedRun.slice(0, 21),
      '--repo',
      fixedRepo,
      '--out',
      artifact,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe('');
    const doc = JSON.parse(readFileSync(artifact, 'utf8'));
    expect(doc).toMatchObject({ format: 'piper-run/1', run_id: fixedRun });
    expect(doc.tables.runs).toHaveLength(1);
    expect(doc.tables.executions.length).toBeGreaterThan(0);
    expect(doc.tables.edits).toHaveLength(1);

    // "Another machine": the artifact copied elsewhere, the repository and its ledger gone.
    const elsewhere = mkdtempSync(join(tmpdir(), 'piper-elsewhere-'));
    const copy = join(elsewhere, 'artifact.json');
    copyFileSync(artifact, copy);
    rmSync(fixedRepo, { recursive: true, force: true });
    const fromFile = await cli(['ledger', 'show', '--from', copy]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toBe(shown.stdout);
    const fromFileJson = await cli(['ledger', 'show', '--from', copy, '--json']);
    expect({ ...JSON.parse(fromFileJson.stdout), ledger: 'x' }).toEqual({
      ...JSON.parse(shownJson.stdout),
      ledger: 'x',
    });
    // RUN beside --from checks the file holds that run.
    const again = await cli(['ledger', 'show', '--from', copy, fixedRun.slice(0, 12)]);
    expect(again.stdout).toBe(shown.stdout);
  });

  it('refuses a malformed or foreign file with one clear error, exit 2', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"format": "piper-run/1", "run_id": ');
    const malformed = await cli(['ledger', 'show', '--from', bad]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(`piper-agent: ${bad} is not JSON`);
    writeFileSync(bad, JSON.stringify({ name: 'package', version: '1.0.0' }));
    const foreign = await cli(['ledger', 'show', '--from', bad]);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain(`${bad} is not a piper-agent run export: it has no format field`);
    const missing = await cli(['ledger', 'show', '--from', join(dir, 'absent.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
  });
});
