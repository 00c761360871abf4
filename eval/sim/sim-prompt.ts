// What the simulated model reads from a selection prompt (policy/prompt.ts builds it): the system
// message, the offered tool names, the ledger lines, the latest observation (parsed back from the
// JSON the loop renders) and the issue, each without the marker lines that fence it
// (policy/fence.ts). Only the model's own view is used: the simulated model
// knows what a model would know from the prompt, plus the task it was given.

import { MARKER_PREFIX } from '../../policy/fence.js';

export interface SimPrompt {
  system: string;
  /** Tool names offered in the # Tools section (reserved names included). */
  offered: string[];
  /** The ledger lines of the # State section, as one string. */
  ledger: string;
  /** The latest observation's JSON value; null before the first one or when it is not JSON. */
  latest: unknown;
  issue: string;
  /** The system prompt tells the model that asking is valid and encouraged (the policy preamble). */
  encouragesAsking: boolean;
}

const LATEST = '\nLatest observation';

export function readPrompt(messages: ReadonlyArray<{ role: string; content: string }>): SimPrompt {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const user = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const tools = section(user, '# Tools\n', '\n\n# State\n');
  const state = section(user, '# State\n', '\n\n# Issue\n');
  const issueAt = user.indexOf('\n\n# Issue\n');
  const issue = issueAt >= 0 ? unfenced(user.slice(issueAt + '\n\n# Issue\n'.length)) : '';
  const latestAt = state.indexOf(LATEST);
  const ledger = latestAt >= 0 ? state.slice(0, latestAt) : state;
  // The latest observation's heading line names who wrote it; the observation follows it.
  const latestBody = latestAt >= 0 ? state.slice(latestAt + 1) : '';
  const latestText = unfenced(latestBody.slice(latestBody.indexOf('\n') + 1)).trim();
  return {
    system,
    offered: tools
      .split('\n')
      .map(toolName)
      .filter((name): name is string => name !== null),
    ledger,
    latest: parseJson(latestText),
    issue,
    encouragesAsking: /ask_user and stop are valid and encouraged/.test(system),
  };
}

/** The text between a fence's two marker lines; text that is not fenced, as it is. */
function unfenced(text: string): string {
  if (!text.startsWith(MARKER_PREFIX)) return text;
  const body = text.slice(text.indexOf('\n') + 1);
  const close = body.lastIndexOf(`\n${MARKER_PREFIX}end `);
  return close >= 0 ? body.slice(0, close) : body;
}

function section(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  if (from < 0) return '';
  const body = text.slice(from + start.length);
  const to = body.indexOf(end);
  return to >= 0 ? body.slice(0, to) : body;
}

/** `name — description — args` (policy arm) or a JSON function schema line (baseline arm). */
function toolName(line: string): string | null {
  const trimmed = line.trim();
  if (trimmed.startsWith('{')) {
    const value = parseJson(trimmed) as { function?: { name?: unknown } } | null;
    return typeof value?.function?.name === 'string' ? value.function.name : null;
  }
  const name = trimmed.split(' — ')[0]?.trim();
  return name && /^[a-z_]+$/.test(name) ? name : null;
}

function parseJson(text: string): unknown {
  if (text === '' || text === '(none yet)') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The latest observation, classified the way the loop writes it (policy/observation-text.ts). */
export type SimObservation =
  | { type: 'none' }
  | { type: 'rejected'; tool: string; reason: string }
  | { type: 'noop'; reason: string }
  | { type: 'answer'; answer: string }
  | { type: 'result'; kind: string; target: string; data: Record<string, unknown> | null };

export function classifyObservation(latest: unknown): SimObservation {
  if (!latest || typeof latest !== 'object' || Array.isArray(latest)) return { type: 'none' };
  const o = latest as Record<string, unknown>;
  if (o.rejected === true)
    return { type: 'rejected', tool: String(o.tool ?? ''), reason: String(o.reason ?? '') };
  if (o.noop === true) return { type: 'noop', reason: String(o.reason ?? '') };
  if (typeof o.answer === 'string' && !('kind' in o)) return { type: 'answer', answer: o.answer };
  if (typeof o.kind === 'string') {
    const data =
      o.data && typeof o.data === 'object' && !Array.isArray(o.data)
        ? (o.data as Record<string, unknown>)
        : null;
    return { type: 'result', kind: o.kind, target: String(o.target ?? ''), data };
  }
  return { type: 'none' };
}
