// make lint: fails when the TypeScript sources import in a circle. A circle makes the modules in it
// one unit in all but name (none loads without the others), and hides which of them is the lower
// layer. Every import counts, `import type` too: a type circle is the same knot in the design.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOTS = ['cli', 'core', 'policy', 'primitives', 'runtime', 'eval', 'bench'];

function sourcesUnder(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourcesUnder(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative imports and re-exports of one file, as source paths. */
function importsOf(file) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = [];
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const base = resolve(dirname(file), fileName).replace(/\.js$/, '');
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
    if (hit) targets.push(hit);
  }
  return targets;
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const root = process.cwd();
const graph = new Map();
for (const dir of ROOTS) for (const file of sourcesUnder(join(root, dir))) graph.set(file, importsOf(file));
const found = circles(graph);
for (const component of found)
  console.error(`import circle: ${component.map((f) => relative(root, f)).join(' ↔ ')}`);
if (found.length) {
  console.error(`${found.length} import circle(s): break each so that imports point one way`);
  process.exit(1);
}
