// The CI outputs' pure parts: the markdown fence no text inside can close, the step summary's shape,
// the export document's validation (malformed and foreign files refused with one clear error), the
// round trip export → ledger in memory → the same `ledger show` text, the --patch-out path check,
// and the README's GitHub Actions and GitLab CI examples parsed as YAML with the keys a runner needs.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkOutputFile } from '../../cli/ci/patch-out.js';
import { appendStepSummary, fenced, stepSummary } from '../../cli/ci/step-summary.js';
import { UsageError } from '../../core/exit-codes.js';
import { CommandError } from '../../cli/ledger/command-error.js';
import { findRun } from '../../cli/ledger/find-run.js';
import { renderRun } from '../../cli/ledger/render-run.js';
import { runDocument } from '../../cli/ledger/run-document.js';
import { EXPORT_FORMAT, exportRun, openRunExport, parseRunExport } from '../../cli/ledger/run-export.js';
import type { RunResult } from '../../policy/events.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { recordEdit } from '../../runtime/ledger/edits.js';
import { recordObservation, recordTurn } from '../../runtime/ledger/turns.js';
import { packageRoot } from '../../runtime/package-root.js';
import { createRun, endRun } from '../../runtime/ledger/runs.js';
import { completeCall, dispatchCall } from '../../runtime/ledger/calls.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-ci-unit-'));

/** Lines of a fenced block's body that a CommonMark parser could take as its closing fence. */
function closers(block: string): string[] {
  const lines = block.split('\n');
  const fence = lines[0]!.match(/^`+/)![0];
  return lines.slice(1, -2).filter((l) => new RegExp(`^ {0,3}\`{${fence.length},}\\s*$`).test(l));
}

describe('fenced', () => {
  it('uses three backticks for plain text and one more than the longest run inside otherwise', () => {
    expect(fenced('a\n', 'diff')).toBe('```diff\na\n```\n');
    expect(fenced('no newline')).toBe('```\nno newline\n```\n');
    const hostile = 'x\n```\n</details><script>alert(1)</script>\n`````\n## heading\n';
    const block = fenced(hostile, 'text');
    expect(block.startsWith('``````text\n')).toBe(true);
    expect(block.endsWith('\n``````\n')).toBe(true);
    expect(closers(block)).toEqual([]);
  });
});

const RESULT: RunResult = {
  run_id: 'r-20250101-000000-abcdef',
  outcome: 'resolved',
  reason: 'model stopped: done ```\n# not a heading',
  verified: true,
  exit_code: 0,
  turns: 5,
  tokens: 1234,
  cost_usd: 0.0012,
  diff: '--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = "```"\n+a = "````"\n',
};

