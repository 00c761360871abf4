// dockerode loads without gRPC, ssh2, tar-fs and readable-stream (the BuildKit session, the SSH
// transport, directory build contexts and stdin streams are deferred), and each deferred part still
// works when used: it loads then. (Stdin streams and TLS are used for real by the lint gate's and the
// TLS engine's integration tests.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerode } from '../../runtime/engine/dockerode-client.js';

const cache = createRequire(import.meta.url).cache;
const loaded = (pattern: RegExp) => Object.keys(cache).filter((path) => pattern.test(path));

describe('dockerode client', () => {
  it('loads dockerode without the parts a local engine needs only when used, which then load', async () => {
    // This file runs in a process of its own: nothing has loaded dockerode before.
    expect(loaded(/node_modules\/dockerode\//)).toEqual([]);
    const Docker = dockerode();
    const docker = new Docker({ socketPath: '/nonexistent/docker.sock' });
    expect(loaded(/node_modules\/dockerode\/lib\/docker\.js$/)).toHaveLength(1);
    expect(loaded(/@grpc|protobufjs|node_modules\/(ssh2|tar-fs|tar-stream|readable-stream)\//)).toEqual([]);
    await expect(docker.ping()).rejects.toThrow(/ENOENT/);

    // A build from a directory packs it with tar-fs first, then finds no engine.
    const context = mkdtempSync(join(tmpdir(), 'piper-context-'));
    writeFileSync(join(context, 'Dockerfile'), 'FROM scratch\n');
    await expect(docker.buildImage({ context, src: ['Dockerfile'] })).rejects.toThrow(/ENOENT/);
    expect(loaded(/node_modules\/tar-fs\//).length).toBeGreaterThan(0);
    rmSync(context, { recursive: true });

    // An ssh:// engine on a closed local port: the real transport loads and reports the refusal.
    const overSsh = new Docker({ protocol: 'ssh', host: '127.0.0.1', port: 1, username: 'nobody' });
    await expect(overSsh.ping()).rejects.toThrow(/ECONNREFUSED/);
    expect(loaded(/node_modules\/ssh2\//).length).toBeGreaterThan(0);
    expect(dockerode()).toBe(Docker);
  });
});
