// node dist/bench/index.js [--json] [--files N] [--queries N] [--edits N] [--rounds N]
// The code index's speed on a generated repository (default 1,000 Python files in a temp dir,
// outside git, so files are listed by a walk):
//   full index     CodeIndex.open on an empty ledger file: list, read, hash, parse, store
//   reopen         CodeIndex.open again on the same ledger: every file from the sha256 cache
//   re-index       refresh([path]) after one file was edited (several edits, p50/p95/max), with
//                  the BM25 postings already built, so they are updated too
//   full index CPU the CPU time of all its threads (wall time on a shared machine is mostly the others' load)
//   exit           a fresh process that builds the index, runs one ruff check (which sets V8's
//                  Liftoff-only flag, primitives/lint/liftoff-only.ts) and returns: the time from its
//                  last line to its exit, which waits for any WASM compile job still running
//   search_symbol  the primitive, over names, dotted suffixes and substrings (p50/p95)
//   search_code    the primitive, lexical BM25 over 2-3 word queries (p50/p95; the first query,
//                  which builds the BM25 postings, is reported on its own)
// The full index and the re-index are measured against the baseline, the single-threaded path kept for comparison (one
// thread, a cursor over every node, every selector rebuilt after an edit: IndexOptions.baseline), in alternating rounds in this process.
// Targets: full index ≤ 1500 ms, re-index after an edit ≤ 10 ms, searches ≤ 20 ms p50.
// The table goes to stderr; --json prints one JSON object on stdout.
import { searchSymbol } from '../primitives/tools/search-symbol/tool.js';
import { searchCode } from '../primitives/tools/search-code/tool.js';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CodeIndex, type IndexOptions } from '../primitives/index/code-index.js';
import { defaultParseThreads } from '../primitives/index/parse-pool.js';
import { pythonParser } from '../primitives/index/python-parser.js';
import { RuffChecker } from '../primitives/lint/ruff-check.js';
import type { ReadContext } from '../primitives/read-context.js';
import { Ledger } from '../runtime/ledger/ledger.js';
import { VERBS, WORDS, generateRepo, prng } from './index-repo.js';
import { percentile, printTable } from './stats.js';

async function time<T>(body: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await body();
  return [value, performance.now() - t0];
}

const round = (ms: number) => Math.round(ms * 10) / 10;

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** The single-threaded path the index had before its worker threads, kept to measure them against: one thread, a cursor over every node, every selector rebuilt after an edit. */
const BASELINE: IndexOptions = { baseline: true };
const OPTIONS: Record<'baseline' | 'current' | 'single', IndexOptions> = {
  baseline: BASELINE,
  current: {},
  single: { threads: 1 },
};

let editSerial = 0;

/** Edits `count` files one by one, each followed by refresh([path]); the refresh times. */
async function timeEdits(
  index: CodeIndex,
  repo: string,
  paths: string[],
  rand: () => number,
  count: number,
): Promise<number[]> {
  const reindex: number[] = [];
  for (let i = 0; i < count; i++) {
    const path = paths[Math.floor(rand() * paths.length)]!;
    const n = editSerial++;
    appendFileSync(join(repo, path), `\n\ndef edited_${n}(x):\n    return x + ${n}\n`);
    const before: number = index.parseCount;
    const [, ms] = await time(() => index.refresh([path]));
    const module = path
      .replace(/\.py$/, '')
      .replace(/\//g, '.')
      .replace(/\.__init__$/, '');
    if (index.parseCount !== before + 1 || !index.get(`${module}.edited_${n}`))
      throw new Error(`refresh after editing ${path} did not pick the edit up`);
    reindex.push(ms);
  }
  return reindex;
}

/**
 * A fresh process builds the index (`mode`), runs one ruff check and returns; how long its exit
 * took after its last line. This file is that process when given --exit-probe.
 */
function timeExit(repo: string, ledgerFile: string, mode: 'baseline' | 'current'): number {
  const script = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, [script, '--exit-probe', repo, ledgerFile, mode], {
    encoding: 'utf8',
  });
  const ended = Date.now();
  return ended - Number(out.trim().split('\n').at(-1));
}

async function exitProbe(repo: string, ledgerFile: string, mode: string): Promise<void> {
  const ledger = Ledger.open(ledgerFile);
  await CodeIndex.open(repo, ledger, mode === 'baseline' ? BASELINE : {});
  ledger.close();
  await new RuffChecker().check('import os\n\ndef f(x):\n    return os.path.join(x, y)\n');
  process.stdout.write(`${Date.now()}\n`);
}

type Mode = 'baseline' | 'current' | 'single';
type PerMode = Record<Mode, number[]>;
const perMode = (): PerMode => ({ baseline: [], current: [], single: [] });

interface RoundSamples {
  full: PerMode;
  /** CPU time of every thread of the process: the work done, which other load changes less than wall time. */
  fullCpu: PerMode;
  edits: PerMode;
  exits: PerMode;
  /** The last ledger written (the current path on one thread, after the last edits): reopening it must parse nothing. */
  lastLedger: string;
}

