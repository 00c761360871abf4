// "Did you mean": typos within two edits (a swap of neighbours counts as one), unique prefixes, and
// nothing for a word that is close to nothing.
import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../core/suggest.js';

const COMMANDS = [
  'demo',
  'fix',
  'execute',
  'run-test',
  'index',
  'resume',
  'replay',
  'ledger',
  'undo',
  'tool',
  'tools',
];

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps as one edit each', () => {
    expect(editDistance('fix', 'fix')).toBe(0);
    expect(editDistance('fxi', 'fix')).toBe(1);
    expect(editDistance('fi', 'fix')).toBe(1);
    expect(editDistance('fixx', 'fix')).toBe(1);
    expect(editDistance('fox', 'fix')).toBe(1);
    expect(editDistance('maxTurn', 'maxTurns')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('closest', () => {
  it('finds a typo, a swap and a unique prefix; the nearest wins', () => {
    expect(closest('fxi', COMMANDS)).toBe('fix');
    expect(closest('reusme', COMMANDS)).toBe('resume');
    expect(closest('ledg', COMMANDS)).toBe('ledger');
    expect(closest('tol', COMMANDS)).toBe('tool');
    expect(closest('--tset', ['--test', '--repo', '--model'])).toBe('--test');
  });

  it('says nothing for a word close to nothing, an empty word, or one rewritten whole', () => {
    expect(closest('publish', COMMANDS)).toBeUndefined();
    expect(closest('', COMMANDS)).toBeUndefined();
    expect(closest('xy', ['ab'])).toBeUndefined();
  });

  it('didYouMean ends a message, or adds nothing', () => {
    expect(didYouMean('fxi', COMMANDS)).toBe('; did you mean fix?');
    expect(didYouMean('publish', COMMANDS)).toBe('');
  });
});
