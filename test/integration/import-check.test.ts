// The import check of an environment build (runtime/env/build/import-check.ts), run as the
// builder runs it, in a real box of the sandbox image: a distribution in Debian's directories whose
// module raises at import (not ImportError) is hidden behind a stub that raises ModuleNotFoundError
// with the reason, as an absent module does, so `pytest.importorskip` and a suite's own `except
// ImportError` (or `except ModuleNotFoundError`) skip; one that imports, one that is merely absent
// and one whose import raises ImportError are left alone; a broken module in the venv itself is
// reported and kept (a stub cannot go in front of it); one whose import hangs is left as it is when
// the check's budget ends, and the step still ends in time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildBox } from '../../runtime/env/build/build-box.js';
import { importCheckStep, parseImportCheck, parseSlowImports } from '../../runtime/env/build/import-check.js';
import { LABEL } from '../../runtime/sandbox/hardening.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { engine, expectNoContainersLeft, IMAGE } from '../helpers/sandbox.js';

let box: BuildBox;
let python = '';

/** A distribution with one top-level module, its dist-info and top_level.txt, under `dir`. */
function distScript(dir: string, name: string, body: string): string {
  return [
    `mkdir -p ${dir}/${name} ${dir}/${name}-1.0.dist-info`,
    `printf '%s\\n' ${JSON.stringify(body)} > ${dir}/${name}/__init__.py`,
    `printf 'Metadata-Version: 2.1\\nName: ${name}\\nVersion: 1.0\\n' > ${dir}/${name}-1.0.dist-info/METADATA`,
    `echo ${name} > ${dir}/${name}-1.0.dist-info/top_level.txt`,
  ].join('\n');
}

beforeAll(async () => {
  box = await BuildBox.start(engine, {
    image: IMAGE,
    network: 'none',
    labels: { [LABEL.owner]: formatOwner(currentOwner()) },
    log: () => undefined,
  });
  const version = await box.run({
    name: 'python',
    script: 'python3 -c "import sys; print(\'%d.%d\' % sys.version_info[:2])"',
    timeoutS: 30,
  });
  python = version.stdout.trim();
  const debian = '/usr/lib/python3/dist-packages';
  const venvSite = `/opt/piper/venv/lib/python${python}/site-packages`;
  const setup = await box.run({
    name: 'set up',
    script: [
      'set -e',
      'python3 -m venv --without-pip --system-site-packages /opt/piper/venv',
      distScript(
        debian,
        'brokendata',
        'raise RuntimeError("no data directory found: /usr/share/brokendata")',
      ),
      distScript(debian, 'finemod', 'VALUE = 1'),
      distScript(debian, 'needslib', 'raise ImportError("libneeds.so.1: cannot open shared object file")'),
      distScript(venvSite, 'venvbroken', 'raise ValueError("bad config")'),
      distScript(debian, 'hangs', 'import time; time.sleep(600)'),
    ].join('\n'),
    timeoutS: 60,
  });
  expect(setup.exit_code, setup.output_tail).toBe(0);
}, 120_000);

afterAll(async () => {
  await box?.remove();
  await expectNoContainersLeft();
});

describe('the import check of an environment build', () => {
  let found: ReturnType<typeof parseImportCheck> = [];

  it('finds the modules that raise at import, and only those', async () => {
    // A budget of 10 s: the module that hangs is left as it is, reported slow, and the step ends.
    const step = importCheckStep(
      python,
      ['hangs', 'brokendata', 'finemod', 'needslib', 'venvbroken', 'absent-dist'],
      10,
    );
    const r = await box.run(step);
    expect(r.exit_code, r.output_tail).toBe(0);
    expect(parseSlowImports(r.stdout)).toEqual(['hangs (hangs)']);
    found = parseImportCheck(r.stdout);
    expect(found.sort((a, b) => a.dist.localeCompare(b.dist))).toEqual([
      {
        dist: 'brokendata',
        module: 'brokendata',
        hidden: true,
        why: 'RuntimeError: no data directory found: /usr/share/brokendata',
      },
      { dist: 'venvbroken', module: 'venvbroken', hidden: false, why: 'ValueError: bad config' },
    ]);
  }, 120_000);

  it('makes the hidden module raise ModuleNotFoundError with the reason, as an absent one does', async () => {
    const r = await box.run({
      name: 'use',
      script: [
        '/opt/piper/venv/bin/python - <<"EOF"',
        'try:',
        '    import brokendata',
        'except ModuleNotFoundError as e:',
        '    print("ModuleNotFoundError:", e, e.name)',
        'import finemod; print("finemod", finemod.VALUE)',
        'EOF',
      ].join('\n'),
      timeoutS: 60,
    });
    expect(r.exit_code, r.output_tail).toBe(0);
    expect(r.stdout).toContain(
      'ModuleNotFoundError: brokendata (brokendata) fails at import in this environment: RuntimeError: no data directory found: /usr/share/brokendata; piper hid it, so tests that skip without it skip brokendata',
    );
    expect(r.stdout).toContain('finemod 1');
  }, 60_000);
});
