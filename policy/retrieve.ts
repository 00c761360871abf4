// Retrieval, docs/policy.md, "Retrieval": which tools the selection prompt presents this
// turn. Primary: the static relevance map. Each tool scores the number of its keywords found as a
// case-insensitive substring of `issue_text + " " + latest_observation`; tools scoring ≥ 1 are kept,
// ranked by score then registry order; none → the default 4 observe-only tools; at most 5, with a
// `truncated` flag. Optional (`RETRIEVE=embed`, off by default): cosine similarity between the same
// text and each tool's description + keywords, through an injected embedder; if the embedder fails,
// the map answers and a note says why. The caller reads the environment; this module does not.
import { TOOL_NAMES, toolDeclaration, type ToolName } from './registry.js';
import { cosine } from '../primitives/search/cosine.js';
import { toolDefinition } from '../primitives/tools/all-tools.js';

const RETRIEVAL_CAP = 5;

/** The observe-only set presented when no keyword matches (each tool's declaration says if it is in it). */
export const DEFAULT_TOOLS: readonly ToolName[] = TOOL_NAMES.filter(
  (tool) => toolDefinition(tool).presentedByDefault,
);

export type RetrievalMode = 'map' | 'embed';

/** Structurally the same embedder the search primitives and runtime/model/embeddings.ts use. */
export interface Embedder {
  embed(texts: string[]): Promise<number[][]>;
}

export interface RetrievalInput {
  issueText: string;
  /** The latest observation as the model will see it; '' before the first one. */
  latestObservation: string;
}

export interface Retrieval {
  /** The presented tools, best first; never more than RETRIEVAL_CAP. */
  tools: ToolName[];
  /** True when more tools qualified than the cap let through. */
  truncated: boolean;
  /**
   * `map`: keyword scores; `default`: nothing scored, the default 4; `embed`: cosine ranking; `all`:
   * no ranking (the embed branch with its map fallback switched off, for the ablation rule).
   */
  source: 'map' | 'default' | 'embed' | 'all';
  /** Every tool's score in registry order (keyword count, or cosine for `embed`), for the ledger. */
  scores: Array<{ tool: ToolName; score: number }>;
  /** Set when the embed mode fell back to the map (or, without the fallback, to every tool). */
  note?: string;
}

/** The text retrieval scores against, exactly as the spec writes it. */
function retrievalText(input: RetrievalInput): string {
  return `${input.issueText} ${input.latestObservation}`;
}

/** The static relevance map. Pure and synchronous. */
export function retrieveByMap(input: RetrievalInput): Retrieval {
  const text = retrievalText(input).toLowerCase();
  const scores = TOOL_NAMES.map((tool) => ({
    tool,
    score: toolDeclaration(tool).keywords.filter((keyword) => text.includes(keyword.toLowerCase())).length,
  }));
  const kept = scores.filter((entry) => entry.score >= 1);
  if (kept.length === 0) return { tools: [...DEFAULT_TOOLS], truncated: false, source: 'default', scores };
  // Array.prototype.sort is stable, so equal scores keep registry order.
  const ranked = [...kept].sort((a, b) => b.score - a.score).map((entry) => entry.tool);
  return {
    tools: ranked.slice(0, RETRIEVAL_CAP),
    truncated: ranked.length > RETRIEVAL_CAP,
    source: 'map',
    scores,
  };
}

export interface RetrieveOptions {
  mode?: RetrievalMode;
  /** Required for mode `embed`; without one the map answers, with a note. */
  embedder?: Embedder;
  /**
   * The embed branch's fallback to the map (default on). Off (gate `retrieval_embed_fallback`
   * ablated): when the embedder is missing or fails, every tool is presented unranked instead.
   */
  mapFallback?: boolean;
}

/** Retrieval in the configured mode; `map` unless `embed` is asked for. Never rejects. */
export async function retrieveTools(
  input: RetrievalInput,
  options: RetrieveOptions = {},
): Promise<Retrieval> {
  if (options.mode !== 'embed') return retrieveByMap(input);
  const fallback = (why: string): Retrieval =>
    options.mapFallback === false
      ? { ...allTools(), note: `${why}; the map fallback is off, so every tool is presented` }
      : { ...retrieveByMap(input), note: `${why}; used the keyword map` };
  if (!options.embedder) return fallback('RETRIEVE=embed without an embedder');
  // Nothing to embed: the map's default set answers (not a fallback from a failure).
  if (retrievalText(input).trim() === '') return retrieveByMap(input);
  try {
    return await retrieveByEmbedding(input, options.embedder);
  } catch (error) {
    return fallback(`embedding retrieval failed (${(error as Error).message})`);
  }
}

/** Every tool in registry order, unranked: what the baseline presents, and retrieval switched off. */
export function allTools(): Retrieval {
  return { tools: [...TOOL_NAMES], truncated: false, source: 'all', scores: [] };
}

/** The text each tool is embedded as: its description and keywords (section 4.2). */
export function toolDocument(tool: ToolName): string {
  const declaration = toolDeclaration(tool);
  return `${declaration.description} ${declaration.keywords.join(' ')}`;
}

// Tool documents never change, so their vectors are computed once per embedder.
const toolVectors = new WeakMap<Embedder, Promise<number[][]>>();

async function retrieveByEmbedding(input: RetrievalInput, embedder: Embedder): Promise<Retrieval> {
  let documents = toolVectors.get(embedder);
  if (!documents) {
    documents = embedder.embed(TOOL_NAMES.map(toolDocument));
    toolVectors.set(embedder, documents);
    documents.catch(() => toolVectors.delete(embedder));
  }
  const [docs, [query]] = await Promise.all([documents, embedder.embed([retrievalText(input)])]);
  if (docs.length !== TOOL_NAMES.length || !query) {
    throw new Error(`the embedder returned ${docs.length} tool vectors and ${query ? 1 : 0} query vectors`);
  }
  const scores = TOOL_NAMES.map((tool, i) => ({ tool, score: cosine(query, docs[i]!) }));
  const ranked = [...scores].sort((a, b) => b.score - a.score).map((entry) => entry.tool);
  return {
    tools: ranked.slice(0, RETRIEVAL_CAP),
    truncated: ranked.length > RETRIEVAL_CAP,
    source: 'embed',
    scores,
  };
}
