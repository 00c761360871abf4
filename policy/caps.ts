// The loop's caps, checked in one place before every turn (docs/policy.md, "Caps and outcomes": a
// cap hit is a deterministic halt, never a prompt). No-op turns count toward the turn cap.
export interface Budget {
  maxTurns: number;
  maxTokens?: number | null;
  maxCostUsd?: number | null;
  maxWallS?: number | null;
}

export interface Spent {
  turns: number;
  tokens: number;
  costUsd: number | null;
  wallS: number;
}

/** The reason the loop must halt now, or null. */
export function capReached(budget: Budget, spent: Spent): string | null {
  if (spent.turns >= budget.maxTurns) return `turn cap: ${spent.turns} of ${budget.maxTurns} turns used`;
  if (budget.maxTokens != null && spent.tokens >= budget.maxTokens) {
    return `token cap: ${spent.tokens} of ${budget.maxTokens} tokens used`;
  }
  if (budget.maxCostUsd != null && spent.costUsd !== null && spent.costUsd >= budget.maxCostUsd) {
    return `cost cap: $${spent.costUsd.toFixed(4)} of $${budget.maxCostUsd} spent`;
  }
  if (budget.maxWallS != null && spent.wallS >= budget.maxWallS) {
    return `time cap: ${Math.round(spent.wallS)} s of ${budget.maxWallS} s`;
  }
  return null;
}
