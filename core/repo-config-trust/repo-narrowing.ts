// What a repository's own .piper/config.json may change without the user's trust: it may only
// narrow. The repository is untrusted input (someone else may have written it), so a key that would
// send the user's credentials or code elsewhere, swap the sandbox image or runtime, move the ledger,
// or loosen a cap is set aside until the user trusts that file. Pure: the caller reads the files.
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { priceOf, type PriceTable } from '../../runtime/model/pricing.js';
import { DEFAULT_SUITE_TIMEOUT_S } from '../../policy/regression/suite-report.js';
import type { Config, ConfigKey } from '../config-schema.js';

/** A repository key left out until the user trusts the file, with why it needs trust. */
export interface IgnoredKey {
  key: ConfigKey;
  value: unknown;
  reason: string;
}

export interface NarrowingContext {
  /** The configuration below the repository layer: defaults and the user's file. */
  base: Config;
  /** Keys the environment or a flag sets: the repository's value would not count anyway. */
  overridden: ReadonlySet<ConfigKey>;
  /** The cost cap the run will have, from whichever layer sets it (null: none). */
  costCap: (accepted: Config) => number | null;
  repoRoot: string;
  /** Where a relative `script:` model path is resolved (the process's working directory). */
  cwd: string;
}

/** Keys that point piper-agent at something else: never taken from an untrusted repository. */
const MOVES: Partial<Record<ConfigKey, string>> = {
  apiKey: 'sets the API key',
  baseUrl: 'moves the model endpoint (your API key and prompts would go there)',
  image: 'changes the sandbox image',
  ledger: 'moves the ledger',
  // Every search_code and tool retrieval would then embed code on the user's key, outside the cost cap.
  embedModel: 'chooses the embeddings model (its calls are billed to your API key)',
  // runsc → runc would loosen the sandbox; which runtime isolates more is not for the repository to say.
  sandboxRuntime: 'changes the sandbox runtime',
};

const CAPS = ['maxTurns', 'maxCostUsd', 'maxTokens', 'maxWallS'] as const satisfies readonly ConfigKey[];

/** Splits the repository layer into what applies untrusted and what needs trust. */
export function narrowRepoLayer(
  repo: Config,
  ctx: NarrowingContext,
): { accepted: Config; ignored: IgnoredKey[] } {
  const accepted: Record<string, unknown> = {};
  const ignored: IgnoredKey[] = [];
  const decide = (key: ConfigKey, reason: string | null) => {
    if (reason === null) accepted[key] = repo[key];
    else ignored.push({ key, value: repo[key], reason });
  };
  // Caps and prices first: whether a model name weakens the cost cap depends on them.
  const keys = (Object.keys(repo) as ConfigKey[]).sort(
    (a, b) => Number(a === 'model') - Number(b === 'model'),
  );
  for (const key of keys) {
    const value = repo[key];
    if (value === undefined) continue;
    if (ctx.overridden.has(key) || isDeepStrictEqual(value, ctx.base[key])) {
      decide(key, null);
      continue;
    }
    decide(key, needsTrust(key, repo, accepted as Config, ctx));
  }
  return { accepted: accepted as Config, ignored };
}

function needsTrust(key: ConfigKey, repo: Config, accepted: Config, ctx: NarrowingContext): string | null {
  const moves = MOVES[key];
  if (moves) return moves;
  if ((CAPS as readonly ConfigKey[]).includes(key)) {
    const value = repo[key] as number;
    const limit = ctx.base[key] as number | undefined;
    return limit === undefined || value <= limit ? null : `raises ${key} from ${limit} to ${value}`;
  }
  // A shorter suite budget checks less of the project (0 turns the regression gate off).
  if (key === 'suiteTimeoutS' && repo.suiteTimeoutS! < (ctx.base.suiteTimeoutS ?? DEFAULT_SUITE_TIMEOUT_S))
    return `lowers suiteTimeoutS to ${repo.suiteTimeoutS} (less of the project's suite would be checked)`;
  if (key === 'prices') return weakenedPrices(ctx.base.prices ?? {}, repo.prices ?? {});
  if (key === 'approval') return loosenedApproval(repo.approval!, ctx.base.approval);
  if (key === 'model') return modelNeedsTrust(repo.model!, accepted, ctx);
  // debian only narrows (no index is asked); index where you said debian sends requests you turned off.
  if (key === 'sources' && repo.sources === 'index' && ctx.base.sources === 'debian')
    return 'asks the package index, which your sources: debian turned off';
  return null; // policy, output, test: what to run and how to show it, all inside the sandbox
}

/** Strictest first: a repository may ask for more approval, never for less. */
const APPROVAL_STRICTNESS = ['read-only', 'ask', 'auto'] as const;

/**
 * The repository's approval mode needs trust when it is looser than the user's (or, with none set,
 * than `ask`, the default where there is someone to ask): `auto` would write edits unseen.
 */
function loosenedApproval(repo: NonNullable<Config['approval']>, user: Config['approval']): string | null {
  const base = user ?? 'ask';
  return APPROVAL_STRICTNESS.indexOf(repo) > APPROVAL_STRICTNESS.indexOf(base)
    ? `loosens approval from ${base} to ${repo} (edits would be written without asking you)`
    : null;
}

/** A price the user set that the repository's table lowers or drops (the cost cap would fire later or never). */
function weakenedPrices(user: PriceTable, repo: PriceTable): string | null {
  for (const [model, price] of Object.entries(user)) {
    const theirs = Object.hasOwn(repo, model) ? repo[model] : undefined;
    if (!theirs) return `drops your price for ${model} (the cost cap could not count it)`;
    if (
      theirs.promptPerMillion < price.promptPerMillion ||
      theirs.completionPerMillion < price.completionPerMillion
    )
      return `lowers your price for ${model} (the cost cap would fire later)`;
  }
  return null;
}

/**
 * A model name is harmless while it goes to the user's endpoint with the user's key under the
 * user's caps. It needs trust when it replays a script from outside the repository (any file on the
 * machine as the model's words), or when a cost cap is set and the model has no price where the
 * user's had one (an unpriced model's cost is unknown, so the cap could never fire).
 */
function modelNeedsTrust(spec: string, accepted: Config, ctx: NarrowingContext): string | null {
  const colon = spec.indexOf(':');
  const scheme = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1).trim();
  if (scheme === 'script') {
    const file = isAbsolute(rest) ? rest : resolve(ctx.cwd, rest);
    return insideRepo(file, ctx.repoRoot) ? null : 'replays a model script from outside the repository';
  }
  if (ctx.costCap(accepted) === null) return null;
  const prices = accepted.prices ?? ctx.base.prices ?? {};
  const priced = (name: string | undefined) => {
    if (name === undefined) return true;
    const c = name.indexOf(':');
    return priceOf(prices, c < 0 ? name : name.slice(c + 1).trim()) !== null;
  };
  return !priced(spec) && priced(ctx.base.model)
    ? 'names a model with no price, so the cost cap could not fire'
    : null;
}

function insideRepo(file: string, repoRoot: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  const rel = relative(real(repoRoot), real(file));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
