// Reading a test tree's imports as text: the tokenizer skips strings and comments, every import
// form and depth counts, relative imports do not, and an import that cannot fail the tests (try/
// except ImportError, its fallback, TYPE_CHECKING, importorskip) is marked optional.
import { describe, expect, it } from 'vitest';
import { importsOf } from '../../runtime/env/plan/infer/imports.js';
import { logicalLines } from '../../runtime/env/plan/read/python-lexer.js';

const SOURCE = `
import os, sys as s
import a.b.c as d, e
from f.g import (h,
  i)
from . import local
from .x import y
from zope import interface
x = "import notme"  # import notme2
'''
import notme3
'''
s = r"\\" import notme4"
def f():
    import nested
    try:
        import opt1
        from opt2 import z
    except ImportError:
        import fallback
    try:
        import notopt
    except ValueError:
        pass
if TYPE_CHECKING:
    import typed
try: import oneliner
except ImportError: pass
np = pytest.importorskip("numpy.linalg")
x = 1; import semi
class A: import incls
v = f"{x}" ; from \\
    joined import it
`;

describe('imports of a Python file', () => {
  it('finds every import form at any depth and never one inside a string or comment', () => {
    const found = importsOf(SOURCE);
    const names = found.map((i) => i.module);
    expect(names).toEqual([
      'os',
      'sys',
      'a',
      'e',
      'f',
      'zope',
      'nested',
      'opt1',
      'opt2',
      'fallback',
      'notopt',
      'typed',
      'oneliner',
      'numpy',
      'semi',
      'incls',
      'joined',
    ]);
    expect(found.find((i) => i.module === 'zope')?.dotted).toBe('zope.interface');
    expect(found.find((i) => i.module === 'a')?.dotted).toBe('a.b');
    expect(found.find((i) => i.module === 'nested')?.line).toBe(15);
  });

  it('marks imports guarded by ImportError, TYPE_CHECKING and importorskip as optional', () => {
    const optional = importsOf(SOURCE)
      .filter((i) => i.optional)
      .map((i) => i.module);
    expect(optional).toEqual(['opt1', 'opt2', 'fallback', 'typed', 'oneliner', 'numpy']);
  });

  it("reads a suite's own importorskip helper as an optional import, and not its definition", () => {
    const found = importsOf(
      [
        'def _importorskip(modname, minversion=None):',
        '    return importlib.import_module(modname)',
        'has_numexpr, requires_numexpr = _importorskip("numexpr")',
        'has_scipy_ge, _ = _importorskip("scipy", "1.13")',
        'has_x = importorskip_or_fail("notme")',
      ].join('\n'),
    );
    expect(found.map((i) => [i.module, i.optional])).toEqual([
      ['numexpr', true],
      ['scipy', true],
    ]);
  });

  it('tokenizes logical lines: brackets join lines, indentation counts tabs as CPython does', () => {
    const lines = logicalLines('x = (1,\n  2)\nif y:\n\tz = 3\n');
    expect(lines.map((l) => [l.line, l.indent, l.tokens.length])).toEqual([
      [1, 0, 7],
      [3, 0, 3],
      [4, 8, 3],
    ]);
    expect(logicalLines('"""never\nends').length).toBe(1);
  });
});
