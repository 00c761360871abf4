// `piper-agent index`: builds (or refreshes from the ledger's cache) the code index of a
// repository and lists its entities, with the files that have syntax errors and the selectors that
// are defined more than once.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { IndexError } from '../../primitives/index/index-error.js';
import { repoRoot } from '../../runtime/host/git.js';
import { detectLanguage } from '../../runtime/language/detect-language.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { ledgerPath } from '../../runtime/ledger/location.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { maxOf } from '../../runtime/text/append.js';
import { inert, inertJson } from '../../runtime/text/inert.js';

export const INDEX_HELP = `Usage: piper-agent index [--repo DIR] [--json] [--ledger PATH]

Indexes every source file of the repository (default: the git root of the current directory) with
tree-sitter and lists its entities: modules, classes, functions and methods, each with its selector
(src/calc/ops.py class Calc method add → src.calc.ops.Calc.add), kind and line span. The language is
the repository's, from its root's project files (else its most numerous source files): Python, or
JavaScript/TypeScript (.ts, .tsx, .js and their kin; src/util/math.ts → src.util.math). Files git
ignores, virtual environments, build output and caches are skipped. The index is cached in the
ledger by file sha256, so a second run parses only what changed.

  --repo DIR     the repository to index
  --json         one JSON object: repo, ledger, stats, files, entities, duplicates
  --ledger PATH  the ledger file (default: PIPER_LEDGER, else the repository's own, in
                 ~/.local/state/piper-agent/ledgers/)`;

export async function indexCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      json: { type: 'boolean', default: false },
      ledger: { type: 'string' },
    },
  });
  const repo = values.repo === undefined ? repoRoot() : resolve(values.repo);
  if (!isDirectory(repo)) throw new UsageError(`--repo: ${repo} is not a directory`);
  const path = ledgerPath({ flag: values.ledger, repo });
  const ledger = Ledger.open(path);
  try {
    let index: CodeIndex;
    try {
      index = await CodeIndex.open(repo, ledger, { language: detectLanguage(repo).id });
    } catch (error) {
      if (!(error instanceof IndexError)) throw error;
      process.stderr.write(`piper-agent: ${inert(error.message)}\n`);
      if (error.fix) process.stderr.write(`  fix: ${inert(error.fix)}\n`);
      return EXIT.failure;
    }
    const stats = index.lastUpdate;
    const files = index.files();
    const entities = index.all();
    const duplicates = index.duplicates().map((d) => ({
      selector: d.selector,
      definitions: d.definitions.map((e) => ({ path: e.path, line: e.startLine })),
    }));

    if (values.json) {
      process.stdout.write(
        `${inertJson(JSON.stringify({ repo: index.root, ledger: path, stats, files, entities, duplicates }))}\n`,
      );
      return EXIT.ok;
    }
    printIndexText(index, { stats, files, entities, duplicates });
    return EXIT.ok;
  } finally {
    ledger.close();
  }
}

type IndexReport = {
  stats: CodeIndex['lastUpdate'];
  files: ReturnType<CodeIndex['files']>;
  entities: ReturnType<CodeIndex['all']>;
  duplicates: { selector: string; definitions: { path: string; line: number }[] }[];
};

/** The text form: one line per entity, then the syntax errors, the duplicates and a summary line. */
function printIndexText(index: CodeIndex, { stats, files, entities, duplicates }: IndexReport): void {
  const width = Math.min(
    60,
    maxOf(
      entities.map((e) => e.selector.length),
      8,
    ),
  );
  // Names and paths come from the repository: a file name can carry an OSC or CSI sequence.
  const write = (line: string) => process.stdout.write(`${inert(line)}\n`);
  for (const e of entities) {
    const shadowed = index.get(e.selector) !== e ? '  (shadowed by a later definition)' : '';
    write(
      `${e.selector.padEnd(width)}  ${e.kind.padEnd(8)}  ${e.path}:${e.startLine}-${e.endLine}${shadowed}`,
    );
  }
  for (const f of files.filter((f) => f.syntaxError)) {
    write(`syntax error: ${f.path} is indexed as far as it parses`);
  }
  for (const d of duplicates) {
    const where = d.definitions.map((x) => `${x.path}:${x.line}`).join(', ');
    write(`duplicate: ${d.selector} is defined ${d.definitions.length} times (${where}); the last wins`);
  }
  const syntax = files.filter((f) => f.syntaxError).length;
  process.stdout.write(
    `${stats.files} files (${stats.parsed} parsed, ${stats.cached} cached, ${stats.removed} removed, ` +
      `listed by ${stats.mode}), ${stats.entities} entities, ${syntax} with syntax errors, ` +
      `${duplicates.length} duplicate selectors, ${stats.ms} ms\n`,
  );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
