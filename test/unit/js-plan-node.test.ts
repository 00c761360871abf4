// Node's major in the JavaScript plan (runtime/env/js/plan/node-version.ts, node-range.ts): the
// recipe, the version files, the CI's setup-node (a matrix: the newest), then the manifest's ranges
// (the newest provided major satisfying them), else the default; a major not provided becomes one.
import { describe, expect, it } from 'vitest';
import { majorSatisfies } from '../../runtime/env/js/plan/node-range.js';
import { NODE_MAJORS } from '../../runtime/env/js/plan/node-version.js';
import { planOf, workflow } from '../helpers/js-plan-repo.js';

const PKG = { name: 'x', version: '1.0.0' };

describe('the Node major', () => {
  it('reads the version files, lts aliases mapped', () => {
    expect(planOf({ 'package.json': PKG, '.nvmrc': 'v20.11.1\n' }).node).toEqual({
      major: 20,
      from: '.nvmrc',
    });
    expect(planOf({ 'package.json': PKG, '.nvmrc': 'lts/iron' }).node.major).toBe(20);
    expect(planOf({ 'package.json': PKG, '.nvmrc': 'lts/*' }).node.major).toBe(24);
    expect(planOf({ 'package.json': PKG, '.node-version': '18' }).node).toEqual({
      major: 18,
      from: '.node-version',
    });
    const tools = planOf({ 'package.json': PKG, '.tool-versions': 'python 3.12.1\nnodejs 20.1.0\n' });
    expect(tools.node).toEqual({ major: 20, from: '.tool-versions' });
  });

  it('puts the recipe first', () => {
    const plan = planOf({ 'package.json': PKG, '.nvmrc': '18' }, { node: '22' });
    expect(plan.node).toEqual({ major: 22, from: 'the recipe' });
  });

  it("reads the CI's setup-node: a version, a matrix's newest, a version file", () => {
    const atLeast = planOf({
      'package.json': PKG,
      '.github/workflows/ci.yml': workflow(['npm test'], "'>=18'"),
    });
    expect(atLeast.node.major).toBe(24);
    expect(
      planOf({ 'package.json': PKG, '.github/workflows/ci.yml': workflow(['npm test'], "'20.x'") }).node
        .major,
    ).toBe(20);
    const matrix = `jobs:
  test:
    strategy:
      matrix:
        node-version: [18, 20.x, '22']
    steps:
      - uses: actions/setup-node@v4
        with:
          node-version: \${{ matrix.node-version }}
      - run: npm test
`;
    expect(planOf({ 'package.json': PKG, '.github/workflows/ci.yml': matrix }).node.major).toBe(22);
    const file = `jobs:
  test:
    steps:
      - uses: actions/setup-node@v4
        with:
          node-version-file: .nvmrc-ci
`;
    const plan = planOf({ 'package.json': PKG, '.nvmrc-ci': '18.19.0', '.github/workflows/ci.yml': file });
    expect(plan.node.major).toBe(18);
  });

  it('takes the newest provided major that satisfies engines.node', () => {
    const engines = (node: string) => planOf({ 'package.json': { ...PKG, engines: { node } } }).node.major;
    expect(engines('>=18')).toBe(24);
    expect(engines('^18.17 || ^20.9')).toBe(20);
    expect(engines('>=16 <23')).toBe(22);
    expect(planOf({ 'package.json': { ...PKG, volta: { node: '18.20.1' } } }).node.major).toBe(18);
    const dev = { ...PKG, devEngines: { runtime: { name: 'node', version: '^20' } } };
    expect(planOf({ 'package.json': dev }).node.major).toBe(20);
  });

  it('maps a major that is not provided and defaults when nothing names one', () => {
    const old = planOf({ 'package.json': PKG, '.nvmrc': '16' });
    expect(old.node.major).toBe(18);
    expect(old.decisions.join('\n')).toContain('Node 16 (.nvmrc) is not provided: Node 18 instead');
    expect(planOf({ 'package.json': PKG, '.nvmrc': '26' }).node.major).toBe(24);
    expect(planOf({ 'package.json': PKG }).node).toEqual({ major: NODE_MAJORS.default, from: 'the default' });
    const none = planOf({ 'package.json': { ...PKG, engines: { node: '<14' } } });
    expect(none.node.major).toBe(NODE_MAJORS.default);
    expect(none.decisions.join('\n')).toContain('no provided Node major satisfies');
  });
});

describe('the range reader', () => {
  it.each([
    ['>=18', 24, true],
    ['^20.11 || >=22', 21, false],
    ['^20.11 || >=22', 20, true],
    ['18.x - 22', 24, false],
    ['18.x - 22', 22, true],
    ['>= 14.18.0', 22, true],
    ['<22.0.0', 22, false],
    ['~20.5', 20, true],
    ['>=20.19 <21 || >=22', 21, false],
    ['*', 18, true],
    ['v20', 20, true],
  ])('%s for Node %i: %s', (range, major, expected) => {
    expect(majorSatisfies(range, major)).toBe(expected);
  });

  it('says when it cannot read a range, and bounds its input', () => {
    expect(majorSatisfies('latest', 22)).toBeNull();
    expect(majorSatisfies('>=18 '.repeat(100), 22)).toBeNull();
  });
});
