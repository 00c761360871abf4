// The keys a configuration may set and their shapes: one schema for every layer (the user's file, the
// repository's, the environment, the flags). Apart from core/config.ts, which composes the layers, so
// that what narrows a layer (repo-config-trust/) reads the shape without the composition.
import { z } from 'zod';
import { APPROVAL_MODES } from '../policy/approval.js';
import { PriceTableSchema } from '../runtime/model/pricing.js';
import { SamplingConfigSchema } from '../runtime/model/sampling.js';
import { ENV_SOURCES } from '../runtime/env/plan/types.js';

export const ConfigSchema = z
  .object({
    model: z.string().min(1),
    baseUrl: z.string().url(),
    apiKey: z.string().min(1),
    policy: z.enum(['policy', 'current']),
    maxTurns: z.number().int().min(1).max(500),
    maxCostUsd: z.number().min(0),
    maxTokens: z.number().int().min(1),
    maxWallS: z.number().min(1),
    /** Seconds the project's suite may take in the regression gate; over it only the affected files run; 0: no gate. */
    suiteTimeoutS: z.number().int().min(0).max(86400),
    output: z.enum(['text', 'json', 'stream-json']),
    image: z.string().min(1),
    test: z.string().min(1),
    ledger: z.string().min(1),
    /** The OCI runtime sandbox containers run under (`runsc`: gVisor); default the engine's. */
    sandboxRuntime: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a runtime name such as runsc'),
    /**
     * Where a project environment's packages come from: index (default: pip from the index, Debian's
     * packages for what it does not give, Debian's alone when it does not answer) or debian (never the index).
     */
    sources: z.enum(ENV_SOURCES),
    /** Who decides whether an edit is written: ask (TUI default), auto (headless default), read-only. */
    approval: z.enum(APPROVAL_MODES),
    /** USD per million tokens, by model name: { "deepseek-chat": { "promptPerMillion": 0.27, "completionPerMillion": 1.1 } }. */
    prices: PriceTableSchema,
    /** search_code and the policy arm's tool retrieval: lexical (default) or dense over embeddings. */
    retrieve: z.enum(['lexical', 'embed']),
    /** The embeddings model on the same OpenAI-compatible endpoint that `retrieve: embed` uses. */
    embedModel: z.string().min(1),
    /** The symbol trigger also takes bare CamelCase words (off by default: the weaker signal). */
    symbolCamel: z.boolean(),
    /** The selection step's temperature (null / "none": not sent) and completion-token limit, globally and by model name. */
    sampling: SamplingConfigSchema,
  })
  .partial()
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigKey = keyof Config;
