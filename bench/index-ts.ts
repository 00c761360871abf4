// node dist/bench/index-ts.js [--json] [--files N] [--rounds N]
// The code index of a TypeScript repository against the Python one's, time per file: two generated
// repositories of the same shape (bench/index-repo.ts: N files each, default 1,000, in a temp dir
// outside git, so files are listed by a walk), each indexed in full (CodeIndex.open on an empty
// ledger file: list, read, hash, parse, store) with its language's profile and the default parse
// threads, interleaved round by round, which language goes first alternating. Reported: the p50 of
// each (wall and CPU time), per file and per entity, and TypeScript over Python. Each grammar's WASM
// load is timed once on its own, before the rounds. The table goes to stderr; --json prints one
// JSON object on stdout.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CodeIndex } from '../primitives/index/code-index.js';
import { sourceParsers } from '../primitives/index/grammars.js';
import { defaultParseThreads } from '../primitives/index/parse-pool.js';
import type { LanguageId } from '../runtime/language/language.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { generateRepo, generateTsRepo, prng } from './index-repo.js';
import { percentile, printTable } from './stats.js';

const LANGUAGES = ['python', 'javascript'] as const satisfies readonly LanguageId[];
type Lang = (typeof LANGUAGES)[number];

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

interface Samples {
  wallMs: number[];
  cpuMs: number[];
  entities: number;
}

/** One full index of `repo` on a new ledger: wall and CPU time (every thread's), and its entities. */
async function fullIndex(repo: string, ledgerFile: string, language: Lang) {
  const ledger = Ledger.open(ledgerFile);
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const index = await CodeIndex.open(repo, ledger, { language });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, entities: index.all().length };
  } finally {
    ledger.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      files: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '5' },
    },
  });
  const [files, rounds] = [Number(values.files), Number(values.rounds)];
  const dir = mkdtempSync(join(tmpdir(), 'piper-bench-index-ts-'));
  try {
    const repos = { python: join(dir, 'py'), javascript: join(dir, 'ts') };
    const made = {
      python: generateRepo(repos.python, files, prng(42)),
      javascript: generateTsRepo(repos.javascript, files, prng(42)),
    };
    const loadMs = {} as Record<Lang, number>;
    for (const language of LANGUAGES) {
      const t0 = performance.now();
      await sourceParsers(language);
      loadMs[language] = performance.now() - t0;
    }
    const samples: Record<Lang, Samples> = {
      python: { wallMs: [], cpuMs: [], entities: 0 },
      javascript: { wallMs: [], cpuMs: [], entities: 0 },
    };
    // One unmeasured index of each first: the page cache, the worker threads' first compile.
    for (const language of LANGUAGES)
      await fullIndex(repos[language], join(dir, `warm-${language}.db`), language);
    for (let r = 0; r < rounds; r++) {
      const order: readonly Lang[] = r % 2 === 0 ? LANGUAGES : [...LANGUAGES].reverse();
      for (const language of order) {
        const s = await fullIndex(repos[language], join(dir, `${language}-${r}.db`), language);
        samples[language].wallMs.push(s.wallMs);
        samples[language].cpuMs.push(s.cpuMs);
        samples[language].entities = s.entities;
      }
      process.stderr.write(`\rround ${r + 1}/${rounds}`);
    }
    process.stderr.write('\n');
    const result = resultOf(files, rounds, made, loadMs, samples);
    printResult(result);
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function resultOf(
  files: number,
  rounds: number,
  made: Record<Lang, { paths: string[]; lines: number }>,
  loadMs: Record<Lang, number>,
  samples: Record<Lang, Samples>,
) {
  const side = (language: Lang) => {
    const s = samples[language];
    const wall = percentile(s.wallMs, 50);
    const count = made[language].paths.length;
    return {
      files: count,
      lines: made[language].lines,
      entities: s.entities,
      grammar_load_ms: round(loadMs[language]),
      full_index_p50_ms: wall,
      full_index_cpu_p50_ms: percentile(s.cpuMs, 50),
      ms_per_file: round(wall / count, 3),
      ms_per_entity: round(wall / s.entities, 4),
      cpu_ms_per_file: round(percentile(s.cpuMs, 50) / count, 3),
      samples_ms: s.wallMs.map((ms) => round(ms)),
    };
  };
  const [py, ts] = [side('python'), side('javascript')];
  return {
    files,
    rounds,
    parse_threads: defaultParseThreads(),
    python: py,
    typescript: ts,
    ts_over_python_per_file: ratio(ts.ms_per_file, py.ms_per_file),
    ts_over_python_cpu_per_file: ratio(ts.cpu_ms_per_file, py.cpu_ms_per_file),
    ts_over_python_per_entity: ratio(ts.ms_per_entity, py.ms_per_entity),
  };
}

function printResult(r: ReturnType<typeof resultOf>): void {
  const row = (name: string, s: typeof r.python): [string, string] => [
    name,
    `${s.files} files, ${s.lines} lines, ${s.entities} entities; full index p50 ${s.full_index_p50_ms} ms ` +
      `(CPU ${s.full_index_cpu_p50_ms} ms) = ${s.ms_per_file} ms/file, ${s.ms_per_entity} ms/entity; grammar load ${s.grammar_load_ms} ms`,
  ];
  printTable([
    row('python', r.python),
    row('typescript', r.typescript),
    [
      'typescript / python',
      `${r.ts_over_python_per_file} × per file (CPU ${r.ts_over_python_cpu_per_file} ×), ${r.ts_over_python_per_entity} × per entity`,
    ],
  ]);
}

await main();
