// The trust prompt: shows the file, each key that needs trust with its value (the key redacted,
// controls inert) and why; y trusts, anything else (Enter, n, Esc) does not.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { TrustPrompt } from '../../cli/tui/repo-config-trust-prompt.js';
import type { TrustQuestion } from '../../cli/repo-config-trust/trust-question.js';
import { tick } from '../helpers/ink-frames.js';

const question: TrustQuestion = {
  file: '/work/repo/.piper/config.json',
  keys: [
    {
      key: 'baseUrl',
      value: 'http://127.0.0.1:9/v1\u001b]0;pwned\u0007',
      reason: 'moves the model endpoint',
    },
    { key: 'apiKey', value: 'sk-theirs-0123456789', reason: 'sets the API key' },
    { key: 'maxTurns', value: 99, reason: 'raises maxTurns from 30 to 99' },
  ],
};

async function answerTo(keys: string): Promise<boolean[]> {
  const answers: boolean[] = [];
  const ui = render(<TrustPrompt question={question} onAnswer={(a) => answers.push(a === true)} />);
  await tick();
  ui.stdin.write(keys);
  for (let i = 0; i < 100 && answers.length === 0; i++) await tick();
  ui.unmount();
  return answers;
}

describe('trust prompt', () => {
  it('shows exactly the keys, their values and why', async () => {
    const ui = render(<TrustPrompt question={question} onAnswer={() => undefined} />);
    await tick();
    const frame = ui.lastFrame() ?? '';
    ui.unmount();
    expect(frame).toContain('/work/repo/.piper/config.json');
    expect(frame).toContain('baseUrl = http://127.0.0.1:9/v1\\x1b]0;pwned\\x07');
    expect(frame).not.toContain('\u001b]0;');
    expect(frame).toContain('apiKey = (a key, redacted)');
    expect(frame).not.toContain('sk-theirs');
    expect(frame).toContain('maxTurns = 99');
    expect(frame).toContain('raises maxTurns from 30 to 99');
    expect(frame).toContain('[y/N]');
  });

  it('y trusts; Enter, n and Esc do not', async () => {
    expect(await answerTo('y')).toEqual([true]);
    expect(await answerTo('Y')).toEqual([true]);
    expect(await answerTo('\r')).toEqual([false]);
    expect(await answerTo('n')).toEqual([false]);
    expect(await answerTo('\u001b')).toEqual([false]);
  });
});