/** The full index and edits of each path, `rounds` times, alternating which goes first. */
async function indexRounds(
  repo: string,
  dir: string,
  paths: string[],
  rand: () => number,
  counts: { rounds: number; edits: number },
): Promise<RoundSamples> {
  // `single`: the current path on one thread, to tell the worker threads' share from the rest.
  const samples = {
    full: perMode(),
    fullCpu: perMode(),
    edits: perMode(),
    exits: perMode(),
    lastLedger: '',
  };
  for (let r = 0; r < counts.rounds; r++) {
    // Alternating which of baseline and current goes first, so neither always gets the warmer
    // process; single last, so its ledger matches the files every round's edits leave.
    const modes: readonly Mode[] =
      r % 2 === 0 ? ['baseline', 'current', 'single'] : ['current', 'baseline', 'single'];
    for (const mode of modes) {
      const ledgerFile = join(dir, `ledger-${mode}-${r}.db`);
      if (mode === 'single') samples.lastLedger = ledgerFile;
      const ledger = Ledger.open(ledgerFile);
      const cpu0 = process.cpuUsage();
      const [built, ms] = await time(() => CodeIndex.open(repo, ledger, OPTIONS[mode]));
      const cpu = process.cpuUsage(cpu0);
      samples.full[mode].push(ms);
      samples.fullCpu[mode].push((cpu.user + cpu.system) / 1000);
      await searchCode({ index: built }, { query: 'warm up the postings' });
      samples.edits[mode].push(...(await timeEdits(built, repo, paths, rand, counts.edits)));
      ledger.close();
      if (mode !== 'single')
        samples.exits[mode].push(timeExit(repo, join(dir, `exit-${mode}-${r}.db`), mode));
    }
  }
  return samples;
}

/** search_symbol and search_code over `count` queries each, drawn from the index's own names and words. */
async function searchTimes(ctx: ReadContext, rand: () => number, count: number) {
  const entities = ctx.index.visible().filter((e) => e.kind !== 'module');
  const symbolMs: number[] = [];
  for (let i = 0; i < count; i++) {
    const e = entities[Math.floor(rand() * entities.length)]!;
    const kind = i % 3;
    const query =
      kind === 0 ? e.name : kind === 1 ? e.selector.split('.').slice(-2).join('.') : e.name.slice(0, 5);
    const [r, ms] = await time(() => searchSymbol(ctx, { query }));
    if (!r.ok || r.data!.matches.length === 0) throw new Error(`search_symbol ${query} found nothing`);
    symbolMs.push(ms);
  }
  const codeMs: number[] = [];
  for (let i = 0; i < count; i++) {
    const words = [VERBS[Math.floor(rand() * VERBS.length)]!, WORDS[Math.floor(rand() * WORDS.length)]!];
    if (i % 2 === 0) words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
    const query = words.join(' ');
    const [r, ms] = await time(() => searchCode(ctx, { query }));
    if (!r.ok || r.data!.results.length === 0) throw new Error(`search_code ${query} found nothing`);
    codeMs.push(ms);
  }
  return { symbolMs, codeMs };
}

function indexResult(
  repo: { files: number; lines: number; entities: number },
  s: RoundSamples,
  other: {
    rounds: number;
    parserMs: number;
    reopenMs: number;
    firstCodeMs: number;
    queries: number;
    edits: number;
  },
  search: { symbolMs: number[]; codeMs: number[] },
) {
  const p50 = (xs: number[]) => percentile(xs, 50);
  const fullP50 = { baseline: p50(s.full.baseline), current: p50(s.full.current) };
  const editP50 = { baseline: p50(s.edits.baseline), current: p50(s.edits.current) };
  return {
    ...repo,
    rounds: other.rounds,
    parse_threads: defaultParseThreads(),
    parser_load_ms: round(other.parserMs),
    full_index_ms: fullP50.current,
    full_index_baseline_ms: fullP50.baseline,
    full_index_over_baseline: ratio(fullP50.current, fullP50.baseline),
    full_index_single_thread_ms: p50(s.full.single),
    full_index_single_thread_over_baseline: ratio(p50(s.full.single), fullP50.baseline),
    full_index_single_thread_cpu_ms: p50(s.fullCpu.single),
    full_index_cpu_ms: p50(s.fullCpu.current),
    full_index_baseline_cpu_ms: p50(s.fullCpu.baseline),
    full_index_cpu_over_baseline: ratio(p50(s.fullCpu.current), p50(s.fullCpu.baseline)),
    full_index_samples_ms: s.full.current.map(round),
    full_index_baseline_samples_ms: s.full.baseline.map(round),
    full_index_single_thread_samples_ms: s.full.single.map(round),
    reopen_cached_ms: round(other.reopenMs),
    reindex_after_edit_p50_ms: editP50.current,
    reindex_after_edit_p95_ms: percentile(s.edits.current, 95),
    reindex_after_edit_max_ms: round(Math.max(...s.edits.current)),
    reindex_after_edit_baseline_p50_ms: editP50.baseline,
    reindex_after_edit_baseline_p95_ms: percentile(s.edits.baseline, 95),
    reindex_after_edit_over_baseline: ratio(editP50.current, editP50.baseline),
    exit_after_index_and_ruff_p50_ms: p50(s.exits.current),
    exit_after_index_and_ruff_baseline_p50_ms: p50(s.exits.baseline),
    search_symbol_p50_ms: p50(search.symbolMs),
    search_symbol_p95_ms: percentile(search.symbolMs, 95),
    search_code_first_ms: round(other.firstCodeMs),
    search_code_p50_ms: p50(search.codeMs),
    search_code_p95_ms: percentile(search.codeMs, 95),
    queries: other.queries,
    edits: other.edits,
    targets: { full_index_ms: 1500, reindex_after_edit_ms: 10, search_p50_ms: 20 },
  };
}

