// `ledger show RUN` as text: the run's settings and ending, then each turn with its toolset and
// action, its calls (origin, status, reason) with their sandbox executions (exit code, timings),
// the observations they produced (trust, caveat), and finally the run's edits with their diffs.
import { summarize } from '../../policy/observation-text.js';
import { symbolObservationSchema } from '../../policy/triggers.js';
import { savedTurnsUsed } from '../../policy/loop-state.js';
import { failedModelCallErrorSchema, proposalSchema } from '../../policy/turn/select.js';
import { inert } from '../../runtime/text/inert.js';
import { loopTurns } from './loop-turns.js';
import type { CallView, ObservationView, RunDocument, TurnView } from './run-document.js';
import { appendAll } from '../../runtime/text/append.js';

export function renderRun(doc: RunDocument): string {
  const lines = header(doc);
  const numbers = loopTurns(doc.turns);
  let n = 0;
  for (const turn of doc.turns) {
    lines.push('');
    if (turn.idx === null) lines.push('before turn 1 (triggers on the issue text)');
    else {
      const { turn: number, reselection } = numbers[n++]!;
      const tokens =
        turn.prompt_tokens === null ? '' : ` · ${turn.prompt_tokens}+${turn.completion_tokens ?? 0} tokens`;
      lines.push(
        `turn ${number}${reselection ? ' (re-selection)' : ''} · tools: ${turn.toolset.join(', ') || '(none)'}${tokens}`,
      );
      lines.push(`  action: ${actionText(turn)}`);
    }
    appendAll(lines, turnBody(turn));
  }
  lines.push('', ...editLines(doc));
  // For a terminal: the issue, arguments, reasons, summaries and diffs are untrusted text.
  return inert(lines.join('\n'));
}

function header(doc: RunDocument): string[] {
  const r = doc.run;
  const c = r.config;
  const caps = [
    `${num(c.maxTurns) ?? 30} turns`,
    `tokens ${num(c.maxTokens) ?? '-'}`,
    `cost ${num(c.maxCostUsd) ?? '-'}`,
    `wall ${num(c.maxWallS) ?? '-'} s`,
  ];
  const turnsUsed = savedTurnsUsed(c.loop_state);
  const resumes = Array.isArray(c.resumes) ? c.resumes.length : 0;
  const lines = [
    `run ${r.id} · ${r.kind} · ${r.outcome ?? 'running (or its process died)'}${r.outcome_reason ? ` — ${r.outcome_reason}` : ''}`,
    `  repo ${r.repo ?? '-'}${r.head ? ` @ ${r.head.slice(0, 12)}` : ''}`,
  ];
  if (r.kind === 'fix') {
    lines.push(
      `  model ${r.model ?? '-'} · policy ${r.policy ?? '-'} · test ${typeof c.test === 'string' ? c.test : '(none)'} · image ${typeof c.image === 'string' ? c.image : '-'}`,
    );
    lines.push(`  caps: ${caps.join(', ')}${samplingText(c.sampling)}`);
  }
  lines.push(
    `  started ${r.started_at} · ended ${r.ended_at ?? '-'}${turnsUsed !== undefined ? ` · ${turnsUsed} turns` : ''} · ${r.tokens_in + r.tokens_out} tokens (in ${r.tokens_in}, out ${r.tokens_out}) · cost ${r.cost_usd === null ? 'unknown' : `$${r.cost_usd.toFixed(4)}`}${resumes ? ` · resumed ${resumes}×` : ''}`,
  );
  if (r.issue) lines.push('  issue:', ...r.issue.split('\n').map((l) => `    ${l}`));
  return lines;
}

/** The run's recorded sampling (runs before it was recorded show nothing). */
function samplingText(value: unknown): string {
  const s = value as { temperature?: unknown; maxCompletionTokens?: unknown } | undefined;
  if (typeof s?.maxCompletionTokens !== 'number') return '';
  const t = typeof s.temperature === 'number' ? `temperature ${s.temperature}` : 'no temperature';
  return ` · sampling: ${t}, ${s.maxCompletionTokens} completion tokens`;
}

