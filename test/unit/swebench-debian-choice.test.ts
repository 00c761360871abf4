// The Debian an instance gets when the set names none (eval/swebench/debian-choice.ts): the
// project's requires-python first, then the newest Python its classifiers list, then the date the
// instance was made; `--debian` over all of it. Metadata texts are the shapes real base commits
// have (sympy's setup.py, a pyproject's requires-python, setup.cfg classifiers).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseDebian } from '../../eval/swebench/debian-choice.js';
import { loadInstances } from '../../eval/swebench/instance-file.js';

const [instance] = loadInstances(join(__dirname, '../fixtures/swebench/django-style/instances.jsonl'));
const files = (map: Record<string, string>) => (path: string) => map[path] ?? null;

describe('chooseDebian', () => {
  it('follows requires-python when it allows only one of 3.11 and 3.13', () => {
    expect(chooseDebian(instance!, files({ 'pyproject.toml': 'requires-python = ">=3.12"\n' }))).toEqual({
      release: 'trixie',
      why: 'pyproject.toml requires-python ">=3.12" excludes 3.11',
    });
    expect(chooseDebian(instance!, files({ 'setup.cfg': 'python_requires = >=3.8, <3.12\n' }))?.release).toBe(
      'bookworm',
    );
  });

  it("takes Debian 11's 3.9 when requires-python excludes both 3.11 and 3.13", () => {
    expect(chooseDebian(instance!, files({ 'setup.py': "python_requires='<3.10',\n" }))).toEqual({
      release: 'bullseye',
      why: 'setup.py requires-python "<3.10" excludes 3.11 and 3.13',
    });
  });

  it('reads the newest classified Python when requires-python allows both', () => {
    const setupPy = [
      "    python_requires='>=3.8',",
      "        'Programming Language :: Python :: 3.9',",
      "        'Programming Language :: Python :: 3.10',",
    ].join('\n');
    expect(chooseDebian(instance!, files({ 'setup.py': setupPy }))).toEqual({
      release: 'bookworm',
      why: 'its classifiers list Python 3.10 at newest',
    });
    expect(
      chooseDebian(instance!, files({ 'setup.cfg': 'Programming Language :: Python :: 3.13\n' }))?.release,
    ).toBe('trixie');
  });

  it('decides by the date when the project says nothing, and not at all without one', () => {
    expect(chooseDebian(instance!, files({}))).toEqual({
      release: 'bookworm',
      why: 'made 2024-01-01, before Python 3.13',
    });
    expect(chooseDebian({ ...instance!, created_at: '2025-03-02T10:00:00Z' }, files({}))?.release).toBe(
      'trixie',
    );
    expect(chooseDebian({ ...instance!, created_at: undefined }, files({}))).toBeNull();
  });
});
