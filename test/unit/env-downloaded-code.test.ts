// Downloaded code never shares a box with the network: what an install box may commit (only the
// venv), the guard that keeps every networked box off an image marked as holding downloaded code,
// and Debian's packages for such an image fetched from the sandbox image and installed offline.
import { describe, expect, it } from 'vitest';
import type { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { aptOffline, carriedDebsStep } from '../../runtime/env/build/offline/apt-offline.js';
import { BuildBox } from '../../runtime/env/build/build-box.js';
import type { BuildContext } from '../../runtime/env/build/build-context.js';
import { DOWNLOADED_CODE_LABEL } from '../../runtime/env/build/offline/downloaded-code-label.js';
import {
  checkInstallWrites,
  downloadedCodeLabel,
  writesOutsideVenv,
} from '../../runtime/env/build/offline/downloaded-code.js';
import { aptStep, venvStep } from '../../runtime/env/build/steps.js';

const MARKED = { [DOWNLOADED_CODE_LABEL]: 'deps' };

/** An engine that records the boxes made (image, network) and what ran in them; every exec exits 0. */
function fakeEngine(
  images: Record<string, Record<string, string>>,
  stdout: (script: string) => string = () => '',
) {
  const boxes: Array<{ id: string; image: string; network: string; scripts: string[]; stopped: boolean }> =
    [];
  const engine = {
    inspectImage: async (ref: string) => (ref in images ? { id: ref, size: 0, labels: images[ref]! } : null),
    hasBridgeNetwork: async () => true,
    createBuildContainer: async (config: { Image: string; NetworkMode: string }) => {
      const id = `box${boxes.length}`;
      boxes.push({ id, image: config.Image, network: config.NetworkMode, scripts: [], stopped: false });
      return id;
    },
    start: async () => undefined,
    exec: async (
      id: string,
      opts: { cmd: string[] },
      onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
    ) => {
      const script = opts.cmd[2]!;
      boxes.find((b) => b.id === id)!.scripts.push(script);
      onOutput('stdout', Buffer.from(stdout(script)));
      return 0;
    },
    putArchive: async () => undefined,
    getArchive: async () => Buffer.alloc(0),
    kill: async (id: string) => {
      boxes.find((b) => b.id === id)!.stopped = true;
    },
    wait: async () => 0,
    inspect: async () => ({ running: true }),
    remove: async () => undefined,
    changes: async () => [],
  };
  return { engine: engine as unknown as DockerEngine, boxes };
}

function fakeContext(engine: DockerEngine): BuildContext & { failed: string[] } {
  const failed: string[] = [];
  const ctx = {
    failed,
    input: { engine, log: () => undefined, base: { ref: 'sandbox', id: 'sandbox' } },
    target: { ref: 'piper-env-x:1', repo: 'piper-env-x', tag: '1' },
    labels: {},
    apt: { prime: async () => true, save: async () => undefined },
    collect: () => undefined,
    removeLater: () => undefined,
    check: (step: { exit_code: number }, what: string) => {
      if (step.exit_code !== 0) throw new Error(`${what} failed`);
    },
    fail: (message: string) => {
      failed.push(message);
      throw new Error(message);
    },
  };
  return ctx as unknown as BuildContext & { failed: string[] };
}

describe('an install box commits only the venv', () => {
  it('the venv, and the entries of the directories piper touches, are all it may change', () => {
    expect(
      writesOutsideVenv([
        { path: '/', kind: 'changed' },
        { path: '/opt', kind: 'changed' },
        { path: '/opt/piper', kind: 'changed' },
        { path: '/opt/piper/venv', kind: 'added' },
        { path: '/opt/piper/venv/lib/python3.13/site-packages/x.py', kind: 'added' },
        { path: '/opt/piper/venv/share/man/man1/ttx.1', kind: 'added' },
        { path: '/opt/piper/venv/bin/old', kind: 'deleted' },
        { path: '/work', kind: 'changed' },
        { path: '/var/cache/apt', kind: 'changed' },
        // The engine's own: the init it mounts, its network files, their directories.
        { path: '/usr', kind: 'changed' },
        { path: '/usr/sbin', kind: 'changed' },
        { path: '/usr/sbin/docker-init', kind: 'added' },
        { path: '/etc', kind: 'changed' },
        { path: '/etc/resolv.conf', kind: 'added' },
      ]),
    ).toEqual([]);
  });

  it('a directory that changed because of a change below it is not named again', () => {
    expect(
      writesOutsideVenv([
        { path: '/usr/share', kind: 'changed' },
        { path: '/usr/share-x', kind: 'added' },
        { path: '/usr/share/gdal', kind: 'changed' },
        { path: '/usr/share/gdal/x.txt', kind: 'added' },
        { path: '/usr/share/debconf', kind: 'changed' },
        { path: '/usr/lib/x', kind: 'changed' },
      ]),
    ).toEqual([
      '/usr/share-x (added)',
      '/usr/share/gdal/x.txt (added)',
      '/usr/share/debconf (changed)',
      '/usr/lib/x (changed)',
    ]);
  });

  it('anything else is named: a write through a link, a Debian file, a deletion, a look-alike path', () => {
    expect(
      writesOutsideVenv([
        { path: '/usr/share/proj/proj.db', kind: 'added' },
        { path: '/usr/share/debconf/confmodule', kind: 'changed' },
        { path: '/usr/bin/dpkg', kind: 'deleted' },
        { path: '/etc/apt/apt.conf.d/99x', kind: 'added' },
        { path: '/opt/piper/venv-evil', kind: 'added' },
        { path: '/opt/piper/launch.py', kind: 'changed' },
        { path: '/work/conftest.py', kind: 'added' },
        { path: '/var/cache/apt/archives/x.deb', kind: 'added' },
        { path: '/tmp', kind: 'deleted' },
        { path: '/usr/sbin/docker-init', kind: 'deleted' },
      ]),
    ).toEqual([
      '/usr/share/proj/proj.db (added)',
      '/usr/share/debconf/confmodule (changed)',
      '/usr/bin/dpkg (deleted)',
      '/etc/apt/apt.conf.d/99x (added)',
      '/opt/piper/venv-evil (added)',
      '/opt/piper/launch.py (changed)',
      '/work/conftest.py (added)',
      '/var/cache/apt/archives/x.deb (added)',
      '/tmp (deleted)',
      '/usr/sbin/docker-init (deleted)',
    ]);
  });

  it('the check stops the box before it reads the changes, and fails naming the paths', async () => {
    const order: string[] = [];
    const box = {
      stop: async () => void order.push('stop'),
      changes: async () => {
        order.push('changes');
        return [
          { path: '/opt/piper/venv/x', kind: 'added' as const },
          { path: '/etc/evil\u001b[31m', kind: 'added' as const },
          ...Array.from({ length: 12 }, (_, i) => ({ path: `/usr/lib/x${i}`, kind: 'added' as const })),
        ];
      },
    } as unknown as BuildBox;
    const { engine } = fakeEngine({});
    const ctx = fakeContext(engine);
    await expect(checkInstallWrites(ctx, box, 'the install of the dependencies')).rejects.toThrow();
    expect(order).toEqual(['stop', 'changes']);
    expect(ctx.failed[0]).toMatch(
      /^the install of the dependencies wrote outside the venv \(\/opt\/piper\/venv\), where nothing installed may write: \/etc\/evil\\x1b\[31m \(added\), \/usr\/lib\/x0 \(added\), .* and 3 more; nothing of it is kept$/,
    );

    const clean = { stop: async () => undefined, changes: async () => [{ path: '/opt', kind: 'changed' }] };
    await expect(checkInstallWrites(ctx, clean as unknown as BuildBox, 'x')).resolves.toBeUndefined();
  });

  it('the venv’s share/ is a directory of its own, with a link for PROJ’s and GDAL’s data only', () => {
    const { script } = venvStep();
    expect(script).not.toMatch(/ln -s \/usr\/share \S*share/);
    expect(script).toContain(
      'mkdir -p /opt/piper/venv/share && ln -s /usr/share/proj /usr/share/gdal /opt/piper/venv/share/',
    );
    expect(downloadedCodeLabel('deps')).toBe(`LABEL ${DOWNLOADED_CODE_LABEL}=deps`);
  });
});

describe('no box with a network starts from an image that holds downloaded code', () => {
  const log = () => undefined;

  it('a networked box from a marked image is refused before it is made; an offline one is not', async () => {
    const { engine, boxes } = fakeEngine({ deps: MARKED, sandbox: {} });
    await expect(
      BuildBox.start(engine, { image: 'deps', network: 'bridge', labels: {}, log }),
    ).rejects.toThrow(
      /a build step with a network was to start from deps, which holds downloaded code \(piper\.env\.downloaded-code=deps\)/,
    );
    await expect(
      BuildBox.start(engine, { image: 'deps', network: 'host', labels: {}, log }),
    ).rejects.toThrow();
    expect(boxes).toEqual([]);
    await BuildBox.start(engine, { image: 'deps', network: 'none', labels: {}, log });
    await BuildBox.start(engine, { image: 'sandbox', network: 'bridge', labels: {}, log });
    expect(boxes.map((b) => [b.image, b.network])).toEqual([
      ['deps', 'none'],
      ['sandbox', 'bridge'],
    ]);
  });

  it("Debian's packages for a marked image: downloaded from the sandbox image, installed with no network", async () => {
    const { engine, boxes } = fakeEngine({ deps: MARKED, sandbox: {} }, (script) =>
      script.includes('--download-only') ? 'piper-missing nosuchpkg\n' : 'piper-dpkg gcc 14\n',
    );
    const ctx = fakeContext(engine);
    const { box, step } = await aptOffline(ctx, 'deps', 'build tools', ['gcc', 'nosuchpkg'], false);
    expect(step.stdout).toBe('piper-dpkg gcc 14\n');
    expect(box).not.toBeNull();
    expect(boxes.map((b) => [b.image, b.network])).toEqual([
      ['sandbox', 'bridge'],
      ['deps', 'none'],
    ]);
    const [fetch, install] = boxes;
    expect(fetch!.scripts).toEqual([
      aptStep('build tools', ['gcc', 'nosuchpkg'], false, false, true).script,
      carriedDebsStep(['gcc']).script,
    ]);
    expect(install!.scripts).toEqual([aptStep('build tools', ['gcc', 'nosuchpkg'], false, false).script]);
    expect(install!.scripts[0]).not.toContain('apt-get update');
  });
});
