// The index benchmarks' repositories (bench/index.ts, bench/index-ts.ts): Python packages of
// generated modules — classes, methods, functions, docstrings and calls over a fixed vocabulary —
// and TypeScript packages of the same shape, from a seeded generator, so every run indexes the same
// files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const WORDS = (
  'account address amount balance batch buffer cache channel client config connection counter cursor ' +
  'digest entry event field filter format frame graph handler header index item job key label ledger ' +
  'limit listener loader lock message metric node offset order packet page parser path payload policy ' +
  'pool queue reader record region report request resource result route row schedule schema session ' +
  'signal snapshot socket source state status stream table task token tracker user value vector worker'
).split(' ');
export const VERBS =
  'add build check close compute decode encode fetch find flush load merge open parse read remove render reset resolve save scan send sort split store sync update validate write'.split(
    ' ',
  );

/** A small deterministic PRNG (mulberry32), so every run generates the same repo. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generateModule(rand: () => number, n: number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
  const lines = [
    `"""Module ${n}: ${pick(WORDS)} and ${pick(WORDS)} handling."""`,
    'import os',
    'import re',
    '',
  ];
  for (let c = 0; c < 2; c++) {
    const noun = pick(WORDS);
    lines.push(
      '',
      `class ${cap(noun)}${cap(pick(WORDS))}${n}:`,
      `    """Keeps the ${noun} ${pick(WORDS)} of a ${pick(WORDS)}."""`,
      '',
    );
    lines.push(
      '    def __init__(self, source):',
      `        self.${noun} = source`,
      `        self.items = []`,
      '',
    );
    for (let m = 0; m < 4; m++) {
      const verb = pick(VERBS);
      const obj = pick(WORDS);
      if (rand() < 0.2) lines.push('    @property');
      lines.push(
        `    def ${verb}_${obj}(self, ${pick(WORDS)}, limit=10):`,
        `        """${cap(verb)} the ${obj} from the ${pick(WORDS)} ${pick(WORDS)}."""`,
        `        total = 0`,
        `        for ${pick(WORDS)}_item in self.items[:limit]:`,
        `            total += len(str(${pick(WORDS)}_item))`,
        `        if total > limit:`,
        `            return self.${pick(VERBS)}_${pick(WORDS)}(total)`,
        `        return os.path.join(str(total), "${pick(WORDS)}")`,
        '',
      );
    }
  }
  for (let f = 0; f < 4; f++) {
    const verb = pick(VERBS);
    const obj = pick(WORDS);
    const asyncDef = rand() < 0.2 ? 'async ' : '';
    lines.push(
      '',
      `${asyncDef}def ${verb}_${obj}_${f}(${pick(WORDS)}, ${pick(WORDS)}=None):`,
      `    """${cap(verb)} a ${obj} into a ${pick(WORDS)}."""`,
      `    pattern = re.compile(r"${pick(WORDS)}-\\d+")`,
      `    matches = pattern.findall(str(${pick(WORDS)}))`,
      '    return [m.upper() for m in matches]',
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

export function generateRepo(
  dir: string,
  fileCount: number,
  rand: () => number,
): { paths: string[]; lines: number } {
  const paths: string[] = [];
  let lines = 0;
  const packages = Math.ceil(fileCount / 50);
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg${String(p).padStart(2, '0')}`;
    mkdirSync(join(dir, pkg), { recursive: true });
    for (let m = 0; m < 50 && paths.length < fileCount; m++) {
      const path = m === 0 ? `${pkg}/__init__.py` : `${pkg}/mod${String(m).padStart(2, '0')}.py`;
      const text = generateModule(rand, paths.length);
      lines += text.split('\n').length - 1;
      writeFileSync(join(dir, path), text);
      paths.push(path);
    }
  }
  return { paths, lines };
}

/**
 * The same module in TypeScript: a doc comment, imports, two exported classes (a constructor and
 * four methods each, a fifth of them getters), four exported functions (a fifth async), the same
 * vocabulary and calls, so the two languages' indexes see files of one shape and size.
 */
function generateTsModule(rand: () => number, n: number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
  const lines = [
    `/** Module ${n}: ${pick(WORDS)} and ${pick(WORDS)} handling. */`,
    "import { join } from 'node:path';",
    '',
  ];
  for (let c = 0; c < 2; c++) {
    const noun = pick(WORDS);
    lines.push(
      '',
      `/** Keeps the ${noun} ${pick(WORDS)} of a ${pick(WORDS)}. */`,
      `export class ${cap(noun)}${cap(pick(WORDS))}${n} {`,
      '  items: unknown[] = [];',
      '',
      `  constructor(readonly ${noun}: string) {}`,
      '',
    );
    for (let m = 0; m < 4; m++) {
      const verb = pick(VERBS);
      const obj = pick(WORDS);
      const getter = rand() < 0.2;
      lines.push(
        `  /** ${cap(verb)} the ${obj} from the ${pick(WORDS)} ${pick(WORDS)}. */`,
        getter
          ? `  get ${verb}${cap(obj)}(): string {`
          : `  ${verb}${cap(obj)}(${pick(WORDS)}: unknown, limit = 10): string {`,
        '    let total = 0;',
        `    for (const ${pick(WORDS)}Item of this.items.slice(0, ${getter ? 10 : 'limit'})) {`,
        `      total += String(${pick(WORDS)}Item).length;`,
        '    }',
        `    if (total > ${getter ? 10 : 'limit'}) return String(total);`,
        `    return join(String(total), '${pick(WORDS)}');`,
        '  }',
        '',
      );
    }
    lines.push('}');
  }
  for (let f = 0; f < 4; f++) {
    const verb = pick(VERBS);
    const obj = pick(WORDS);
    const asyncDef = rand() < 0.2 ? 'async ' : '';
    const ret = asyncDef ? 'Promise<string[]>' : 'string[]';
    lines.push(
      '',
      `/** ${cap(verb)} a ${obj} into a ${pick(WORDS)}. */`,
      `export ${asyncDef}function ${verb}${cap(obj)}${f}(${pick(WORDS)}: unknown, ${pick(WORDS)}?: string): ${ret} {`,
      `  const pattern = /${pick(WORDS)}-\\d+/g;`,
      `  const matches = String(${pick(WORDS)}).match(pattern) ?? [];`,
      '  return matches.map((m) => m.toUpperCase());',
      '}',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The TypeScript repository of the same shape: `pkgNN/index.ts` and `pkgNN/modMM.ts`. */
export function generateTsRepo(
  dir: string,
  fileCount: number,
  rand: () => number,
): { paths: string[]; lines: number } {
  const paths: string[] = [];
  let lines = 0;
  for (let p = 0; paths.length < fileCount; p++) {
    const pkg = `pkg${String(p).padStart(2, '0')}`;
    mkdirSync(join(dir, pkg), { recursive: true });
    for (let m = 0; m < 50 && paths.length < fileCount; m++) {
      const path = m === 0 ? `${pkg}/index.ts` : `${pkg}/mod${String(m).padStart(2, '0')}.ts`;
      const text = generateTsModule(rand, paths.length);
      lines += text.split('\n').length - 1;
      writeFileSync(join(dir, path), text);
      paths.push(path);
    }
  }
  return { paths, lines };
}
