// The fuzz run's worker: plans and indexes one hostile repository per message, with the compiled
// product (dist/), under the heap limit its parent gives it. A known refusal (EnvPlanError,
// IndexError) is an answer; anything else (a RangeError, a crash) is reported as a failure.
import process from 'node:process';
import { parentPort } from 'node:worker_threads';
import { join } from 'node:path';

const dist = process.env.PIPER_DIST;
const { planEnvironment } = await import(join(dist, 'runtime/env/plan/detect.js'));
const { renderPlanText } = await import(join(dist, 'runtime/env/plan/render.js'));
const { isEnvPlanError } = await import(join(dist, 'runtime/env/plan/errors.js'));
const { CodeIndex } = await import(join(dist, 'primitives/index/code-index.js'));
const { IndexError } = await import(join(dist, 'primitives/index/index-error.js'));
const { Ledger } = await import(join(dist, 'runtime/ledger/ledger.js'));
const { inert, hasControls } = await import(join(dist, 'runtime/text/inert.js'));

function plan(root) {
  try {
    const text = inert(renderPlanText(planEnvironment(root)));
    return hasControls(text) ? { bad: 'the plan text holds a control character' } : { ok: 'planned' };
  } catch (error) {
    if (isEnvPlanError(error)) return { ok: `refused: ${error.message.slice(0, 120)}` };
    return { bad: `plan: ${error?.name}: ${String(error?.message).slice(0, 200)}` };
  }
}

async function index(root, ledgerFile) {
  const ledger = Ledger.open(ledgerFile);
  try {
    const found = await CodeIndex.open(root, ledger);
    return { ok: `indexed ${found.all().length}` };
  } catch (error) {
    if (error instanceof IndexError) return { ok: `refused: ${error.message.slice(0, 120)}` };
    return { bad: `index: ${error?.name}: ${String(error?.message).slice(0, 200)}` };
  } finally {
    ledger.close();
  }
}

parentPort.on('message', async ({ root, ledgerFile }) => {
  const planned = plan(root);
  const indexed = await index(root, ledgerFile);
  parentPort.postMessage({ plan: planned, index: indexed, heapMb: process.memoryUsage().heapUsed / 2 ** 20 });
});
