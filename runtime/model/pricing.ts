// Tokens and what they cost. Cost comes from a price table the user configures (prices change
// too often to ship): US dollars per million tokens, keyed by model name. A model missing from
// the table costs null — "unknown" — never zero and never a crash, so cost caps can tell the
// difference.
import { z } from 'zod';
import type { Usage } from './types.js';

const ModelPriceSchema = z.object({
  promptPerMillion: z.number().nonnegative(),
  completionPerMillion: z.number().nonnegative(),
});

/** The `prices` section of the config: `{ "<model name>": { promptPerMillion, completionPerMillion } }`. */
export const PriceTableSchema = z.record(z.string().min(1), ModelPriceSchema);

export type ModelPrice = z.infer<typeof ModelPriceSchema>;
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * The price of `model`: an exact key first, then the same name without a provider prefix
 * (`deepseek/deepseek-chat` → `deepseek-chat`), since routers report names both ways.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | null {
  return byModelName(table, model);
}

/** Any table keyed by model name (prices, sampling), looked up as priceOf does. */
export function byModelName<T>(table: Readonly<Record<string, T>>, model: string): T | null {
  if (Object.hasOwn(table, model)) return table[model] ?? null;
  const bare = model.slice(model.lastIndexOf('/') + 1);
  return bare !== model && Object.hasOwn(table, bare) ? (table[bare] ?? null) : null;
}

/**
 * Dollars for `usage`, or null when no name in `models` has a price. Rounded to 1e-10 USD so
 * that sums of decimal prices come out as the decimal a person computes by hand.
 */
export function costUsd(table: PriceTable, models: readonly string[], usage: Usage): number | null {
  for (const model of models) {
    const price = priceOf(table, model);
    if (!price) continue;
    const dollars =
      (usage.promptTokens * price.promptPerMillion + usage.completionTokens * price.completionPerMillion) /
      1e6;
    return Math.round(dollars * 1e10) / 1e10;
  }
  return null;
}

/**
 * A rough token count (4 characters a token, rounded up) for replies that carry no usage (servers
 * that omit it, the script model) and for the prompt's own size estimate. Real tokenizers differ by
 * model (often 3–4.5 characters a token for English and code); rough on purpose: it keeps token caps
 * meaningful and compares prompts, never bills or enforces a model's context limit.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
