// The command an instance is graded with, and which reader reads its output: the instance's own
// (the public harness's eval script carries it between its "Start Test Output" and "End Test
// Output" markers, and names its log parser) or, for an instance without one, its repository's
// known runner. The harness's command runs in its own conda image; here the same program runs under
// the environment's python3 (first on the sandbox's PATH), with stderr joined to stdout where the
// runner reports on stderr (unittest, and Django's runner through it), so the reader sees it in order.
import type { RunnerKind } from '../../runtime/test-output/outcomes.js';
import type { SweInstance } from './instance-file.js';
import { patchedFiles } from './repos.js';
import { pytestTarget } from './test-grade.js';

export interface TestCommand {
  runner: RunnerKind;
  /** run_test's target: a shell string (or pytest's arguments) run at the work tree's root. */
  target: string;
}

const DJANGO_FLAGS = '--verbosity 2 --settings=test_sqlite --parallel 1';

/** The runner kind of an instance: its log parser's, or its repository's. */
export function runnerOf(instance: SweInstance): RunnerKind {
  const parser = instance.log_parser ?? '';
  if (parser === 'parse_log_django' || (!parser && instance.repo === 'django/django')) return 'unittest';
  if (parser === 'parse_log_sympy' || (!parser && instance.repo === 'sympy/sympy')) return 'sympy';
  return 'pytest';
}

/** The lines of an eval script between its test-output markers, or null when it has none. */
export function markedCommand(evalScript: string | undefined): string | null {
  if (!evalScript) return null;
  const m = /^: '>>>>> Start Test Output'\n([\s\S]*?)\n: '>>>>> End Test Output'$/m.exec(evalScript);
  const command = m?.[1]?.trim();
  return command ? command : null;
}

/** How `instance` is graded here. */
export function testCommand(instance: SweInstance): TestCommand {
  const runner = runnerOf(instance);
  const marked = markedCommand(instance.eval_script);
  if (marked !== null) return { runner, target: sandboxed(marked, runner) };
  return { runner, target: knownRunner(instance, runner) };
}

/** The repository's runner over the files (or Django labels) the test patch touches. */
function knownRunner(instance: SweInstance, runner: RunnerKind): string {
  const files = patchedFiles(instance.test_patch).filter((f) => f.endsWith('.py'));
  if (runner === 'unittest') {
    const labels = files.map((f) =>
      f
        .replace(/^tests\//, '')
        .replace(/\.py$/, '')
        .replace(/\//g, '.'),
    );
    return `python3 tests/runtests.py ${DJANGO_FLAGS} ${labels.join(' ')} 2>&1`;
  }
  if (runner === 'sympy') return `python3 bin/test -C --verbose ${files.join(' ')} 2>&1`;
  return pytestTarget([...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS]);
}

/**
 * The harness's command made to run in the sandbox: leading `VAR=value` words go through `env`
 * (a first word holding `::` would read as a pytest node id), an executable script runs under
 * python3, `tox --current-env -e... --` runs the pytest it wraps, and pytest keeps out of the tree.
 */
export function sandboxed(command: string, runner: RunnerKind): string {
  let rest = command.replace(/\s*\n\s*/g, ' ').trim();
  const assignments: string[] = [];
  for (let m = /^([A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|\S+))\s+/.exec(rest); m;) {
    assignments.push(m[1]!);
    rest = rest.slice(m[0].length);
    m = /^([A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|\S+))\s+/.exec(rest);
  }
  rest = rest.replace(/^tox\b.*?\s--\s/, 'pytest -rA ');
  rest = rest.replace(/^(?:\.\/)?((?:tests\/runtests\.py|bin\/test)\b)/, 'python3 $1');
  rest = rest.replace(/^(?:python3? -m )?pytest\b/, 'python3 -m pytest -p no:cacheprovider');
  const env = assignments.length > 0 ? `env ${assignments.join(' ')} ` : '';
  return `${env}${rest}${runner === 'pytest' ? '' : ' 2>&1'}`;
}
