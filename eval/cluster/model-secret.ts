// An endpoint model's key on a swarm (docs/scale.md): a Swarm secret, created for the run and
// removed after it, mounted into each job as a file the job's shell reads into the one variable the
// model client reads. The key is never in a service spec, a container's config, a label, a log line,
// the ledger or the report: only the secret's id, the variable's name and the base URL are.
import { randomBytes } from 'node:crypto';
import type { SwarmClient } from '../../runtime/engine/swarm-client.js';
import { modelEndpoint } from '../../runtime/model/resolve.js';
import type { Owner } from '../../runtime/sandbox/owner.js';
import { jobLabels, RUN_LABEL } from './sweep.js';

/** Where the job finds the key: /run/secrets/<this>. */
const KEY_FILE = 'piper-model-key';

export interface JobModel {
  secretId: string;
  secretName: string;
  /** OPENAI_API_KEY or ANTHROPIC_API_KEY: the variable the job's model client reads. */
  keyVar: string;
  urlVar: string;
  baseUrl: string;
}

/** Whether `spec` names an endpoint model (openai:, openai-tools:, anthropic:, bare NAME). */
export function isEndpointModel(spec: string): boolean {
  return !/^(sim|script):/.test(spec);
}

/** Resolves the endpoint as a local run would and puts its key in a new secret of run `run`. */
export async function createModelSecret(
  client: SwarmClient,
  owner: Owner,
  run: string,
  spec: string,
  config: { baseUrl?: string; apiKey?: string },
): Promise<JobModel> {
  const endpoint = modelEndpoint(spec, { config });
  const secretName = `piper-ab-${run}-key-${randomBytes(3).toString('hex')}`;
  const secretId = await client.createSecret(
    secretName,
    Buffer.from(endpoint.apiKey, 'utf8'),
    jobLabels(owner, { [RUN_LABEL]: run }),
  );
  const { keyVar, urlVar } = endpoint.provider;
  return { secretId, secretName, keyVar, urlVar, baseUrl: endpoint.baseUrl };
}

/** The service spec's secret reference and the environment that names (never holds) the key. */
export function modelSecretMount(model: JobModel): {
  reference: Record<string, unknown>;
  env: string[];
} {
  return {
    reference: {
      SecretID: model.secretId,
      SecretName: model.secretName,
      File: { Name: KEY_FILE, UID: '0', GID: '0', Mode: 0o400 },
    },
    env: [
      `${model.urlVar}=${model.baseUrl}`,
      `PIPER_JOB_KEY_VAR=${model.keyVar}`,
      `PIPER_JOB_KEY_FILE=/run/secrets/${KEY_FILE}`,
    ],
  };
}
