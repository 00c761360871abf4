// `ab --cluster` refuses what a cluster run cannot do with a usage error (exit 2) naming the flag,
// before it reaches an engine: another cluster kind, a script model, the ablations, no manager,
// a malformed registry; and --result-block (a job's mode) runs exactly one instance.
import { describe, expect, it } from 'vitest';
import { abCommand } from '../../eval/commands/ab.js';
import { UsageError } from '../../core/exit-codes.js';

const base = ['--bench', 'eval/tasks/piperbench', '--model', 'sim:1'];
const swarm = [...base, '--cluster', 'swarm', '--cluster-host', 'unix:///nonexistent.sock'];

async function usage(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  try {
    await abCommand(args);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  } finally {
    process.env = saved;
  }
  throw new Error('no usage error');
}

describe('ab --cluster flags', () => {
  it('names what a cluster run cannot take', async () => {
    expect(await usage([...base, '--cluster', 'k8s'])).toBe("--cluster takes swarm, got 'k8s'");
    expect(await usage([...swarm.map((a) => (a === 'sim:1' ? 'script:model.jsonl' : a))])).toMatch(
      /a script: file is not on the nodes/,
    );
    expect(await usage([...swarm, '--ablation'])).toMatch(/--ablation and --gate-ablation run locally/);
    expect(await usage([...swarm, '--registry', 'http://x'])).toBe(
      "--registry takes HOST:PORT, got 'http://x'",
    );
    expect(await usage([...swarm, '--job-timeout', '1'])).toMatch(/--job-timeout/);
    expect(await usage([...base, '--cluster', 'swarm'], { DOCKER_HOST: undefined })).toMatch(
      /needs --cluster-host URL or DOCKER_HOST/,
    );
  });

  it('runs one instance with --result-block, no more', async () => {
    expect(await usage([...base, '--result-block', '--tasks', 'a,b', '--arms', 'policy'])).toMatch(
      /exactly one instance/,
    );
    expect(await usage([...base, '--result-block', '--tasks', 'a'])).toMatch(/exactly one instance/);
  });
});
