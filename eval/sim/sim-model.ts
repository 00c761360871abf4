// `--model sim:SEED`: a deterministic, seeded simulated model for the A/B runner's own tests and CI
// (CI has no model endpoint). It speaks protocol 'json' and plays a plausible agent on one task it
// was given (gold edits, gold labels, repro, underspecified): locate the entity (search_symbol /
// search_code), read it, edit it, run the repro test, stop — and it reads each prompt the way a
// model would, reacting to the latest observation (a rejection, a no-op, a failed edit, a failing
// test) and to the ledger lines (a trigger that already found the entity). It is a WEAK model at the
// documented rates below. Its numbers exercise the runner; they say nothing about a real model.
//
// Determinism: every random choice is a hash of (seed, task id, choice name, call index or edit
// number) — no hidden RNG state — so the same seed and task with the same observations give the
// same replies, and an ablation re-run replays the original up to the suppressed call. Per-call
// choices are keyed by the call index, per-instance choices only by the task, so both arms draw the
// same numbers (the "identical model" of the protocol).
//
// Usage: prompt tokens = characters / 4 over the messages (the runtime's estimate), completion
// tokens likewise over the reply; cost at the fixed SIM_PRICE so cost measures are never zero.
import { createHash } from 'node:crypto';
import type { ChatModel, ChatReply, ChatRequest } from '../../runtime/model/types.js';
import { ModelError } from '../../runtime/model/types.js';
import { simIntent, type SimMemory } from './sim-plan.js';
import { absorb } from './sim-absorb.js';
import { readPrompt } from './sim-prompt.js';
import { SIM_PRICE, SIM_RATES, type SimTask } from './sim-rates.js';

export { SIM_PRICE, SIM_RATES, type SimEdit, type SimTask } from './sim-rates.js';

/** A uniform number in [0, 1) from the seed, the task and the choice's name and keys. */
export function simDraw(seed: number, taskId: string, name: string, ...keys: Array<string | number>): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([seed, taskId, name, ...keys]))
    .digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

export class SimModel implements ChatModel {
  readonly id: string;
  readonly protocol = 'json' as const;
  private readonly memory: SimMemory;

  constructor(
    readonly seed: number,
    readonly task: SimTask,
  ) {
    this.id = `sim:${seed}`;
    this.memory = newMemory(task);
  }

  async complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    if (signal?.aborted) throw new ModelError('aborted', 'the model call was cancelled');
    const draw = (name: string, ...keys: Array<string | number>) =>
      simDraw(this.seed, this.task.id, name, ...keys);
    const prompt = readPrompt(req.messages);
    const m = this.memory;
    const n = m.calls++;
    absorb(m, this.task, prompt, draw);
    const intent = simIntent(m, this.task, prompt, n, draw);
    m.last = intent;
    let text = JSON.stringify({ tool: intent.tool, args: intent.args });
    m.lastNoise = null;
    if (draw('malformed_json', n) < SIM_RATES.malformedJson) {
      text = text.slice(0, Math.max(1, text.length - 3)); // cut short: the loop's parser says why
      m.lastNoise = 'malformed';
    } else if (draw('unknown_tool', n) < SIM_RATES.unknownTool) {
      const names = ['bash', 'grep', 'open_file'] as const;
      const name = names[Math.floor(draw('unknown_tool_name', n) * names.length)]!;
      text = JSON.stringify({
        tool: name,
        args: name === 'bash' ? { command: `grep -rn "${intent.tool}" .` } : { path: '.' },
      });
      m.lastNoise = 'unknown_tool';
    }
    const promptText =
      req.messages.map((msg) => msg.content).join('\n') +
      (req.tools?.length ? JSON.stringify(req.tools) : '');
    const usage = {
      promptTokens: Math.ceil(promptText.length / 4),
      completionTokens: Math.ceil(text.length / 4),
    };
    const cost =
      (usage.promptTokens * SIM_PRICE.promptPerMillion +
        usage.completionTokens * SIM_PRICE.completionPerMillion) /
      1e6;
    return {
      text,
      toolCalls: [],
      usage,
      costUsd: Math.round(cost * 1e10) / 1e10,
      raw: text,
      attempts: [{ n: 1, status: null, error: null, ms: 0, retryInMs: null }],
      model: this.id,
    };
  }
}

function newMemory(task: SimTask): SimMemory {
  return {
    calls: 0,
    last: null,
    lastNoise: null,
    located: false,
    searches: 0,
    bodies: new Map(),
    edits: task.goldEdits.map(() => 'todo' as const),
    editAttempts: task.goldEdits.map(() => 0),
    committedAny: false,
    untested: false,
    testPassed: false,
    giveUp: false,
    stopNow: false,
    misread: false,
    answered: false,
    retries: new Map(),
  };
}

/** `sim:SEED` → the seed, or null when the spec is not a sim spec (a bad seed is a usage error). */
export function parseSimSpec(spec: string): number | null {
  if (!spec.startsWith('sim:')) return null;
  const seed = Number(spec.slice(4));
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new ModelError(
      'config',
      `the sim model needs a whole-number seed, got ${JSON.stringify(spec.slice(4))}`,
      { fix: 'write it as sim:SEED, e.g. sim:1' },
    );
  }
  return seed;
}
