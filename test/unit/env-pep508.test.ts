// The PEP 508 parser and marker evaluation: the grammar's edge cases, canonical text, precise
// errors, and markers evaluated for the sandbox's Pythons (3.13 on trixie, 3.11 on bookworm).
import { describe, expect, it } from 'vitest';
import { isEnvPlanError } from '../../runtime/env/plan/errors.js';
import { evaluateMarker, renderMarker } from '../../runtime/env/plan/read/marker.js';
import { markerEnvironment } from '../../runtime/env/plan/read/marker-env.js';
import { parseMarker, parseRequirement, renderRequirement } from '../../runtime/env/plan/read/pep508.js';

function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('parseRequirement', () => {
  it('reads name, extras, specifiers and a nested marker', () => {
    const text =
      'name[extra1,extra2] >=1.0, <2 ; python_version < "3.12" and (sys_platform == "linux" or extra == "test")';
    const requirement = parseRequirement(text);
    expect(requirement.name).toBe('name');
    expect(requirement.extras).toEqual(['extra1', 'extra2']);
    expect(requirement.specifiers).toEqual([
      { op: '>=', version: '1.0' },
      { op: '<', version: '2' },
    ]);
    expect(renderMarker(requirement.marker!)).toBe(
      'python_version < "3.12" and (sys_platform == "linux" or extra == "test")',
    );
    expect(renderRequirement(requirement)).toBe(
      'name[extra1,extra2]<2,>=1.0; python_version < "3.12" and (sys_platform == "linux" or extra == "test")',
    );
  });

  it('accepts the grammar’s other spellings', () => {
    expect(renderRequirement(parseRequirement('  A.B-c_d  '))).toBe('A.B-c_d');
    expect(renderRequirement(parseRequirement('pkg (>=1.0,!=1.5.*)'))).toBe('pkg!=1.5.*,>=1.0');
    expect(renderRequirement(parseRequirement('pkg[ b , a ]==2.0.post1'))).toBe('pkg[a,b]==2.0.post1');
    expect(renderRequirement(parseRequirement('pkg[]~=1.4'))).toBe('pkg~=1.4');
    expect(renderRequirement(parseRequirement('pkg===weird-1'))).toBe('pkg===weird-1');
    expect(renderRequirement(parseRequirement("pkg;os_name=='posix'"))).toBe('pkg; os_name == "posix"');
    expect(renderRequirement(parseRequirement('pkg; "linux" in sys_platform'))).toBe(
      'pkg; "linux" in sys_platform',
    );
    expect(renderRequirement(parseRequirement('pkg; platform_machine not  in "arm64 aarch64"'))).toBe(
      'pkg; platform_machine not in "arm64 aarch64"',
    );
    // Legacy dotted variable names, as pypa/packaging still accepts them.
    expect(renderRequirement(parseRequirement('pkg; sys.platform == "linux"'))).toBe(
      'pkg; sys_platform == "linux"',
    );
  });

  it('reads URL requirements; a marker after a URL needs whitespace before the semicolon', () => {
    const url = parseRequirement(
      'pip @ https://example.invalid/pip-24.0-py3-none-any.whl ; python_version >= "3.8"',
    );
    expect(url.url).toBe('https://example.invalid/pip-24.0-py3-none-any.whl');
    expect(url.specifiers).toEqual([]);
    expect(renderRequirement(url)).toBe(
      'pip @ https://example.invalid/pip-24.0-py3-none-any.whl ; python_version >= "3.8"',
    );
    const vcs = parseRequirement('demo[x]@ git+https://example.invalid/demo.git@v1.0#egg=demo');
    expect(vcs.extras).toEqual(['x']);
    expect(vcs.url).toBe('git+https://example.invalid/demo.git@v1.0#egg=demo');
    expect(parseRequirement('x @ file:///tmp/x.whl;python_version>"3"').url).toBe(
      'file:///tmp/x.whl;python_version>"3"',
    );
  });

  it('refuses bad lines with the column and what was expected', () => {
    const cases: Array<[string, RegExp]> = [
      ['>=1.0', /missing distribution name at column 1 \(expected a distribution name\)/],
      ['pkg >= ', /no version after '>=' at column 8/],
      ['pkg >=1.0 <2', /unexpected '<2' at column 11 \(expected the end of the requirement\)/],
      ['pkg[a,', /bad extra name at column 7/],
      ['pkg ~=1', /'~=1' is not a valid PEP 440 specifier at column 7/],
      ['pkg >=1.0.*', /'>=1.0.\*' is not a valid PEP 440 specifier/],
      ['pkg; python_version', /missing marker operator at column 20/],
      ['pkg; pyversion < "3"', /unknown marker variable 'pyversion' at column 6/],
      ['pkg; (os_name == "posix"', /unclosed parenthesis at column 25 \(expected '\)'\)/],
      ['pkg; os_name == "posix', /unterminated string at column 17/],
      ['pkg @ ', /no URL after '@' at column 7/],
      ['pkg-', /unexpected '-' at column 4/],
    ];
    for (const [text, message] of cases) {
      const error = errorOf(() => parseRequirement(text, { file: 'requirements.txt', line: 3 }));
      expect(isEnvPlanError(error, 'bad_requirement'), text).toBe(true);
      expect(error.message, text).toMatch(message);
      expect(error.message.startsWith('requirements.txt:3: invalid requirement')).toBe(true);
    }
  });

  it('never shows a URL credential in an error', () => {
    const error = errorOf(() => parseRequirement('pkg @ https://user:hunter2@example.invalid/x.whl extra'));
    expect(error.message).not.toContain('hunter2');
    expect(error.message).toContain('https://***@example.invalid/x.whl');
  });
});

