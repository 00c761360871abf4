// `piper-agent ab validate` on instances graded by runners other than pytest, from small committed
// fixtures (test/fixtures/swebench/{django,sympy}-style, each made by its make-instances.py), in
// the real sandbox: a Django project run by a runner in the manner of Django's tests/runtests.py at
// --verbosity 2 over Debian's Django, its ids as SWE-bench's Django instances write them
// (`test_x (module.Class)`, a docstring's first line); and a project whose bin/test runs sympy's
// own runner and reporter (Debian's sympy) with -C --verbose, its ids bare function names. In each,
// one instance carries the harness's eval script and the other only names the log parser; all are
// valid, and their outcomes before the fix are exactly what the runner printed.
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { abValidateCommand } from '../../eval/swebench/validate-command.js';
import type { Validation } from '../../eval/swebench/validate.js';
import { packageRoot } from '../../runtime/package-root.js';
import { expectNoContainersLeft } from '../helpers/sandbox.js';

const DJANGO = join(packageRoot(), 'test', 'fixtures', 'swebench', 'django-style');
const SYMPY = join(packageRoot(), 'test', 'fixtures', 'swebench', 'sympy-style');

async function validate(dir: string, out: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const lines: string[] = [];
  const progress: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    progress.push(String(chunk));
    return true;
  });
  try {
    const args = ['--bench', join(dir, 'instances.jsonl'), '--repos', join(dir, 'repos'), '--out', out];
    // These fixtures stand on Debian's Django and sympy: the index is never asked.
    vi.stubEnv('PIPER_SOURCES', 'debian');
    const code = await abValidateCommand(args).finally(() => vi.unstubAllEnvs());
    return { code, stdout: lines.join(''), stderr: progress.join('') };
  } finally {
    spy.mockRestore();
    errSpy.mockRestore();
  }
}

describe('ab validate with Django-style runner (real sandbox, Debian Django)', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'piper-swe-runners-it-')), 'out');
  let run: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    run = await validate(DJANGO, out);
  }, 1_800_000);

  afterAll(async () => {
    await expectNoContainersLeft();
  });

  it('calls both instances valid and exits 0', () => {
    expect(run.stdout).toMatch(/^valid +fixture__django-shapes-1 \(/m);
    expect(run.stdout).toMatch(/^valid +fixture__django-shapes-2 \(/m);
    expect(run.stdout).toMatch(/^2 of 2 instance\(s\) valid, 0 invalid/m);
    expect(run.code).toBe(0);
  });

  it('reads each test by the id Django instances use, before and after the fix', () => {
    const cached = Object.values(
      JSON.parse(readFileSync(join(out, 'validation.json'), 'utf8')) as Record<string, Validation>,
    );
    const first = cached.find((v) => v.instanceId === 'fixture__django-shapes-1')!;
    expect(first.before).toEqual({
      'test_square_area (shapes_tests.tests.AreaTests)': 'failed',
      'The area of a rectangle is its width times its height.': 'failed',
      'test_square (shapes_tests.tests.PerimeterTests)': 'passed',
      "A rectangle's perimeter counts each side twice.": 'passed',
      'test_noisy (shapes_tests.tests.PerimeterTests)': 'passed',
      'test_saved (shapes_tests.tests.ShapeModelTests)': 'passed',
    });
    expect(Object.values(first.gold!).every((s) => s === 'passed')).toBe(true);
  });

  it('said each phase of each instance on stderr (no terminal: one line per phase)', () => {
    for (const phase of ['repository', 'environment', 'tests before', 'tests after'])
      expect(run.stderr).toContain(`[1/2] fixture__django-shapes-1: ${phase}\n`);
    expect(run.stderr).toContain('[2/2] fixture__django-shapes-2: tests after\n');
  });
});

describe("ab validate with sympy's runner (real sandbox, Debian sympy)", () => {
  const out = join(mkdtempSync(join(tmpdir(), 'piper-swe-runners-it-')), 'out');
  let run: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    run = await validate(SYMPY, out);
  }, 1_800_000);

  afterAll(async () => {
    await expectNoContainersLeft();
  });

  it('calls both instances valid and exits 0', () => {
    expect(run.stdout).toMatch(/^valid +fixture__sympy-polyfun-1 \(/m);
    expect(run.stdout).toMatch(/^valid +fixture__sympy-polyfun-2 \(/m);
    expect(run.code).toBe(0);
  });

  it('reads each test by its bare function name, before and after the fix', () => {
    const cached = Object.values(
      JSON.parse(readFileSync(join(out, 'validation.json'), 'utf8')) as Record<string, Validation>,
    );
    for (const id of ['fixture__sympy-polyfun-1', 'fixture__sympy-polyfun-2']) {
      const v = cached.find((c) => c.instanceId === id)!;
      expect(v.before).toEqual({
        test_complex_pair: 'failed',
        test_quadratic: 'passed',
        test_linear: 'passed',
        test_cubic: 'passed',
      });
      expect(Object.values(v.gold!).every((s) => s === 'passed')).toBe(true);
    }
  });

  it("builds the second base commit's environment on the first one's Debian packages", () => {
    const cached = JSON.parse(readFileSync(join(out, 'validation.json'), 'utf8')) as Record<
      string,
      Validation
    >;
    const env = (id: string) => Object.values(cached).find((c) => c.instanceId === id)!.environment!;
    const [first, second] = [env('fixture__sympy-polyfun-1'), env('fixture__sympy-polyfun-2')];
    // Another version is other declarations: an environment of its own...
    expect(second.key).not.toBe(first.key);
    // ...whose image and the first's both stand on one kept Debian layer (sympy and its kin).
    const layersOf = (ref: string) =>
      JSON.parse(
        execFileSync('docker', ['image', 'inspect', '--format', '{{json .RootFS.Layers}}', ref], {
          encoding: 'utf8',
        }),
      ) as string[];
    const under = (layer: string[], image: string[]) => layer.every((l, i) => image[i] === l);
    const [a, b] = [layersOf(first.image), layersOf(second.image)];
    const kept = execFileSync('docker', ['images', '--quiet', 'piper-debian-packages'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(kept.some((id) => under(layersOf(id), a) && under(layersOf(id), b))).toBe(true);
    if (second.status === 'built') {
      // Built now, it said where its Debian packages came from: that layer, not apt.
      const db = new Database(join(out, 'ledger.db'), { readonly: true });
      const row = db
        .prepare('SELECT steps FROM environments WHERE image = ? ORDER BY id DESC')
        .get(second.image) as {
        steps: string;
      };
      db.close();
      const steps = JSON.parse(row.steps) as Array<{ name: string; command: string }>;
      expect(steps.find((s) => s.name === 'debian')?.command).toMatch(
        /^reused piper-debian-packages:[0-9a-f]{12}$/,
      );
    }
  });
});
