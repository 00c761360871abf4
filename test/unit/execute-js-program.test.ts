// execute in a JavaScript/TypeScript repository: the program's own statements say which module
// system its file is for, so a require() is not run as an ES module (where it is not defined).
import { describe, expect, it } from 'vitest';
import { jsProgramArgv, jsProgramFile } from '../../primitives/tools/execute/js-program.js';

describe('a JavaScript program of execute', () => {
  it('import/export statements make an ES module, a require() CommonJS, anything else the package decides', () => {
    expect(jsProgramFile("import { f } from './src/f.ts'\nconsole.log(f())")).toBe(
      '/work/.piper-execute.mts',
    );
    expect(jsProgramFile('export const x = 1')).toBe('/work/.piper-execute.mts');
    expect(jsProgramFile("const { f } = require('./lib')\nconst n: number = f()")).toBe(
      '/work/.piper-execute.cts',
    );
    expect(jsProgramFile('console.log(1 + 1)')).toBe('/work/.piper-execute.ts');
    // A dynamic import() is an expression, not a statement: it runs in either system.
    expect(jsProgramFile("const m = await import('./x.js')")).toBe('/work/.piper-execute.ts');
  });

  it('runs the file the entry point wrote, through sh with the file as its one argument', () => {
    const argv = jsProgramArgv('/work/.piper-execute.cts');
    expect(argv.slice(0, 2)).toEqual(['sh', '-c']);
    expect(argv.at(-1)).toBe('/work/.piper-execute.cts');
  });
});
