// dockerode loads without gRPC and ssh2 (the BuildKit session and SSH transport are deferred), and
// the deferred SSH transport still works when an ssh:// engine is used: it loads on first use.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { dockerode } from '../../runtime/engine/dockerode-client.js';

const cache = createRequire(import.meta.url).cache;
const loaded = (pattern: RegExp) => Object.keys(cache).filter((path) => pattern.test(path));

describe('dockerode client', () => {
  it('loads dockerode without its BuildKit session or SSH transport, which still load when used', async () => {
    // This file runs in a process of its own: nothing has loaded dockerode before.
    expect(loaded(/node_modules\/dockerode\//)).toEqual([]);
    const Docker = dockerode();
    const docker = new Docker({ socketPath: '/nonexistent/docker.sock' });
    expect(loaded(/node_modules\/dockerode\/lib\/docker\.js$/)).toHaveLength(1);
    expect(loaded(/@grpc|protobufjs|node_modules\/ssh2\//)).toEqual([]);
    await expect(docker.ping()).rejects.toThrow(/ENOENT/);

    // An ssh:// engine on a closed local port: the real transport loads and reports the refusal.
    const overSsh = new Docker({ protocol: 'ssh', host: '127.0.0.1', port: 1, username: 'nobody' });
    await expect(overSsh.ping()).rejects.toThrow(/ECONNREFUSED/);
    expect(loaded(/node_modules\/ssh2\//).length).toBeGreaterThan(0);
    expect(dockerode()).toBe(Docker);
  });
});