describe('evaluateMarker', () => {
  const on313 = markerEnvironment('3.13');
  const on311 = markerEnvironment('3.11');
  const holds = (marker: string, env = on313): boolean => evaluateMarker(parseMarker(marker), env);

  it('compares versions with PEP 440, not as strings', () => {
    expect(holds('python_version < "3.12"')).toBe(false);
    expect(holds('python_version < "3.12"', on311)).toBe(true);
    expect(holds('python_version >= "3.9"')).toBe(true); // as strings "3.13" < "3.9"
    expect(holds('python_version == "3.13.0"')).toBe(true); // zero padding
    expect(holds('python_full_version == "3.13.*"')).toBe(true);
    expect(holds('python_full_version ~= "3.13.2"')).toBe(true);
    expect(holds('python_full_version < "3.11.3"', on311)).toBe(true);
    expect(holds('implementation_version >= "3.13.5"')).toBe(true);
    expect(holds('"3.14" > python_version')).toBe(true);
  });

  it('compares other values as strings, with in / not in', () => {
    expect(holds('sys_platform == "linux" and platform_system == "Linux" and os_name == "posix"')).toBe(true);
    expect(holds('platform_machine == "x86_64" and implementation_name == "cpython"')).toBe(true);
    expect(holds('platform_python_implementation != "CPython"')).toBe(false);
    expect(holds('sys_platform == "win32" or sys_platform == "darwin"')).toBe(false);
    expect(holds('"linux" in sys_platform')).toBe(true);
    expect(holds('platform_machine not in "arm64 aarch64"')).toBe(true);
  });

  it('binds and tighter than or, and honours parentheses', () => {
    expect(holds('os_name == "nt" and python_version > "3" or sys_platform == "linux"')).toBe(true);
    expect(holds('os_name == "nt" and (python_version > "3" or sys_platform == "linux")')).toBe(false);
  });

  it('compares extra names normalized, and "" when no extra is installed', () => {
    expect(holds('extra == "test"')).toBe(false);
    expect(holds('extra == "Test_Suite"', markerEnvironment('3.13', 'test-suite'))).toBe(true);
    expect(holds('extra != "docs"', markerEnvironment('3.13', 'test'))).toBe(true);
  });

  it('refuses ~= between values that are not versions', () => {
    const error = errorOf(() => holds('sys_platform ~= "linux"'));
    expect(isEnvPlanError(error, 'bad_requirement')).toBe(true);
    expect(error.message).toMatch(/'~=' compares versions/);
  });
});
