// read_entity (docs/policy.md, "The tool registry"): an entity's signature and, on request, at most
// `window` lines of its source, with a note when cut. The file is checked against the index first,
// so a span never points into a file that changed since it was parsed.
import { readRepoFile } from '../../../runtime/host/inside-repo.js';
import { decodeSource } from '../../index/byte-offsets.js';
import { citeEvidence, intArg, type ReadContext } from '../../read-context.js';
import { FUZZY_LAST_TOKEN_ONLY, rankSymbols } from '../search-symbol/tool.js';
import type { ReadEntityResult } from '../../results/read-results.js';
import type { Entity, Envelope } from '../../types.js';

export interface ReadEntityArgs {
  selector: string;
  /** Include the source (default false). */
  body?: boolean;
  /** At most this many lines of source, 1..100 (default 100). */
  window?: number;
}

export async function readEntity(
  ctx: ReadContext,
  args: ReadEntityArgs,
): Promise<Envelope<ReadEntityResult>> {
  const fail = (error: string) => ({ ok: false, error, data: null });
  if (typeof args.selector !== 'string' || args.selector.trim() === '') {
    return fail('invalid arg: selector (expected a non-empty str)');
  }
  // The import form (`click.core.X` in a src layout) names the entity too; from here on, and in
  // the evidence this read records, the selector is the one the index has.
  const selector = ctx.index.resolve(args.selector) ?? args.selector;
  const window = args.window ?? 100;
  const windowError = intArg('window', window, 1, 100);
  if (windowError) return fail(windowError);
  if (args.body !== undefined && typeof args.body !== 'boolean')
    return fail('invalid arg: body (expected bool)');

  const indexed = ctx.index.get(selector);
  if (!indexed) return fail(unknownSelector(ctx, selector));
  await ctx.index.refresh([indexed.path]);
  const entity = ctx.index.get(selector);
  if (!entity) {
    return fail(`unknown selector ${selector}: ${indexed.path} changed on disk and no longer defines it`);
  }

  let body: string | null = null;
  if (args.body) {
    // Only a regular file whose real path is inside the repository (a directory link can move it).
    const bytes = readRepoFile(ctx.index.root, entity.path);
    if (!Buffer.isBuffer(bytes)) return fail(`cannot read ${entity.path}: ${bytes.error}`);
    body = windowed(sourceLines(bytes, entity), window);
  }
  const evidenceError = citeEvidence(ctx, [selector]);
  if (evidenceError) return fail(evidenceError);
  const data: ReadEntityResult = { entity, body };
  const count = ctx.index.definitionCount(selector);
  if (count > 1) {
    // Python binds the last definition; in JavaScript/TypeScript a getter and its setter share a name, both live.
    const binds = entity.path.endsWith('.py') ? ', the one Python binds' : '';
    data.note = `${selector} is defined ${count} times; this is the last definition (line ${entity.startLine} of ${entity.path})${binds}`;
  }
  return { ok: true, error: null, data };
}

function sourceLines(bytes: Buffer, entity: Entity): string[] {
  const lines = decodeSource(bytes).text.split('\n');
  return lines
    .slice(entity.startLine - 1, entity.endLine)
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

function windowed(lines: string[], window: number): string {
  if (lines.length <= window) return lines.join('\n');
  return `${lines.slice(0, window).join('\n')}\n... [cut: ${window} of ${lines.length} lines shown]`;
}

/** The error names the selector and, when the index has near ones, up to three of them. */
function unknownSelector(ctx: ReadContext, selector: string): string {
  // Only the best-ranked group, and never a fuzzy match that shares nothing but the last token: a
  // near miss of `Calc.ad` is `Calc.add`, not every name holding "ad".
  const ranked = rankSymbols(ctx.index.visible(), selector).filter((r) => r.rank < FUZZY_LAST_TOKEN_ONLY);
  const near = ranked
    .filter((r) => r.rank === ranked[0]!.rank)
    .slice(0, 3)
    .map((r) => r.entity.selector);
  const hint =
    near.length > 0 ? `; did you mean ${near.join(', ')}?` : '; search_symbol finds selectors by name';
  return `unknown selector ${selector}: no entity in the index has it${hint}`;
}
