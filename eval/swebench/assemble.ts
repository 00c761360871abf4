// node dist/eval/swebench/assemble.js --statements DIR --out FILE MINED.jsonl ...
// The task set from the miner's instances and the problem statements written for them: an instance
// enters the set only once DIR/<instance_id>.txt holds its statement (written by a person from what
// the failing test showed, like an issue; never the fix). The miner's drafting fields are dropped.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MinedInstance, SweBenchInstance } from './instance.js';

function main(): void {
  const { values, positionals } = parseArgs({
    options: { statements: { type: 'string' }, out: { type: 'string' } },
    allowPositionals: true,
  });
  if (!values.statements || !values.out || !positionals.length) {
    throw new Error('usage: assemble.js --statements DIR --out FILE MINED.jsonl ...');
  }
  // By id: the current set can be one of the inputs, so a new mining run adds to it.
  const instances = new Map<string, SweBenchInstance>();
  let waiting = 0;
  for (const file of positionals) {
    for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      const {
        observed: _observed,
        run_ms: _ms,
        ...mined
      } = JSON.parse(line) as MinedInstance & Partial<SweBenchInstance>;
      const statement = join(values.statements, `${mined.instance_id}.txt`);
      if (!existsSync(statement)) {
        waiting++;
        continue;
      }
      const problem_statement = readFileSync(statement, 'utf8').trimEnd() + '\n';
      instances.set(mined.instance_id, { ...mined, problem_statement });
    }
  }
  const sorted = [...instances.values()].sort((a, b) => a.instance_id.localeCompare(b.instance_id));
  writeFileSync(values.out, sorted.map((i) => `${JSON.stringify(i)}\n`).join(''));
  process.stdout.write(
    `${sorted.length} instances written to ${values.out}; ${waiting} mined without a statement yet\n`,
  );
}

main();
