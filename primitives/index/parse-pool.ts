// Parsing a repository on every core: the main thread and (threads - 1) worker threads
// (scan-worker.js) take batches of read files from one queue, so a slow batch on one thread does
// not hold the others; the rows come back in the files' order, as one thread would give them.
// Parsing and extracting was ~85% of a full index of 1,000 files (measured with --cpu-prof);
// reading, hashing and storing stay on the main thread. Workers live for one scan and are
// terminated after it: a worker's isolate takes its WASM compile jobs with it, so none is left
// for the process's exit to wait on.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StoredCodeFile } from '../../runtime/ledger/code-nodes.js';
import { IndexError } from './index-error.js';
import type { SourceParsers } from './grammars.js';
import { parseFile, type PendingFile } from './scan-files.js';
import type { WorkerReply } from './scan-worker.js';
import type { Walk } from './walk.js';

/** Below this many files a worker's start-up (~100 ms: a thread, the modules, the grammar) costs more than it saves. */
export const PARALLEL_MIN_FILES = 64;
const BATCH_FILES = 16;
/** More threads than this gain little: the main thread's reading and storing becomes the limit. */
const MAX_THREADS = 4;

export function defaultParseThreads(): number {
  return Math.max(1, Math.min(availableParallelism(), MAX_THREADS));
}

/**
 * The worker's script beside this module (dist/primitives/index/ or dist/bundle/). Running from the
 * TypeScript sources (the unit tests) there is none, and every file is parsed on this thread.
 */
function workerScript(): URL | undefined {
  const url = new URL('./scan-worker.js', import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : undefined;
}

/**
 * The parse workers of one scan, started before its files are read (a first build): a worker's
 * start-up (its thread, the modules, the grammar) then runs on the other core while this thread
 * reads and hashes, instead of after. parseFiles takes them, and terminates them if unused.
 */
export function startParseWorkers(threads: number, parsers: SourceParsers): Worker[] {
  const script = workerScript();
  if (threads <= 1 || !script) return [];
  return Array.from({ length: Math.min(threads, MAX_THREADS) - 1 }, () => newWorker(script, parsers));
}

/** A worker loads the grammars of the language the repository is indexed as. */
function newWorker(script: URL, parsers: SourceParsers): Worker {
  return new Worker(script, { workerData: { language: parsers.language } });
}

/** `walk` other than the default parses on this thread alone (the workers walk the default way). */
export async function parseFiles(
  files: PendingFile[],
  parser: SourceParsers,
  threads: number,
  walk?: Walk,
  minFiles = PARALLEL_MIN_FILES,
  started: Worker[] = [],
): Promise<StoredCodeFile[]> {
  const script = workerScript();
  if (threads <= 1 || walk || files.length < minFiles || !script) {
    await Promise.all(started.map((w) => w.terminate()));
    return files.map((f) => parseFile(parser, f, walk));
  }
  const batches: PendingFile[][] = [];
  for (let i = 0; i < files.length; i += BATCH_FILES) batches.push(files.slice(i, i + BATCH_FILES));
  const results: StoredCodeFile[][] = new Array(batches.length);
  let next = 0;
  const take = (): number | undefined => (next < batches.length ? next++ : undefined);
  const workers = started.length
    ? started
    : Array.from({ length: Math.min(threads, MAX_THREADS) - 1 }, () => newWorker(script, parser));
  try {
    const working = Promise.all(workers.map((w) => serve(w, take, batches, results)));
    // A worker that fails while this thread parses is reported at the await below, not as unhandled.
    working.catch(() => {});
    for (let i = take(); i !== undefined; i = take()) {
      results[i] = batches[i]!.map((f) => parseFile(parser, f));
      // Let the workers' replies in, so they get their next batch while this thread parses.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await working;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results.flat();
}

/**
 * Feeds one worker batches until the queue is empty; rejects on its first error. Two batches are
 * in flight, so the worker has its next one while its reply waits for this thread to finish a
 * batch of its own (with one, the worker idled for half of the time).
 */
function serve(
  worker: Worker,
  take: () => number | undefined,
  batches: PendingFile[][],
  results: StoredCodeFile[][],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const inFlight: number[] = [];
    const send = () => {
      const i = take();
      if (i === undefined) return;
      inFlight.push(i);
      worker.postMessage(batches[i]);
    };
    const fail = (message: string) =>
      reject(new IndexError('grammar_unavailable', `a parse worker of the code index failed: ${message}`));
    // A worker answers its batches in the order it got them.
    worker.on('message', (reply: WorkerReply) => {
      if ('error' in reply) return fail(reply.error);
      results[inFlight.shift()!] = reply.rows;
      send();
      if (inFlight.length === 0) resolve();
    });
    worker.on('error', (error) => fail(error.message));
    worker.on('exit', (code) => inFlight.length > 0 && fail(`it exited with code ${code}`));
    send();
    send();
    if (inFlight.length === 0) resolve();
  });
}
