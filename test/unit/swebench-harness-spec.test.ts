// The SWE-bench harness's install specs as data (eval/swebench/data/harness-specs.json) and how an
// entry becomes an untrusted recipe: pins and package words as requirements, `.[x]` as extras,
// apt-get lines as Debian names, a sed that writes a requirement as that requirement; nothing run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specEntry, parseSpecFile } from '../../eval/swebench/harness-spec.js';
import { seriesPin, specRecipe } from '../../eval/swebench/spec-recipe.js';
import { keepDeclaredExtras } from '../../eval/swebench/spec-extras.js';
import { aptPackages, sedRequirements } from '../../eval/swebench/spec-steps.js';
import { specDebian } from '../../eval/swebench/debian-choice.js';
import type { SweInstance } from '../../eval/swebench/instance-file.js';

const instance = (repo: string, version?: string) =>
  ({ instance_id: 'x-1', repo, base_commit: 'abcdef1', version }) as unknown as SweInstance;

describe('the harness specs as data', () => {
  it('the committed file names its source and has the repositories the dev files need', () => {
    const entry = specEntry(instance('astropy/astropy', '5.0'));
    expect(entry?.source).toMatch(
      /^github\.com\/SWE-bench\/SWE-bench@[0-9a-f]{7} swebench\/harness\/constants\/python\.py$/,
    );
    expect(entry?.spec.python).toBe('3.9');
    const dev = {
      'pallets/flask': '2.0',
      'psf/requests': '2.26',
      'pydata/xarray': '0.12',
      'sympy/sympy': '1.1',
    };
    for (const [repo, version] of Object.entries(dev))
      expect(specEntry(instance(repo, version))).not.toBeNull();
  });

  it('an instance with no version, or a version with no entry, has none', () => {
    expect(specEntry(instance('astropy/astropy'))).toBeNull();
    expect(specEntry(instance('astropy/astropy', '99.9'))).toBeNull();
    expect(specEntry(instance('someone/else', '1.0'))).toBeNull();
  });

  it('a file that is not of the shape is refused', () => {
    expect(() => parseSpecFile({ specs: {} })).toThrow();
  });
});

describe('pre-install lines read as text', () => {
  it('apt-get install lines give Debian package names', () => {
    expect(aptPackages('apt-get update && apt-get install -y libenchant-2-dev hunspell-en-us')).toEqual([
      'libenchant-2-dev',
      'hunspell-en-us',
    ]);
    expect(aptPackages('apt-get install -y $(cat pkgs)')).toBeNull();
    expect(aptPackages('sed -i s/a/b/ setup.py')).toBeNull();
  });

  it('a sed that writes a requirement into a declaration file gives that requirement', () => {
    expect(sedRequirements("sed -i 's/Jinja2>=2.3/Jinja2<3.0/' setup.py")).toEqual(['Jinja2<3.0']);
    expect(sedRequirements(`sed -i "s/'packaging',/'packaging', 'markupsafe<=2.0.1',/" setup.py`)).toEqual([
      'markupsafe<=2.0.1',
    ]);
    expect(
      sedRequirements(
        `sed -i 's/requires = \\["setuptools",/requires = \\["setuptools==68.0.0",/' pyproject.toml`,
      ),
    ).toEqual(['setuptools==68.0.0']);
    // Of `grep && sed || sed`, the last: it applies to any text.
    expect(
      sedRequirements(
        "grep -q 'x>=2' setup.py && sed -i 's/x>=2/x>=2,<=3/' setup.py || sed -i 's/x/x<=3/' setup.py",
      ),
    ).toEqual(['x<=3']);
  });

  it('a sed on another file is not a requirement', () => {
    expect(sedRequirements("sed -i 's/pytest/pytest -rA/' tox.ini")).toBeNull();
  });
});

describe('a spec as an untrusted recipe', () => {
  it('pins, package words and extras become the recipe; nothing is run', () => {
    const made = specRecipe({
      python: '3.9',
      packages: "'numpy==1.19.2' pytest",
      pip_packages: ['tox==4.16.0', 'Jinja2==3.0.3'],
      install: 'python -m pip install -e .[test]',
      pre_install: [
        "sed -i 's/pytest/pytest -rA/' tox.ini",
        "sed -i 's/Jinja2>=2.3/Jinja2<3.0/' setup.py",
        'apt-get update && apt-get install -y graphviz',
      ],
      test_cmd: 'tox --current-env -epy39 -v --',
      no_use_env: true,
    });
    expect(made.recipe).toEqual({
      // The sed's Jinja2<3.0 replaces the pin: the harness installs the declarations last.
      requirements: ['numpy==1.19.2', 'pytest', 'tox==4.16.0', 'Jinja2<3.0'],
      apt: ['graphviz'],
      extras: ['test'],
    });
    expect(made.recipe.setup).toBeUndefined();
    expect(made.dropped.join('\n')).toMatch(/tox\.ini.*not run/);
    expect(made.dropped.join('\n')).toMatch(/no_use_env: not an install step/);
  });

  it("a package list that names the repository's file adds nothing; a plain install is the project's", () => {
    const made = specRecipe({ packages: 'requirements.txt', install: 'python -m pip install -e .' });
    expect(made.recipe).toEqual({});
    expect(made.applied[0]).toMatch(/read as its declarations/);
    expect(made.dropped[0]).toMatch(/installed from its declarations/);
    expect(specRecipe({ packages: 'environment.yml' }).dropped[0]).toMatch(/conda environment file/);
  });
});

describe("the spec's Python", () => {
  it('the release with that Python, else the nearest newer', () => {
    expect(specDebian('3.11').release).toBe('bookworm');
    expect(specDebian('3.13').release).toBe('trixie');
    expect(specDebian('3.12').release).toBe('trixie');
    expect(specDebian('3.10').why).toMatch(/not in the sandbox/);
  });
});

describe('a spec on a Python other than its own', () => {
  it('its exact pins become their release series', () => {
    expect(seriesPin('numpy==1.23.0')).toBe('numpy==1.23.*');
    expect(seriesPin('exceptiongroup==0.0.0a0')).toBe('exceptiongroup==0.0.*');
    expect(seriesPin('pytest')).toBe('pytest');
    expect(seriesPin('Jinja2<3.0')).toBe('Jinja2<3.0');
    const spec = { python: '3.10', pip_packages: ['numpy==1.23.0', 'pytest'] };
    expect(specRecipe(spec, '3.11').recipe.requirements).toEqual(['numpy==1.23.*', 'pytest']);
    expect(specRecipe(spec, '3.10').recipe.requirements).toEqual(['numpy==1.23.0', 'pytest']);
    expect(specRecipe(spec).recipe.requirements).toEqual(['numpy==1.23.0', 'pytest']);
  });
});

describe('the extras of a spec', () => {
  it('only those the project declares where the plan reads them are kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spec-extras-'));
    try {
      writeFileSync(join(dir, 'setup.cfg'), '[options.extras_require]\ntest =\n    pytest\n');
      const made = specRecipe({ install: 'python -m pip install -e .[test,all]' });
      const kept = keepDeclaredExtras(made, dir);
      expect(kept.recipe.extras).toEqual(['test']);
      expect(kept.dropped.at(-1)).toMatch(/^extras all: not declared/);
      rmSync(join(dir, 'setup.cfg'));
      expect(keepDeclaredExtras(made, dir).recipe.extras).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