describe('stepSummary', () => {
  it('names outcome, verified, tokens, cost, run id and undo, with reason and diff fenced', () => {
    const md = stepSummary('fix', RESULT);
    expect(md).toContain('### piper-agent fix: resolved, verified\n');
    expect(md).toContain('- turns: 5 · tokens: 1234 · cost: $0.0012');
    expect(md).toContain('- run id: `r-20250101-000000-abcdef`');
    expect(md).toContain('- undo: `piper-agent undo r-20250101-000000-abcdef`');
    expect(md).toContain(`\`\`\`\`\`diff\n${RESULT.diff}\`\`\`\`\`\n`);
    expect(md).toContain('````text\nmodel stopped: done ```\n# not a heading\n````\n');
  });

  it('says no edits, an unknown cost, and the question with how to answer it', () => {
    const md = stepSummary('resume', {
      ...RESULT,
      outcome: 'ask_user',
      verified: false,
      exit_code: 3,
      cost_usd: null,
      diff: '',
      question: 'which n?',
    });
    expect(md).toContain('### piper-agent resume: ask_user, not verified\n');
    expect(md).toContain('cost: unknown');
    expect(md).toContain('No edits.');
    expect(md).toContain('piper-agent resume r-20250101-000000-abcdef --answer TEXT');
    expect(md).toContain('```text\nwhich n?\n```');
  });

  it('appends to the file GITHUB_STEP_SUMMARY names, never truncating it; unset: nothing', () => {
    const file = join(dir, 'summary.md');
    writeFileSync(file, 'before\n');
    appendStepSummary('fix', RESULT, { GITHUB_STEP_SUMMARY: file });
    appendStepSummary('fix', RESULT, { GITHUB_STEP_SUMMARY: file });
    appendStepSummary('fix', RESULT, {});
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('before\n### piper-agent fix')).toBe(true);
    expect(text.match(/^### piper-agent fix/gm)).toHaveLength(2);
    const warnings: string[] = [];
    appendStepSummary('fix', RESULT, { GITHUB_STEP_SUMMARY: join(dir, 'no', 'such.md') }, (l) =>
      warnings.push(l),
    );
    expect(warnings[0]).toContain('could not append to GITHUB_STEP_SUMMARY');
  });
});

describe('checkOutputFile', () => {
  it('takes a file in an existing directory and refuses a missing directory or a directory', () => {
    expect(checkOutputFile('--patch-out', join(dir, 'p.diff'))).toBe(join(dir, 'p.diff'));
    expect(() => checkOutputFile('--patch-out', join(dir, 'nope', 'p.diff'))).toThrow(
      new UsageError(
        `--patch-out ${join(dir, 'nope', 'p.diff')}: the directory ${join(dir, 'nope')} does not exist`,
      ),
    );
    expect(() => checkOutputFile('--patch-out', dir)).toThrow(/is a directory/);
  });
});

/** A small run in a ledger in memory: a turn, a call with its execution, an observation, an edit. */
function sampleLedger(): { ledger: Ledger; runId: string } {
  const ledger = Ledger.open(':memory:');
  const runId = createRun(ledger, {
    kind: 'fix',
    repo: '/r',
    owner: 'h:1:0',
    issue: 'fix \u001b]0;title\u0007 it',
    config: { test: 't.py', maxTurns: 3 },
  });
  const turnId = recordTurn(ledger, {
    runId,
    idx: 0,
    toolset: ['read_entity'],
    promptDigest: 'd',
    promptTokens: 10,
    completionTokens: 2,
    rawOutput: '{}',
    action: { tool: 'run_test', args: { target: 't.py' } },
  });
  const callId = dispatchCall(ledger, {
    runId,
    tool: 'run_test',
    args: { target: 't.py' },
    origin: 'model',
    owner: 'h:1:0',
    turnId,
  });
  completeCall(ledger, callId, {
    image: 'img',
    image_digest: 'sha256:00',
    container_id: 'c0ffee',
    warm: false,
    limits: { cpus: 1, memoryMb: 256, pids: 64, timeoutS: 60, outputCapBytes: 65536, tmpfsMb: 64 },
    timings: { create_ms: 1.5, start_ms: 2, run_ms: 3, total_ms: 6.5 },
    exit_code: 0,
    timed_out: false,
    oom_killed: false,
    stdout: 'ok',
    stderr: '',
    stdout_bytes: 2,
    stderr_bytes: 0,
    stdout_sha256: 'a',
    stderr_sha256: 'b',
    stdout_truncated: false,
    stderr_truncated: false,
  });
  recordObservation(ledger, {
    runId,
    turnId,
    callId,
    kind: 'test',
    target: 't.py',
    result: { passed: true },
    trust: 'trusted',
  });
  recordEdit(ledger, {
    runId,
    callId,
    path: 'x.py',
    selector: 'x',
    beforeSha256: '1',
    afterSha256: '2',
    diff: '--- a/x.py\n+++ b/x.py\n',
  });
  endRun(ledger, runId, 'resolved', 'done');
  return { ledger, runId };
}

describe('ledger export format', () => {
  it('round-trips: the export read back in memory renders the same text as the ledger', () => {
    const { ledger, runId } = sampleLedger();
    const text = renderRun(runDocument(ledger, findRun(ledger, runId)));
    const file = join(dir, 'run.json');
    const exported = exportRun(ledger, runId);
    expect(exported.format).toBe(EXPORT_FORMAT);
    expect(exported.schema_version).toBe(ledger.schemaVersion);
    writeFileSync(file, JSON.stringify(exported));
    ledger.close();
    const opened = openRunExport(file);
    try {
      expect(opened.runId).toBe(runId);
      expect(renderRun(runDocument(opened.ledger, findRun(opened.ledger, runId)))).toBe(text);
      expect(text).toContain('\\x1b]0;title');
    } finally {
      opened.ledger.close();
    }
  });

  const valid = () => {
    const { ledger, runId } = sampleLedger();
    try {
      return JSON.parse(JSON.stringify(exportRun(ledger, runId))) as Record<string, unknown> & {
        tables: Record<string, Array<Record<string, unknown>>>;
      };
    } finally {
      ledger.close();
    }
  };
  const refusal = (text: string): string => {
    try {
      parseRunExport(text, 'f.json');
    } catch (error) {
      expect(error).toBeInstanceOf(CommandError);
      return (error as CommandError).message;
    }
    throw new Error('accepted');
  };

  it('refuses what is not JSON, a foreign document, and a malformed export, each with one message', () => {
    expect(refusal('{"format":')).toBe('f.json is not JSON');
    expect(refusal('[1,2]')).toBe(
      "f.json is not a piper-agent run export: it has no format field, not 'piper-run/1'",
    );
    expect(refusal('{"format":"piper-agent.run/1"}')).toBe(
      "f.json is not a piper-agent run export: its format is 'piper-agent.run/1', not 'piper-run/1'",
    );
    const noTurns = valid();
    delete noTurns.tables.turns;
    expect(refusal(JSON.stringify(noTurns))).toMatch(
      /^f\.json is a malformed piper-run\/1 export: tables\.turns: /,
    );
    const badCell = valid();
    badCell.tables.calls![0]!.args = { nested: true };
    expect(refusal(JSON.stringify(badCell))).toMatch(/export: tables\.calls\.0\.args: /);
    const extra = valid();
    extra.tables.secrets = [];
    expect(refusal(JSON.stringify(extra))).toMatch(/export: tables: /);
    const twoRuns = valid();
    twoRuns.tables.runs!.push({ ...twoRuns.tables.runs![0]!, id: 'r-other' });
    expect(refusal(JSON.stringify(twoRuns))).toMatch(/its runs table must hold run .* alone/);
    const mixed = valid();
    mixed.tables.observations![0]!.run_id = 'r-other';
    expect(refusal(JSON.stringify(mixed))).toMatch(/table observations holds rows of another run/);
  });

  it('refuses rows that do not fit the schema, and a newer schema, when opened', () => {
    const file = join(dir, 'bad.json');
    const unknownColumn = valid();
    unknownColumn.tables.edits![0]!.surprise = 1;
    writeFileSync(file, JSON.stringify(unknownColumn));
    expect(() => openRunExport(file)).toThrow(
      /malformed piper-run\/1 export: table edits has no column 'surprise'/,
    );
    const dangling = valid();
    dangling.tables.turns = [];
    writeFileSync(file, JSON.stringify(dangling));
    expect(() => openRunExport(file)).toThrow(/malformed piper-run\/1 export: a row of table calls: /);
    const newer = valid();
    newer.schema_version = 999;
    writeFileSync(file, JSON.stringify(newer));
    expect(() => openRunExport(file)).toThrow(/schema 999; this piper-agent reads up to/);
  });
});

/** The fenced ```yaml blocks of docs/ci.md's "Two workflows" section. */
function ciYamlBlocks(): unknown[] {
  const page = readFileSync(join(packageRoot(), 'docs', 'ci.md'), 'utf8');
  const start = page.indexOf('\n## Two workflows\n');
  expect(start).toBeGreaterThan(0);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return Array.from(section.matchAll(/^```yaml\n([\s\S]*?)^```$/gm), (m) => parse(m[1]!) as unknown);
}

describe("docs/ci.md's CI examples", () => {
  it('parse as YAML: a GitHub Actions workflow and a GitLab CI job over docker-in-docker with TLS', () => {
    const blocks = ciYamlBlocks() as Array<Record<string, unknown>>;
    expect(blocks).toHaveLength(2);
    const [github, gitlab] = blocks as [
      { on: unknown; jobs: Record<string, { 'runs-on': unknown; steps: Array<Record<string, unknown>> }> },
      Record<
        string,
        { image: unknown; services: unknown[]; variables: Record<string, string>; script: string[] }
      >,
    ];
    expect(github.on).toBeDefined();
    const jobs = Object.values(github.jobs);
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      expect(typeof job['runs-on']).toBe('string');
      expect(job.steps.length).toBeGreaterThan(0);
      for (const step of job.steps) expect('run' in step || 'uses' in step).toBe(true);
    }
    const github_run = jobs
      .flatMap((j) => j.steps)
      .map((s) => String(s.run ?? ''))
      .join('\n');
    expect(github_run).toContain('--patch-out');
    expect(github_run).toContain('GITHUB_STEP_SUMMARY');

    const gitlabJobs = Object.entries(gitlab).filter(
      ([name]) => !name.startsWith('.') && name !== 'variables' && name !== 'stages',
    );
    expect(gitlabJobs.length).toBe(1);
    const [, job] = gitlabJobs[0]!;
    expect(job.image).toBeTruthy();
    expect(job.services.length).toBeGreaterThan(0);
    expect(job.script.length).toBeGreaterThan(0);
    expect(job.variables).toMatchObject({
      DOCKER_HOST: 'tcp://docker:2376',
      DOCKER_TLS_VERIFY: '1',
      DOCKER_CERT_PATH: expect.any(String),
    });
    expect(job.script.join('\n')).toContain('--patch-out');
    // The GitLab job runs inside the CI image, where piper-agent reads PIPER_IMAGE as its sandbox image.
    expect(Object.keys(job.variables)).not.toContain('PIPER_IMAGE');
    expect(JSON.stringify(job.image)).not.toMatch(/\$PIPER_IMAGE\b/);
  });
});
