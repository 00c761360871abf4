// The programs a test tree runs become Debian packages of the plan's apt list, from a fixed table
// only, each with the decision saying where it was seen.
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { ProgramScan } from '../../runtime/env/plan/infer/programs.js';
import { planRepo } from '../helpers/env-plan-repo.js';

function scanned(source: string): Array<[string, string | null, string]> {
  const scan = new ProgramScan();
  scan.read(source, 'tests/test_x.py');
  return scan.found().map((u) => [u.program, u.debian, `${u.where} ${u.call}`]);
}

describe('ProgramScan', () => {
  it('reads the program of each call form: a list, a shell string, a path, which, a bare imported name', () => {
    const source = [
      'import os, shutil, subprocess',
      'from subprocess import check_call',
      'subprocess.run(["hg", "--version"], check=True)',
      'out = subprocess.check_output("svn info --xml", shell=True)',
      'os.system("unzip -q archive.zip")',
      'HAS_BRZ = shutil.which("brz") is not None',
      'check_call(("/usr/bin/patch", "-p1"))',
      'proc = subprocess.Popen(',
      '    ["gcc", "-c", "x.c"],',
      ')',
      'make = subprocess.run(["make", "all"])',
    ].join('\n');
    expect(scanned(source)).toEqual([
      ['hg', 'mercurial', 'tests/test_x.py:3 subprocess.run'],
      ['svn', 'subversion', 'tests/test_x.py:4 subprocess.check_output'],
      ['unzip', 'unzip', 'tests/test_x.py:5 os.system'],
      ['brz', 'brz', 'tests/test_x.py:6 shutil.which'],
      ['patch', 'patch', 'tests/test_x.py:7 check_call'],
      ['gcc', 'gcc', 'tests/test_x.py:8 subprocess.Popen'],
      ['make', null, 'tests/test_x.py:11 subprocess.run'],
    ]);
  });

  it('takes no name from the repository as a package, and no call it cannot read', () => {
    const source = [
      'subprocess.run(["mytool", "build"])', // not in the table
      'runner.run("hg")', // another object's run
      'def run(cmd): pass', // a definition, not a call
      'subprocess.run(f"{HG} status")', // an f-string: not read
      'subprocess.run(cmd)', // a variable: not followed
      '# subprocess.run(["svn"])',
      'text = "subprocess.run([\'zip\'])"',
    ].join('\n');
    expect(scanned(source)).toEqual([]);
  });

  it('adds each package once, after what the recipe lists, with a decision each', () => {
    const scan = new ProgramScan();
    scan.read('subprocess.run(["hg", "init"])\nsubprocess.run(["hg", "commit"])\n', 'tests/test_a.py');
    scan.read('subprocess.run(["svnadmin", "create", "r"])\nos.system("git init")\n', 'tests/test_b.py');
    scan.read('subprocess.run(["svn", "co", "r"])\n', 'tests/test_c.py');
    const decisions: string[] = [];
    expect(scan.withPackages(['subversion'], decisions)).toEqual(['subversion', 'mercurial']);
    expect(decisions).toEqual([
      'apt mercurial: tests/test_a.py:1 runs hg (subprocess.run)',
      'tests/test_b.py:1 runs svnadmin (subprocess.run): apt subversion is already listed',
      'tests/test_b.py:2 runs git (os.system): the sandbox image has it',
      'tests/test_c.py:1 runs svn (subprocess.run): apt subversion is already listed',
    ]);
  });
});

describe('planEnvironment with programs the tests run', () => {
  it("puts their packages in the plan's apt list, after the recipe's, and says why", () => {
    const root = planRepo({
      '.piper/sandbox.toml': 'apt = ["zstd"]\n',
      'tests/test_vcs.py': 'import subprocess\n\ndef test_hg():\n    subprocess.run(["hg", "--version"])\n',
      'tests/conftest.py': 'import shutil\nHAS_PATCH = shutil.which("patch")\n',
      'src/notes.py': 'import subprocess\nsubprocess.run(["svn", "info"])\n',
    });
    const plan = planEnvironment(root);
    // In the walk's order: conftest.py files first.
    expect(plan.apt).toEqual(['zstd', 'patch', 'mercurial']);
    expect(plan.decisions).toContain('apt mercurial: tests/test_vcs.py:4 runs hg (subprocess.run)');
    expect(plan.decisions).toContain('apt patch: tests/conftest.py:2 runs patch (shutil.which)');
  });

  it('adds nothing when detection is off', () => {
    const root = planRepo({
      '.piper/sandbox.toml': 'detect = false\n',
      'tests/test_vcs.py': 'import subprocess\nsubprocess.run(["hg", "--version"])\n',
    });
    expect(planEnvironment(root).apt).toEqual([]);
  });
});

describe('planEnvironment with packages the CI workflow installs', () => {
  it('adds those of its table, says where each came from, and names the ones it leaves out', () => {
    const root = planRepo({
      '.github/workflows/main.yml': [
        'name: CI',
        'jobs:',
        '  tests:',
        '    runs-on: ubuntu-latest',
        '    steps:',
        '      - name: Install graphviz',
        '        run: sudo apt-get update && sudo apt-get install -y --no-install-recommends graphviz',
        '      - name: Tools',
        '        run: |',
        '          sudo DEBIAN_FRONTEND=noninteractive apt install texlive-latex-extra patch $EXTRA',
        '      - run: python -m pytest tests',
        '',
      ].join('\n'),
      'tests/test_a.py': 'def test_a():\n    pass\n',
    });
    const plan = planEnvironment(root);
    expect(plan.apt).toEqual(['graphviz', 'patch']);
    // The packages are in the key (the apt list); the workflow file itself is not an input.
    expect(plan.inputs.map((i) => i.path)).not.toContain('.github/workflows/main.yml');
    expect(plan.decisions).toContain(
      'apt graphviz: .github/workflows/main.yml job tests step "Install graphviz" installs it on the CI runner',
    );
    expect(plan.decisions).toContain(
      '.github/workflows/main.yml job tests step "Tools" installs texlive-latex-extra on the CI runner: not added (not among the everyday packages piper installs for a suite)',
    );
  });

  it('reads a hostile run line in linear time', () => {
    const hostile = `x${'=a'.repeat(150_000)}`;
    const root = planRepo({
      '.github/workflows/ci.yml': `jobs:\n  t:\n    steps:\n      - run: ${hostile}\n      - run: pytest\n`,
      'tests/test_a.py': 'def test_a():\n    pass\n',
    });
    const t0 = Date.now();
    expect(planEnvironment(root).apt).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('takes no package from a workflow that installs none of the table', () => {
    const root = planRepo({
      '.github/workflows/ci.yml':
        'jobs:\n  t:\n    steps:\n      - run: sudo apt-get install -y libxml2-dev\n      - run: pytest\n',
      'tests/test_a.py': 'def test_a():\n    pass\n',
    });
    expect(planEnvironment(root).apt).toEqual([]);
  });
});
