// `ledger runs`: one line per run — id, start, kind, outcome, turns, tokens, cost and the issue's
// first line — as a table for people or as JSON objects for scripts.
import type { RunSummaryRow } from '../../runtime/ledger/runs.js';
import { savedTurnsUsed } from '../../policy/loop-state.js';
import { inert } from '../../runtime/text/inert.js';
import { isRecord } from '../../runtime/text/is-record.js';
import { maxOf } from '../../runtime/text/append.js';

export interface RunListEntry {
  id: string;
  started_at: string;
  kind: string;
  outcome: string | null;
  turns: number;
  tokens: number;
  cost_usd: number | null;
  issue: string | null;
  repo: string | null;
  model: string | null;
}

export function runListEntry(row: RunSummaryRow): RunListEntry {
  return {
    id: row.id,
    started_at: row.started_at,
    kind: row.kind,
    outcome: row.outcome,
    turns: savedTurns(row.config) ?? row.turn_rows,
    tokens: row.tokens_in + row.tokens_out,
    cost_usd: row.cost_usd,
    issue:
      row.issue
        ?.split('\n')
        .find((l) => l.trim() !== '')
        ?.trim() ?? null,
    repo: row.repo,
    model: row.model,
  };
}

export function renderRunTable(entries: readonly RunListEntry[], width = 120): string {
  if (entries.length === 0) return 'no runs in this ledger';
  // Cells are made inert before the widths are measured, so the columns line up as shown.
  const rows = entries.map((e) =>
    [
      e.id,
      e.started_at.slice(0, 19).replace('T', ' '),
      e.kind,
      e.outcome ?? 'running',
      String(e.turns),
      String(e.tokens),
      e.cost_usd === null ? '-' : `$${e.cost_usd.toFixed(4)}`,
      e.issue ?? '',
    ].map(inert),
  );
  const head = ['RUN', 'STARTED', 'KIND', 'OUTCOME', 'TURNS', 'TOKENS', 'COST', 'ISSUE'];
  const all = [head, ...rows];
  const widths = head.slice(0, -1).map((_, i) => maxOf(all.map((r) => r[i]!.length)));
  const right = new Set([4, 5, 6]);
  return all
    .map((r) => {
      const cells = r
        .slice(0, -1)
        .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)));
      const line = `${cells.join('  ')}  ${r.at(-1)!}`;
      return line.length > width ? `${line.slice(0, width - 1)}…` : line.trimEnd();
    })
    .join('\n');
}

/** The loop's own count, when the run saved its state (turn rows count re-selections twice). */
function savedTurns(config: string | null): number | undefined {
  if (!config) return undefined;
  try {
    const parsed: unknown = JSON.parse(config);
    return isRecord(parsed) ? savedTurnsUsed(parsed.loop_state) : undefined;
  } catch {
    return undefined;
  }
}
