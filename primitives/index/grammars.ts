// The tree-sitter grammars of each language profile (runtime/language/language.ts), as WASM through
// web-tree-sitter like the Python one. A JavaScript/TypeScript repository needs three: TypeScript,
// TSX (TypeScript with JSX) and JavaScript (which parses JSX and stays free of TypeScript's
// ambiguities, `<T>x` casts against JSX), chosen by each file's ending.
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import type { LanguageId } from '../../runtime/language/language.js';
import { IndexError } from './index-error.js';
import { INDEXER_VERSION, pythonParser } from './python-parser.js';

const require = createRequire(import.meta.url);

type ScriptGrammar = 'typescript' | 'tsx' | 'javascript';

// Literal specifiers, so the bundler and the unused-dependency check see each package used.
const WASM: Record<ScriptGrammar, () => string> = {
  typescript: () => require.resolve('tree-sitter-typescript/tree-sitter-typescript.wasm'),
  tsx: () => require.resolve('tree-sitter-typescript/tree-sitter-tsx.wasm'),
  javascript: () => require.resolve('tree-sitter-javascript/tree-sitter-javascript.wasm'),
};

/**
 * Version of each language's extractor and grammars: a stored file row of another version is
 * parsed again, so a cached index of one language or grammar is never read as another's.
 */
export function indexerVersion(language: LanguageId): string {
  return language === 'python'
    ? INDEXER_VERSION
    : 'tree-sitter-typescript@0.23.2+tree-sitter-javascript@0.25.0/extract-js-4';
}

/** The grammar a JavaScript/TypeScript file is parsed with, by its ending. */
function scriptGrammarOf(path: string): ScriptGrammar {
  if (/\.[cm]?ts$/.test(path)) return 'typescript';
  if (path.endsWith('.tsx')) return 'tsx';
  return 'javascript';
}

/** The parsers of one language: which one reads a given file. */
export interface SourceParsers {
  language: LanguageId;
  forPath(path: string): Parser;
}

const loading = new Map<LanguageId, Promise<SourceParsers>>();

/** The language's parsers, loaded once per process (a failed load is retried by the next caller). */
export function sourceParsers(language: LanguageId): Promise<SourceParsers> {
  let pending = loading.get(language);
  if (!pending) {
    pending = language === 'python' ? pythonParsers() : scriptParsers();
    loading.set(language, pending);
    pending.catch(() => loading.delete(language));
  }
  return pending;
}

async function pythonParsers(): Promise<SourceParsers> {
  const parser = await pythonParser();
  return { language: 'python', forPath: () => parser };
}

async function scriptParsers(): Promise<SourceParsers> {
  try {
    await Parser.init();
    const parsers = {} as Record<ScriptGrammar, Parser>;
    for (const grammar of Object.keys(WASM) as ScriptGrammar[]) {
      const parser = new Parser();
      parser.setLanguage(await Language.load(WASM[grammar]()));
      parsers[grammar] = parser;
    }
    return { language: 'javascript', forPath: (path) => parsers[scriptGrammarOf(path)] };
  } catch (error) {
    throw new IndexError(
      'grammar_unavailable',
      `cannot load the TypeScript/JavaScript grammars for tree-sitter: ${(error as Error).message}`,
      'reinstall the dependencies (npm ci): tree-sitter-typescript and tree-sitter-javascript ship the WASM files',
      { cause: error },
    );
  }
}
