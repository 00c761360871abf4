// How often the symbol trigger fired in an A/B instance, and how often it found nothing. The spec's
// symbol regex is exact and stays (docs/policy.md, "Triggers"); it also fires on file names
// (`core.py`) and attribute words (`help.split`), and each search costs prompt lines. These counts,
// per instance and per arm in the report, are the data the §9 ablation needs to decide on a filter.
// Read from the run's ledger rows: a trigger's search_symbol call and its `{query, matches}` row.
import type { Arm } from './metrics.js';
import { symbolObservationSchema } from '../../policy/triggers.js';
import { searchSymbolTool } from '../../primitives/tools/search-symbol/tool.js';
import type { CallRow } from '../../runtime/ledger/call-row.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import type { ObservationRow } from '../../runtime/ledger/observation-row.js';
import { callsOf, observationsOf } from '../../runtime/ledger/turns.js';

export interface SymbolTriggerCount {
  /** search_symbol calls the symbol trigger made. */
  fired: number;
  /** Of those, the ones whose search returned no match (or failed). */
  zero_matches: number;
  /** The queries that found nothing, in order: what a filter would have skipped. */
  zero_match_queries: string[];
}

/** Counts one run's symbol trigger calls and those with zero matches. Pure: rows in, counts out. */
export function countSymbolTriggers(
  calls: ReadonlyArray<Pick<CallRow, 'id' | 'origin' | 'tool'>>,
  observations: ReadonlyArray<Pick<ObservationRow, 'call_id' | 'result'>>,
): SymbolTriggerCount {
  const triggerCalls = new Set(
    calls.filter((c) => c.origin === 'trigger' && c.tool === searchSymbolTool.name).map((c) => c.id),
  );
  const count: SymbolTriggerCount = { fired: 0, zero_matches: 0, zero_match_queries: [] };
  for (const o of observations) {
    if (o.call_id === null || !triggerCalls.has(o.call_id)) continue;
    count.fired++;
    const stored = symbolObservationSchema.safeParse(safeJson(o.result));
    // A result without the trigger's shape found nothing the model could use.
    if (stored.success && stored.data.matches.length > 0) continue;
    count.zero_matches++;
    if (stored.success) count.zero_match_queries.push(stored.data.query);
  }
  return count;
}

export function symbolTriggersOfRun(ledger: Ledger, runId: string): SymbolTriggerCount {
  return countSymbolTriggers(callsOf(ledger, runId), observationsOf(ledger, runId));
}

/** Per arm: the counts summed over its instances. */
export function symbolTriggersByArm(
  instances: ReadonlyArray<{ arm: Arm; symbol_triggers: SymbolTriggerCount }>,
  arms: readonly Arm[],
): Partial<Record<Arm, { instances: number; fired: number; zero_matches: number }>> {
  const out: Partial<Record<Arm, { instances: number; fired: number; zero_matches: number }>> = {};
  for (const arm of arms) {
    const mine = instances.filter((i) => i.arm === arm);
    out[arm] = {
      instances: mine.length,
      fired: mine.reduce((s, i) => s + i.symbol_triggers.fired, 0),
      zero_matches: mine.reduce((s, i) => s + i.symbol_triggers.zero_matches, 0),
    };
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
