// The selection prompt names the repository by its language profile: Python's text is the spec's,
// byte for byte; a JavaScript/TypeScript repository reads as one, and nothing else changes.
import { describe, expect, it } from 'vitest';
import { BASELINE_LOOP } from '../../policy/loop-settings.js';
import { buildSelectionPrompt, POLICY_PREAMBLE, type PromptInput } from '../../policy/prompt.js';

const input = (over: Partial<PromptInput> = {}): PromptInput => ({
  tools: ['read_entity', 'search_symbol'],
  history: [],
  latestObservation: null,
  issueText: 'double() doubles twice',
  boundary: '0123456789abcdef0123456789abcdef',
  ...over,
});

describe('the prompt by language', () => {
  it("keeps Python's preamble as the spec words it, and its digest when the language is said", () => {
    expect(POLICY_PREAMBLE.split('\n')[0]).toBe(
      'You are piper-agent, a coding agent that repairs a Python repository one action per turn.',
    );
    expect(buildSelectionPrompt(input({ language: 'python' })).digest).toBe(
      buildSelectionPrompt(input()).digest,
    );
  });

  it('calls a JavaScript/TypeScript repository what it is, in both styles', () => {
    const script = buildSelectionPrompt(input({ language: 'javascript' }));
    const python = buildSelectionPrompt(input());
    expect(script.messages[0]!.content).toBe(
      python.messages[0]!.content.replace('a Python repository', 'a JavaScript/TypeScript repository'),
    );
    expect(script.messages[1]).toEqual(python.messages[1]);
    const baseline = buildSelectionPrompt(input({ language: 'javascript', loop: BASELINE_LOOP }));
    expect(baseline.messages[0]!.content).toMatch(
      /^You are piper-agent, a coding agent that repairs a JavaScript\/TypeScript repository\. Use the tools/,
    );
  });
});
