// The selection step's default sampling, in a module of its own: a run records it before its first
// event, and importing it must not load the prompt builder and the tool registry's schemas.

/** Sampling for the selection step: greedy, short (docs/policy.md). */
export const SELECTION_SAMPLING = { temperature: 0, maxTokens: 256 } as const;
