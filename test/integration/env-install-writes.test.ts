// Downloaded code never shares a box with the network, against the real CLI and engine: an install
// may write only the venv. A wheel from the index whose .pth writes into /etc and /usr/share when a
// Python starts (the import check starts one, as root), and a repository wheel whose data files go
// through the venv's share/gdal link into Debian's /usr/share/gdal, each fail the build naming the
// paths, and no image keeps them. An honest wheel's data files (a man page, jupyter files) stay in
// the venv, whose share/ is its own directory with a link for PROJ's and GDAL's data only, and the
// image is marked as holding downloaded code (no networked step starts from it).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { DOWNLOADED_CODE_LABEL } from '../../runtime/env/build/offline/downloaded-code-label.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-writes-');
afterAll(() => repos.cleanup(engine));

const WRITTEN = ['/etc/piper-written-by-a-wheel', '/usr/share/piper-written-by-a-wheel'];

/** A .pth line: at every Python start, as whoever runs it. */
function pthWriting(paths: string[]): string {
  const body = [
    `for p in ${JSON.stringify(paths)}:`,
    '    try:',
    '        open(p, "w").write("x")',
    '    except Exception:',
    '        pass',
  ].join('\n');
  return `import sys; exec(${JSON.stringify(body)})\n`;
}

function project(name: string, dependencies: string[]): Record<string, string> {
  return {
    'pyproject.toml': `[project]\nname = "${name}"\nversion = "1.0"\ndependencies = ${JSON.stringify(dependencies)}\n`,
  };
}

async function projectImages(repo: string): Promise<string[]> {
  return (await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`])).map((i) => i.id);
}

describe('an install writes only the venv', () => {
  it("an index wheel's .pth that writes /etc and /usr/share fails the build, naming the paths", async () => {
    const wheel = buildWheel(repos.scratch, 'scribbler', '1.0', {
      'scribbler.py': 'VALUE = 1\n',
      'scribbler_hook.pth': pthWriting(WRITTEN),
    });
    const index = await serveSimpleIndex([wheel]);
    const repo = repos.newRepo('scribbler-app', {
      ...project('scribbler-app', ['scribbler==1.0']),
      'tests/test_x.py': 'def test_x():\n    assert True\n',
    });
    try {
      const r = await runCli(['env', 'build', '--repo', repo], {
        env: { ...NO_PIP, PIP_INDEX_URL: index.url },
      });
      expect(r.code, r.stderr.slice(-3000)).toBe(2);
      expect(r.stderr).toContain('the install of the dependencies wrote outside the venv (/opt/piper/venv)');
      for (const path of WRITTEN) expect(r.stderr).toContain(`${path} (added)`);
      expect(await projectImages(repo)).toEqual([]);
      const [row] = envRows(repo);
      expect(row!.status).toBe('failed');
      expect(row!.error).toContain('/etc/piper-written-by-a-wheel (added)');
    } finally {
      await index.close();
    }
  });

  it("a repository wheel's data files through the venv's share/gdal link into Debian's fail the build", async () => {
    const repo = repos.newRepo('gdalish-app', {
      ...project('gdalish-app', ['gdalish==1.0']),
      'tests/test_x.py': 'def test_x():\n    assert True\n',
    });
    mkdirSync(join(repo, '.piper'), { recursive: true });
    // Debian's GDAL data (400 KB) makes /usr/share/gdal exist, so the link leads somewhere.
    writeFileSync(join(repo, '.piper', 'sandbox.toml'), 'apt = ["gdal-data"]\nfind_links = ["wheelhouse"]\n');
    mkdirSync(join(repo, 'wheelhouse'));
    buildWheel(join(repo, 'wheelhouse'), 'gdalish', '1.0', {
      'gdalish.py': 'VALUE = 1\n',
      'gdalish-1.0.data/data/share/gdal/piper-written-through-the-link.txt': 'x\n',
    });
    const r = await runCli(['env', 'build', '--repo', repo], { env: NO_PIP });
    expect(r.code, r.stderr.slice(-3000)).toBe(2);
    expect(r.stderr).toContain(
      "the install of the repository's wheels wrote outside the venv (/opt/piper/venv), where nothing installed may write: /usr/share/gdal/piper-written-through-the-link.txt (added); nothing of it is kept",
    );
    // The dependencies' image is kept (nothing of the repository's is in it); no image has the file.
    for (const image of await projectImages(repo))
      expect(
        execFileSync('docker', ['run', '--rm', '--network', 'none', image, 'ls', '/usr/share/gdal'], {
          encoding: 'utf8',
        }),
      ).not.toContain('piper-written');
  });

  it("an honest wheel's data files stay in the venv; share/ is the venv's own; the image is marked", async () => {
    const wheel = buildWheel(repos.scratch, 'honest', '1.0', {
      'honest.py': 'VALUE = 1\n',
      'honest-1.0.data/data/share/man/man1/honest.1': '.TH HONEST 1\n',
      'honest-1.0.data/data/share/jupyter/labextensions/honest/package.json': '{}\n',
    });
    const index = await serveSimpleIndex([wheel]);
    const repo = repos.newRepo('honest-app', {
      ...project('honest-app', ['honest==1.0']),
      'tests/test_layout.py': [
        'import os',
        '',
        'def test_layout():',
        '    assert os.path.isfile("/opt/piper/venv/share/man/man1/honest.1")',
        '    assert os.path.isfile("/opt/piper/venv/share/jupyter/labextensions/honest/package.json")',
        '    assert not os.path.exists("/usr/share/man/man1/honest.1")',
        '    assert not os.path.islink("/opt/piper/venv/share")',
        '    assert os.readlink("/opt/piper/venv/share/proj") == "/usr/share/proj"',
        '    assert os.readlink("/opt/piper/venv/share/gdal") == "/usr/share/gdal"',
        '',
      ].join('\n'),
    });
    try {
      const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], {
        env: { ...NO_PIP, PIP_INDEX_URL: index.url },
      });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      const [row] = envRows(repo);
      expect(row!.status).toBe('built');
      const labels = JSON.parse(
        execFileSync('docker', ['image', 'inspect', '--format', '{{json .Config.Labels}}', row!.image], {
          encoding: 'utf8',
        }),
      ) as Record<string, string>;
      expect(labels[DOWNLOADED_CODE_LABEL]).toBe('deps');
    } finally {
      await index.close();
    }
  });
});
