// How an observation row reads to the model (the latest one verbatim) and to a person (one line).
// With trust marks on (LoopSettings.trustMarks) it shows the trust gate's mark as `"trust": "verified"` (the result passed the gate's
// checks against the ledger) or the spec's `"trust": "unverified"` with its caveat. `verified`, not
// `trusted`: a file read that passed is an accurate record, not text to obey (docs/provenance.md).
// The ledger column and the event stream keep the names `trusted | unverified`. With the marks off
// (the stock surface the A/B measures against) it shows the data only.
import { z } from 'zod';
import { entitySchema } from '../runtime/ledger/code-entity.js';
import { pytestCountsSchema } from '../primitives/results/sandbox-results.js';
import type { ObservationRow } from '../runtime/ledger/observation-row.js';
import type { DataSource } from './fence.js';
import { isRecord } from '../runtime/text/is-record.js';
import { USER_DENIAL_PREFIX } from '../primitives/edit-approval.js';
import { editDenialSchema } from '../primitives/results/edit-result.js';
import { executeTool } from '../primitives/tools/execute/tool.js';
import { NO_REASON_GIVEN } from './approval.js';

/** What rendering reads of an observation row; `result` is the JSON the ledger stores. */
export type ObservationLike = Pick<ObservationRow, 'kind' | 'target' | 'result' | 'trust' | 'caveat'>;

export function renderForModel(o: ObservationLike, view: { trustMarks: boolean }): string {
  return oneLineJson(modelValue(o, view.trustMarks));
}

function modelValue(o: ObservationLike, trustMarks: boolean): unknown {
  const data = JSON.parse(o.result) as unknown;
  if (o.kind === 'rejected' || o.kind === 'noop' || o.kind === 'user' || o.kind === 'denied') return data;
  const base: Record<string, unknown> = { kind: o.kind, target: o.target ?? '' };
  if (!trustMarks) return { ...base, data };
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
  if (typeof result === 'string') return oneLine(result);
  if (!isRecord(result)) return result === null || result === undefined ? '(no result)' : String(result);
  const r = result;
  if ('rejected' in r) return typeof r.reason === 'string' ? `rejected: ${r.reason}` : 'rejected';
  if (kind === 'denied') return deniedSummary(r);
  if (kind === 'test' || 'passed' in r) {
    // A run_test result, or the post-patch trigger's {passed, exit_code}.
    const counts = pytestCountsSchema.safeParse(r.counts);
    const c = counts.success
      ? ` (${counts.data.passed} passed, ${counts.data.failed} failed, ${counts.data.errors} errors)`
      : '';
    // An exit-code pass the counts do not back never reads as a pass.
    if (r.passed && typeof r.unverified_pass === 'string')
      return `not a pass${exitText(r.exit_code)}: ${r.unverified_pass}${c}`;
    return `${r.passed ? 'passed' : r.timed_out ? 'timed out' : 'failed'}${exitText(r.exit_code)}${c}`;
  }
  if (kind === executeTool.kind)
    return `${exitText(r.exit_code).slice(2) || 'no exit code'}${r.timed_out ? ', timed out' : ''}: ${oneLine(String(r.stdout ?? ''))}`;
  if (r.ok === false)
    return typeof r.error === 'string' ? `error: ${oneLine(r.error)}` : 'error (no message)';
  return dataSummary(isRecord(r.data) ? r.data : {}) ?? oneLine(JSON.stringify(r));
}

/**
 * A refused edit, for the person who refused it: `denied by you`, with the reason when one was
 * given, or the approval policy's words. Reads both shapes a refusal has: the edit's failed envelope
 * (`data.denied`, the event stream's) and the ledger's note (`{denied, reason}`, `ledger show`'s).
 */
function deniedSummary(r: Record<string, unknown>): string {
  const data = isRecord(r.data) ? r.data : {};
  const denial = editDenialSchema.safeParse(data.denied);
  if (denial.success) {
    const { by, reason } = denial.data;
    return by === 'user' ? byYou(reason) : `denied by the approval policy: ${reason}`;
  }
  const note = typeof r.reason === 'string' ? r.reason : typeof r.error === 'string' ? r.error : '';
  return note.startsWith(USER_DENIAL_PREFIX)
    ? byYou(note.slice(USER_DENIAL_PREFIX.length))
    : note || 'denied';
}

function byYou(reason: string): string {
  const given = reason.trim() !== '' && reason !== NO_REASON_GIVEN;
  return given ? `denied by you: ${oneLine(reason)}` : 'denied by you';
}

const selectorsSchema = z.array(z.object({ selector: z.string() }));
const signatureSchema = entitySchema.pick({ signature: true });

/** An ok envelope's data, by what it holds: matches, results, an edit's verdict or an entity. */
function dataSummary(data: Record<string, unknown>): string | null {
  for (const [field, noun] of [
    ['matches', 'match(es)'],
    ['results', 'result(s)'],
  ] as const) {
    const listed = selectorsSchema.safeParse(data[field]);
    if (!listed.success) continue;
    const first = listed.data.slice(0, 3).map((m) => m.selector);
    return `${listed.data.length} ${noun}${first.length ? `: ${first.join(', ')}` : ''}`;
  }
  if ('committed' in data)
    return data.committed
      ? `committed${data.lint_clean ? ', lint clean' : ', lint findings remain'}`
      : 'not committed';
  if ('entity' in data) {
    const body = typeof data.body === 'string' ? data.body.split('\n').length : 0;
    const entity = signatureSchema.safeParse(data.entity);
    const header = entity.success ? (entity.data.signature.split('\n').at(-1) ?? '') : '';
    return `${header}${body ? ` (${body} lines)` : ''}`;
  }
  return null;
}

/** `, exit N`, or nothing when the result holds no exit code (never `exit undefined`). */
function exitText(code: unknown): string {
  return typeof code === 'number' ? `, exit ${code}` : '';
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