function printIndexTable(result: ReturnType<typeof indexResult>): void {
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  printTable([
    ['repo', `${result.files} files, ${result.lines} lines, ${result.entities} entities`],
    ['parser load (WASM, once)', `${result.parser_load_ms} ms`],
    [
      'full index p50, current / baseline',
      `${result.full_index_ms} / ${result.full_index_baseline_ms} ms = ${result.full_index_over_baseline} × (target ≤ 1500: ${verdict(result.full_index_ms <= 1500)})`,
    ],
    [
      'full index p50, current on one thread',
      `${result.full_index_single_thread_ms} ms = ${result.full_index_single_thread_over_baseline} × the baseline`,
    ],
    [
      'full index CPU p50, current / baseline',
      `${result.full_index_cpu_ms} / ${result.full_index_baseline_cpu_ms} ms = ${result.full_index_cpu_over_baseline} ×`,
    ],
    ['reopen, all cached', `${result.reopen_cached_ms} ms`],
    [
      're-index after an edit p50 / p95 / max',
      `${result.reindex_after_edit_p50_ms} / ${result.reindex_after_edit_p95_ms} / ${result.reindex_after_edit_max_ms} ms (target p50 ≤ 10: ${verdict(result.reindex_after_edit_p50_ms <= 10)})`,
    ],
    [
      're-index p50, baseline',
      `${result.reindex_after_edit_baseline_p50_ms} ms (current = ${result.reindex_after_edit_over_baseline} ×)`,
    ],
    [
      'exit after index + ruff, current / baseline',
      `${result.exit_after_index_and_ruff_p50_ms} / ${result.exit_after_index_and_ruff_baseline_p50_ms} ms`,
    ],
    [
      'search_symbol p50 / p95',
      `${result.search_symbol_p50_ms} / ${result.search_symbol_p95_ms} ms (target p50 ≤ 20: ${verdict(result.search_symbol_p50_ms <= 20)})`,
    ],
    ['search_code first query (builds BM25)', `${result.search_code_first_ms} ms`],
    [
      'search_code p50 / p95',
      `${result.search_code_p50_ms} / ${result.search_code_p95_ms} ms (target p50 ≤ 20: ${verdict(result.search_code_p50_ms <= 20)})`,
    ],
  ]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      files: { type: 'string', default: '1000' },
      queries: { type: 'string', default: '200' },
      edits: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '3' },
      'exit-probe': { type: 'boolean', default: false },
    },
  });
  if (values['exit-probe']) {
    const [repo, ledgerFile, mode] = process.argv.slice(-3) as [string, string, string];
    return exitProbe(repo, ledgerFile, mode);
  }
  const [queries, edits, rounds] = [Number(values.queries), Number(values.edits), Number(values.rounds)];
  const dir = mkdtempSync(join(tmpdir(), 'piper-bench-index-'));
  try {
    const repo = join(dir, 'repo');
    const rand = prng(42);
    const { paths, lines } = generateRepo(repo, Number(values.files), rand);
    const [, parserMs] = await time(() => pythonParser());
    const samples = await indexRounds(repo, dir, paths, rand, { rounds, edits });
    const ledger = Ledger.open(samples.lastLedger);
    const [index, reopenMs] = await time(() => CodeIndex.open(repo, ledger));
    if (index.parseCount !== 0) throw new Error(`reopen parsed ${index.parseCount} files; the cache missed`);
    // The BM25 postings exist before the searches, as in a run that has searched.
    const ctx: ReadContext = { index };
    const [, firstCodeMs] = await time(() => searchCode(ctx, { query: 'warm up the postings' }));
    const search = await searchTimes(ctx, rand, queries);
    ledger.close();
    const result = indexResult(
      { files: paths.length, lines, entities: index.all().length },
      samples,
      { rounds, parserMs, reopenMs, firstCodeMs, queries, edits: edits * rounds },
      search,
    );
    printIndexTable(result);
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
