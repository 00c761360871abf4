// A worker thread of the code index's parse pool (parse-pool.ts): it loads its own tree-sitter
// parser once, then turns each batch of read files it is sent into rows for the ledger. It reads
// nothing itself: the bytes it parses are the bytes the main thread hashed.
import { parentPort, workerData } from 'node:worker_threads';
import type { LanguageId } from '../../runtime/language/language.js';
import { sourceParsers } from './grammars.js';
import { parseFile, type PendingFile } from './scan-files.js';

export type WorkerReply = { rows: ReturnType<typeof parseFile>[] } | { error: string };

const port = parentPort;
if (!port) throw new Error('scan-worker.js runs as a worker thread of the code index only');
// A grammar that cannot load fails every batch; the pool reports the first reply's error.
// The pool names the language its repository is indexed as (parse-pool.ts).
const language = (workerData as { language?: LanguageId } | undefined)?.language ?? 'python';
const loading = sourceParsers(language).then(
  (parsers) => ({ parsers }),
  (error: unknown) => ({ error: (error as Error).message }),
);
port.on('message', (files: PendingFile[]) => {
  void loading.then((loaded) => {
    let reply: WorkerReply;
    if ('error' in loaded) reply = { error: loaded.error };
    else {
      try {
        reply = { rows: files.map((f) => parseFile(loaded.parsers, f)) };
      } catch (error) {
        reply = { error: (error as Error).message };
      }
    }
    port.postMessage(reply);
  });
});
