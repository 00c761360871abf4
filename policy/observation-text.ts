// How an observation row reads to the model (the latest one verbatim) and to a person (one line).
// The policy arm shows the trust gate's mark as `"trust": "verified"` (the result passed the gate's
// checks against the ledger) or the spec's `"trust": "unverified"` with its caveat. `verified`, not
// `trusted`: a file read that passed is an accurate record, not text to obey (docs/provenance.md).
// The ledger column and the event stream keep the names `trusted | unverified`. The baseline arm (`current`) shows
// data only.
import type { ObservationRow } from '../runtime/ledger/observation-row.js';
import type { DataSource } from './fence.js';
import type { PolicyArm } from './validate.js';

/** What rendering reads of an observation row; `result` is the JSON the ledger stores. */
export type ObservationLike = Pick<ObservationRow, 'kind' | 'target' | 'result' | 'trust' | 'caveat'>;

export function renderForModel(o: ObservationLike, arm: PolicyArm): string {
  return oneLineJson(modelValue(o, arm));
}

function modelValue(o: ObservationLike, arm: PolicyArm): unknown {
  const data = JSON.parse(o.result) as unknown;
  if (o.kind === 'rejected' || o.kind === 'noop' || o.kind === 'user' || o.kind === 'denied') return data;
  const base: Record<string, unknown> = { kind: o.kind, target: o.target ?? '' };
  if (arm === 'current') return { ...base, data };
  if (o.trust === 'unverified') return { ...base, ok: true, trust: 'unverified', caveat: o.caveat, data };
  return { ...base, ok: true, trust: 'verified', data };
}

/** JSON with the three line breaks JSON.stringify leaves raw escaped: the value stays on one line. */
function oneLineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
    .replace(/\u0085/g, '\\u0085');
}

/** Who wrote the text of an observation of this kind: the harness, the operator, or a data source. */
export type ObservationSource = 'harness' | 'operator' | DataSource;

const DATA_SOURCES: Readonly<Record<string, DataSource>> = {
  read: 'file',
  search: 'search',
  symbol: 'search',
  test: 'sandbox',
  execute: 'sandbox',
  lint: 'sandbox',
  edit: 'edit',
};

export function observationSource(kind: string): ObservationSource {
  if (kind === 'rejected' || kind === 'noop') return 'harness';
  // A refusal is the operator's decision (or the approval policy the operator chose), in their words.
  if (kind === 'user' || kind === 'denied') return 'operator';
  return DATA_SOURCES[kind] ?? 'tool';
}

/** A short human summary of a result, for the event stream and the TUI. */
export function summarize(kind: string, result: unknown): string {
  const r = result as Record<string, unknown> | string | null;
  if (typeof r === 'string') return oneLine(r);
  if (!r || typeof r !== 'object') return String(r);
  if ('rejected' in r) return `rejected: ${r.reason}`;
  if (kind === 'denied') return String(r.reason);
  if (kind === 'test' || 'passed' in r) {
    const counts = r.counts as { passed: number; failed: number; errors: number } | undefined;
    const c = counts ? ` (${counts.passed} passed, ${counts.failed} failed, ${counts.errors} errors)` : '';
    return `${r.passed ? 'passed' : r.timed_out ? 'timed out' : 'failed'}, exit ${r.exit_code}${c}`;
  }
  if (kind === 'execute')
    return `exit ${r.exit_code}${r.timed_out ? ', timed out' : ''}: ${oneLine(String(r.stdout ?? ''))}`;
  if ('ok' in r && r.ok === false) return `error: ${oneLine(String(r.error))}`;
  const data = (r as { data?: Record<string, unknown> }).data ?? {};
  if (Array.isArray(data.matches))
    return `${data.matches.length} match(es)${
      data.matches.length
        ? `: ${(data.matches as Array<{ selector: string }>)
            .slice(0, 3)
            .map((m) => m.selector)
            .join(', ')}`
        : ''
    }`;
  if (Array.isArray(data.results))
    return `${data.results.length} result(s)${
      data.results.length
        ? `: ${(data.results as Array<{ selector: string }>)
            .slice(0, 3)
            .map((m) => m.selector)
            .join(', ')}`
        : ''
    }`;
  if ('committed' in data)
    return data.committed
      ? `committed${data.lint_clean ? ', lint clean' : ', lint findings remain'}`
      : 'not committed';
  if ('entity' in data) {
    const body = typeof data.body === 'string' ? data.body.split('\n').length : 0;
    return `${(data.entity as { signature?: string }).signature?.split('\n').at(-1) ?? ''}${body ? ` (${body} lines)` : ''}`;
  }
  return oneLine(JSON.stringify(r));
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
