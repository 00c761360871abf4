// Where a repository may point the networked download (runtime/env/js/plan/download-urls.ts) and
// what the build makes of a lockfile's and the manifests' tarball URLs (build/lockfile-urls.ts).
import { describe, expect, it } from 'vitest';
import { localHost, refusedUrl } from '../../runtime/env/js/plan/download-urls.js';
import { lockfileUrls, manifestUrls } from '../../runtime/env/js/build/lockfile-urls.js';

const REGISTRY = 'https://registry.example/';

describe('refusedUrl', () => {
  it('refuses a login and this machine or a private network, in every spelling', () => {
    expect(refusedUrl('https://u:p@npm.example.com/x.tgz')).toBe('it carries a login');
    expect(refusedUrl('https://token@npm.example.com/x.tgz')).toBe('it carries a login');
    for (const url of [
      'http://127.0.0.1:4873/x.tgz',
      'http://127.1/x.tgz',
      'http://2130706433/x.tgz',
      'http://0x7f000001/x.tgz',
      'http://localhost/x.tgz',
      'http://api.localhost/x.tgz',
      'http://[::1]/x.tgz',
      'http://[::ffff:127.0.0.1]/x.tgz',
      'http://[fd00::1]/x.tgz',
      'http://[fe80::1]/x.tgz',
      'http://0.0.0.0/x.tgz',
      'http://10.0.0.1/x.tgz',
      'http://172.16.0.1/x.tgz',
      'http://192.168.0.1/x.tgz',
      'http://169.254.169.254/latest',
    ])
      expect(refusedUrl(url), url).toBe('it names this machine or a private network address');
    for (const url of [
      'https://npm.example.com/x.tgz',
      'http://172.32.0.1/x',
      'http://8.8.8.8/x',
      'not a url',
    ])
      expect(refusedUrl(url), url).toBeNull();
  });

  it('knows the private ranges by their bounds', () => {
    expect(localHost('172.15.255.255')).toBe(false);
    expect(localHost('172.31.255.255')).toBe(true);
    expect(localHost('100.64.0.1')).toBe(true);
    expect(localHost('100.128.0.1')).toBe(false);
    expect(localHost('example.com')).toBe(false);
  });
});

describe('lockfileUrls', () => {
  it("refuses the first URL with a login, masked; git URLs are git-deps.ts's", () => {
    const lock = JSON.stringify(
      {
        packages: {
          'node_modules/a': { resolved: 'git+ssh://git@github.com/o/a.git#abc' },
          'node_modules/b': { resolved: 'https://u:s3cret@npm.example.com/b/-/b-1.0.0.tgz' },
        },
      },
      null,
      2,
    );
    const out = lockfileUrls(lock, REGISTRY);
    expect(out.refused).toEqual({
      url: 'https://***@npm.example.com/b/-/b-1.0.0.tgz',
      why: 'it carries a login',
      path: null,
    });
    expect(JSON.stringify(out)).not.toContain('s3cret');
  });

  it('names the hosts other than the registry, each once; funding links are not fetched', () => {
    const lock = [
      'a@1.0.0:',
      '  resolved "https://registry.example/a/-/a-1.0.0.tgz"',
      'b@1.0.0:',
      '  resolved "https://mirror.example.org/b/-/b-1.0.0.tgz#sha"',
      '  tarball: https://mirror.example.org/c.tgz',
      '"d@https://cdn.example.net/d.tgz":',
      '  funding: {url: "http://127.0.0.1/sponsor"}',
    ].join('\n');
    expect(lockfileUrls(lock, REGISTRY)).toEqual({
      refused: null,
      otherHosts: ['mirror.example.org', 'cdn.example.net'],
    });
  });

  it('takes your own registry on this machine (a local mirror), but never a login to it', () => {
    const local = 'http://localhost:4873/';
    expect(lockfileUrls('  resolved "http://localhost:4873/a/-/a-1.0.0.tgz"', local)).toEqual({
      refused: null,
      otherHosts: [],
    });
    expect(lockfileUrls('  resolved "http://u:p@localhost:4873/a/-/a-1.0.0.tgz"', local).refused?.why).toBe(
      'it carries a login',
    );
    expect(lockfileUrls('  resolved "http://localhost:9999/a.tgz"', local).refused?.why).toBe(
      'it names this machine or a private network address',
    );
  });

  it("refuses a manifest's direct tarball dependency on this machine, naming the manifest", () => {
    const manifest = JSON.stringify({
      homepage: 'http://localhost:3000',
      dependencies: { x: 'http://127.0.0.1:9/x.tgz', y: '^1.0.0' },
    });
    const direct = manifestUrls(manifest).map((url) => ({ path: 'packages/a/package.json', url }));
    expect(lockfileUrls('', REGISTRY, direct).refused).toEqual({
      url: 'http://127.0.0.1:9/x.tgz',
      why: 'it names this machine or a private network address',
      path: 'packages/a/package.json',
    });
  });
});
