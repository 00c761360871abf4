// `piper-agent doctor`: each part piper-agent needs, as ok or problem with how to fix it.
import { parseArgs } from 'node:util';
import { probeEngine } from '../../runtime/engine/bootstrap.js';
import { DockerEngine, engineEndpoint } from '../../runtime/engine/docker-engine.js';
import { repoRoot } from '../../runtime/host/git.js';
import { findImage } from '../../runtime/images/build.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { ledgerPath } from '../../runtime/ledger/location.js';
import { EXIT } from '../exit-codes.js';

export const DOCTOR_HELP = `Usage: piper-agent doctor [--json] [--repo DIR] [--ledger PATH]

Checks the Docker engine, the sandbox image, the ledger and the model configuration, and says for
each whether it is ok and, where not, how to fix it. Exit status 0 when all are ok, 1 otherwise.`;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

export async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      repo: { type: 'string' },
      ledger: { type: 'string' },
    },
  });
  const checks: Check[] = [];
  const engine = new DockerEngine();
  const info = await probeEngine(engine).catch(() => null);
  checks.push(
    info
      ? {
          name: 'engine',
          ok: true,
          detail: `Docker ${info.version}, API ${info.apiVersion} (${info.os}) at ${info.endpoint}`,
        }
      : {
          name: 'engine',
          ok: false,
          detail: `no Docker engine answers at ${engineEndpoint()}`,
          fix: 'run `piper-agent engine up` as root (installs and starts dockerd), or set DOCKER_HOST',
        },
  );
  const recipe = loadRecipe();
  if (info) {
    const image = await findImage(engine, recipe.hash);
    checks.push(
      image
        ? { name: 'image', ok: true, detail: `${recipe.ref} ${image.id}` }
        : {
            name: 'image',
            ok: false,
            detail: `${recipe.ref} is not built`,
            fix: 'run `piper-agent image build`',
          },
    );
  } else {
    checks.push({
      name: 'image',
      ok: false,
      detail: `${recipe.ref}: unknown, no engine`,
      fix: 'start the engine first',
    });
  }
  const path = ledgerPath({ flag: values.ledger, repo: values.repo ?? repoRoot() });
  try {
    const ledger = Ledger.open(path);
    checks.push({
      name: 'ledger',
      ok: true,
      detail: `${path} (schema v${ledger.schemaVersion}, ${ledger.journalMode})`,
    });
    ledger.close();
  } catch (error) {
    checks.push({
      name: 'ledger',
      ok: false,
      detail: (error as Error).message,
      fix: 'point --ledger or PIPER_LEDGER at a writable path',
    });
  }
  checks.push(modelCheck());

  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ok: checks.every((c) => c.ok), checks })}\n`);
  } else {
    for (const c of checks) {
      process.stdout.write(`${c.ok ? 'ok     ' : 'problem'}  ${c.name.padEnd(7)} ${c.detail}\n`);
      if (c.fix) process.stdout.write(`         ${''.padEnd(7)} fix: ${c.fix}\n`);
    }
  }
  return checks.every((c) => c.ok) ? EXIT.ok : EXIT.failure;
}

function modelCheck(): Check {
  const model = process.env.PIPER_MODEL;
  if (model) return { name: 'model', ok: true, detail: `PIPER_MODEL=${model}` };
  if (process.env.OPENAI_API_KEY) {
    return {
      name: 'model',
      ok: true,
      detail: `OpenAI-compatible endpoint ${process.env.OPENAI_BASE_URL ?? '(default)'}, key set`,
    };
  }
  return {
    name: 'model',
    ok: false,
    detail: 'no model configured',
    fix: 'set PIPER_MODEL=script:FILE.jsonl (a scripted model), or OPENAI_API_KEY (+ OPENAI_BASE_URL) and PIPER_MODEL=openai:NAME',
  };
}