function actionText(turn: TurnView): string {
  const failed = failedModelCallErrorSchema.safeParse(turn.action);
  if (failed.success) return `model call failed: ${failed.data.error}`;
  const proposal = proposalSchema.safeParse(turn.action);
  if (proposal.success) return `${proposal.data.tool} ${short(JSON.stringify(proposal.data.args), 140)}`;
  if (turn.raw_output === null) return '(no reply recorded: the run stopped during the model call)';
  return `no-op (unparseable reply: ${short(JSON.stringify(turn.raw_output), 100)})`;
}

function turnBody(turn: TurnView): string[] {
  const lines: string[] = [];
  const shown = new Set<number>();
  for (const call of turn.calls) {
    appendAll(lines, callLines(call));
    for (const o of turn.observations.filter((o) => o.call_id === call.id)) {
      lines.push(`      ${observationLine(o)}`);
      shown.add(o.id);
    }
  }
  for (const o of turn.observations.filter((o) => !shown.has(o.id))) lines.push(`  ${observationLine(o)}`);
  return lines;
}

function callLines(call: CallView): string[] {
  const status =
    call.verdict === 'rejected'
      ? `rejected${call.reason ? `: ${call.reason}` : ''}`
      : `${call.status}${call.status_reason ? ` (${call.status_reason})` : ''}`;
  const lines = [
    `  call ${call.id} · ${call.origin} · ${call.tool} ${short(JSON.stringify(call.args), 100)} → ${status}`,
  ];
  const e = call.execution;
  if (e) {
    const flags = [e.timed_out ? 'timed out' : '', e.oom_killed ? 'out of memory' : '', e.kill_reason ?? '']
      .filter(Boolean)
      .join(', ');
    lines.push(
      `    sandbox: exit ${e.exit_code}${flags ? ` (${flags})` : ''} · ${ms(e.total_ms)} total (create ${ms(e.create_ms)}, start ${ms(e.start_ms)}, run ${ms(e.run_ms)}) · ${e.warm ? 'warm' : 'cold'} · container ${e.container_id.slice(0, 12)}`,
      `    image ${e.image} ${e.image_digest.slice(0, 19)} · stdout ${e.stdout_bytes} B${e.stdout_truncated ? ' (truncated)' : ''} · stderr ${e.stderr_bytes} B${e.stderr_truncated ? ' (truncated)' : ''}`,
    );
  }
  return lines;
}

function observationLine(o: ObservationView): string {
  const trust = o.trust === 'unverified' ? `unverified${o.caveat ? `: ${o.caveat}` : ''}` : o.trust;
  return `observation ${o.kind}${o.target ? ` ${o.target}` : ''} · ${trust} · ${short(resultText(o), 160)}`;
}

/** The symbol trigger stores {query, matches} (the spec's shape), which summarize() does not know. */
function resultText(o: ObservationView): string {
  const symbol = symbolObservationSchema.safeParse(o.result);
  if (symbol.success) {
    const { matches } = symbol.data;
    const names = matches.slice(0, 3).map((m) => m.selector);
    return `${matches.length} match(es)${names.length ? `: ${names.join(', ')}` : ''}`;
  }
  return summarize(o.kind, o.result);
}

function editLines(doc: RunDocument): string[] {
  if (doc.edits.length === 0) return ['edits: none'];
  const lines = [`edits: ${doc.edits.length}`];
  for (const e of doc.edits) {
    lines.push(
      `  #${e.id} ${e.path}${e.selector ? ` (${e.selector})` : ''} · call ${e.call_id ?? '-'}${e.undone_at ? ` · undone ${e.undone_at}` : ''}`,
    );
    lines.push(
      ...e.diff
        .trimEnd()
        .split('\n')
        .map((l) => `    ${l}`),
    );
  }
  return lines;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function ms(v: number | null): string {
  return v === null ? '-' : `${Math.round(v)} ms`;
}

function short(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
