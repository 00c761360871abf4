// Sampling as configuration: the temperature and the completion-token limit of the selection
// step. The policy's greedy default (temperature 0, 256 tokens) is the caller's to pass in; the
// config may change either for every model or per model, keyed by model name as `prices` is:
//   "sampling": { "temperature": 0, "maxCompletionTokens": 256,
//                 "models": { "o4-mini": { "temperature": "none", "maxCompletionTokens": 1024 } } }
// A temperature of null or "none" means the request carries none (some models refuse any but
// their own).
import { z } from 'zod';
import { byModelName } from './pricing.js';

const TemperatureSchema = z
  .union([z.number().min(0).max(2), z.null(), z.literal('none')])
  .transform((t) => (t === 'none' ? null : t));

const SamplingEntrySchema = z
  .object({
    temperature: TemperatureSchema.optional(),
    maxCompletionTokens: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict();

/** The global keys, and `models`: entries by model name that override them. */
export const SamplingConfigSchema = SamplingEntrySchema.extend({
  models: z.record(z.string().min(1), SamplingEntrySchema).optional(),
}).strict();

export type SamplingConfig = z.output<typeof SamplingConfigSchema>;

/** What one request is sent with. */
export interface Sampling {
  /** null: no temperature in the request. */
  temperature: number | null;
  maxTokens: number;
}

/**
 * The sampling in force for `modelName` (the name the server knows, without a scheme): the
 * model's own entry (exact name, then without a provider prefix, as prices are found), then the
 * global keys, then `defaults`.
 */
export function samplingFor(
  config: SamplingConfig | undefined,
  modelName: string,
  defaults: Sampling,
): Sampling {
  const { temperature, maxCompletionTokens, models } = config ?? {};
  const own = byModelName(models ?? {}, modelName) ?? {};
  const pick = <T>(mine: T | undefined, global: T | undefined, fallback: T): T =>
    mine !== undefined ? mine : global !== undefined ? global : fallback;
  return {
    temperature: pick(own.temperature, temperature, defaults.temperature),
    maxTokens: pick(own.maxCompletionTokens, maxCompletionTokens, defaults.maxTokens),
  };
}
