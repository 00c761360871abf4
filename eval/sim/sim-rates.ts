// The simulated model's documented constants (see sim-model.ts): its weak-model rates, its fixed
// price, and the task it is given. Kept apart so the plan and the model read the same numbers.

/** The weak-model rates, each a probability per the unit named. */
export const SIM_RATES = {
  /** Per call: the reply is malformed JSON (cut short) — a no-op turn. */
  malformedJson: 0.05,
  /** Per call: the reply names a tool that does not exist (bash, grep, open_file) — rejected in both arms. */
  unknownTool: 0.05,
  /** Per well-specified instance: the first action is ask_user although the issue is clear. */
  askWhenUnneeded: 0.05,
  /** Per underspecified instance: asks first, when the system prompt does not encourage asking. */
  askUnderspecified: 0.5,
  /** Same, when the system prompt says ask_user/stop are valid and encouraged (the policy preamble). */
  askUnderspecifiedEncouraged: 0.8,
  /** Per underspecified instance that does not ask: guesses the intended behaviour right. */
  guessRight: 0.5,
  /** Per instance: the first search uses words of the issue title instead of the entity's name. */
  wrongSearch: 0.25,
  /** Per instance: the first action is edit_entity, before any read or search of the entity. */
  editBeforeRead: 0.4,
  /** Per blind edit: the search string is mis-remembered (whitespace/quotes), so it is not found. */
  blindSearchWrong: 0.25,
  /** Per edit attempt made without having read the entity: the edit is wrong (adds a comment, fixes nothing). */
  wrongEditBlind: 0.7,
  /** Per edit attempt made after reading the entity: the edit is wrong. */
  wrongEditInformed: 0.1,
  /** Per instance: stops right after its first committed edit, without testing. */
  prematureStop: 0.35,
} as const;

/** The fixed simulated price, USD per million tokens (a DeepSeek-like list price; only ratios matter). */
export const SIM_PRICE = { promptPerMillion: 0.27, completionPerMillion: 1.1 } as const;

/** After this many edits of one entity that did not apply, the simulated model stops. */
export const SIM_EDIT_ATTEMPTS = 3;

/** Past this many calls the simulated model gives up and stops. */
export const SIM_MAX_CALLS = 24;

export interface SimEdit {
  selector: string;
  search: string;
  replace: string;
  /** The text before `search` on its first line in the original file (a wrong edit keeps the line whole). */
  linePrefix?: string;
}

export interface SimTask {
  id: string;
  underspecified: boolean;
  repro: string;
  goldLabels: readonly string[];
  goldEdits: readonly SimEdit[];
}
