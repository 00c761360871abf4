// The Python grammar through web-tree-sitter (WASM: no native build step). Both WASM files are
// found through Node's module resolution, so the index works from sources, dist/ and an installed
// package alike. The runtime is initialised once per process; parsing itself is synchronous.
import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import { IndexError } from './index-error.js';

const require = createRequire(import.meta.url);

let loading: Promise<Parser> | undefined;

/** The shared parser, loaded on first use. */
export function pythonParser(): Promise<Parser> {
  if (!loading) {
    loading = (async () => {
      try {
        await Parser.init();
        const language = await Language.load(require.resolve('tree-sitter-python/tree-sitter-python.wasm'));
        const parser = new Parser();
        parser.setLanguage(language);
        return parser;
      } catch (error) {
        throw new IndexError(
          'grammar_unavailable',
          `cannot load the Python grammar for tree-sitter: ${(error as Error).message}`,
          'reinstall the dependencies (npm ci): web-tree-sitter and tree-sitter-python ship the WASM files',
          { cause: error },
        );
      }
    })();
    // A failed load is retried by the next caller, not cached forever.
    loading.catch(() => (loading = undefined));
  }
  return loading;
}

/** Parses `text`; the caller must `delete()` the tree (it lives in WASM memory). */
export function parseWith(parser: Parser, text: string): Tree {
  const tree = parser.parse(text);
  if (!tree) throw new Error('tree-sitter returned no tree (the parser has no language)');
  return tree;
}

/** Version of the extractor: bump when the rows it produces change, so caches are rebuilt. */
export const INDEXER_VERSION = 'tree-sitter-python@0.25.0/extract-1';
