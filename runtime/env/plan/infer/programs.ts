// The everyday programs a test tree runs, and the Debian package each one comes in: a test that
// calls `subprocess.run(["hg", ...])`, `check_output("svn info")`, `os.system("patch ...")` or
// `shutil.which("unzip")` passes on a CI runner, which has them, and fails in a sandbox that does
// not. As the tree's imports add distributions (infer.ts), its program calls add packages to the
// plan's apt list. Only this fixed table is ever used: a name read from the repository is looked
// up in it and never becomes a package name itself. The files are read, never run.
import { logicalLines, type Token } from '../read/python-lexer.js';
import type { CiInstall } from '../tests/ci-workflow.js';

/** Program → Debian package, each present in trixie and bookworm. Network tools are left out: the sandbox has none. */
const PROGRAM_PACKAGES: Readonly<Record<string, string>> = {
  hg: 'mercurial',
  svn: 'subversion',
  svnadmin: 'subversion',
  // bzr is Debian's transitional package to Breezy (brz), which gives the `bzr` command.
  bzr: 'bzr',
  brz: 'brz',
  fossil: 'fossil',
  darcs: 'darcs',
  patch: 'patch',
  gcc: 'gcc',
  cc: 'gcc',
  'g++': 'g++',
  'c++': 'g++',
  unzip: 'unzip',
  zip: 'zip',
  bzip2: 'bzip2',
  xz: 'xz-utils',
  zstd: 'zstd',
  file: 'file',
  sqlite3: 'sqlite3',
  openssl: 'openssl',
  gpg: 'gpg',
  dot: 'graphviz',
};

/** The packages of the table: the only ones a CI line's apt install adds (its words are looked up, never used). */
const KNOWN_PACKAGES = new Set(Object.values(PROGRAM_PACKAGES));

/** Programs the sandbox image already has (sandbox-images/python/recipe.json): no package is added for them. */
const IN_IMAGE = new Set(['git', 'make', 'cpp', 'less', 'ps', 'pgrep', 'python', 'python3', 'sh', 'bash']);

/** Calls whose first argument names a program: subprocess, os, shutil, asyncio and a bare imported name. */
const CALLS = new Set([
  'run',
  'call',
  'check_call',
  'check_output',
  'Popen',
  'getoutput',
  'getstatusoutput',
  'system',
  'popen',
  'which',
  'find_executable',
  'execvp',
  'execlp',
  'create_subprocess_exec',
  'create_subprocess_shell',
]);
const MODULES = new Set(['subprocess', 'sp', 'os', 'shutil', 'asyncio', 'spawn']);

export interface ProgramUse {
  program: string;
  /** The Debian package, or null when the sandbox image has the program. */
  debian: string | null;
  /** `file:line` of the first use seen. */
  where: string;
  /** The call that runs it there, e.g. `subprocess.run`. */
  call: string;
}

/** The program a call's first argument runs: a string, or the first string of a list or tuple. */
function calledProgram(tokens: Token[], at: number): { program: string; call: string } | null {
  const name = tokens[at]!;
  if (name.kind !== 'name' || !CALLS.has(name.text) || tokens[at + 1]?.text !== '(') return null;
  const before = tokens[at - 1];
  if (before?.text === 'def') return null;
  if (before?.text === '.' && !MODULES.has(tokens[at - 2]?.text ?? '')) return null;
  let arg = tokens[at + 2];
  if (arg?.text === '[' || arg?.text === '(') arg = tokens[at + 3];
  if (arg?.kind !== 'string' || arg.value === undefined) return null;
  // A shell string's first word; a path's last segment (/usr/bin/hg is hg).
  const word = arg.value.trim().split(/\s+/)[0] ?? '';
  const program = word.split('/').pop() ?? '';
  const call = before?.text === '.' ? `${tokens[at - 2]!.text}.${name.text}` : name.text;
  return program ? { program, call } : null;
}

export class ProgramScan {
  private readonly uses = new Map<string, ProgramUse>();
  private readonly ciInstalled: CiInstall[] = [];

  /**
   * The packages the project's CI installs with apt (ci-workflow.ts): a suite that finds `dot`
   * through its configuration, not a literal call, passes on the runner because a step installed it.
   */
  readCi(installs: readonly CiInstall[]): void {
    this.ciInstalled.push(...installs);
  }

  /** Records each known program a test file's calls run. */
  read(source: string, file: string): void {
    for (const line of logicalLines(source)) {
      for (let at = 0; at < line.tokens.length; at++) {
        const found = calledProgram(line.tokens, at);
        if (!found || this.uses.has(found.program)) continue;
        const known = Object.hasOwn(PROGRAM_PACKAGES, found.program);
        if (!known && !IN_IMAGE.has(found.program)) continue;
        this.uses.set(found.program, {
          program: found.program,
          debian: known ? PROGRAM_PACKAGES[found.program]! : null,
          where: `${file}:${line.line}`,
          call: found.call,
        });
      }
    }
  }

  found(): ProgramUse[] {
    return [...this.uses.values()];
  }

  /** `apt` with the packages of the programs found and of CI's installs added, and a decision saying why for each. */
  withPackages(apt: readonly string[], decisions: string[]): string[] {
    const out = [...apt];
    const unknown = new Map<string, string[]>();
    for (const { name, from } of this.ciInstalled) {
      if (!KNOWN_PACKAGES.has(name)) unknown.set(from, [...(unknown.get(from) ?? []), name]);
      else if (!out.includes(name)) {
        out.push(name);
        decisions.push(`apt ${name}: ${from} installs it on the CI runner`);
      }
    }
    for (const [from, names] of unknown)
      decisions.push(
        `${from} installs ${[...new Set(names)].join(', ')} on the CI runner: not added (not among the everyday packages piper installs for a suite)`,
      );
    for (const use of this.uses.values()) {
      const runs = `${use.where} runs ${use.program} (${use.call})`;
      if (use.debian === null) decisions.push(`${runs}: the sandbox image has it`);
      else if (out.includes(use.debian)) decisions.push(`${runs}: apt ${use.debian} is already listed`);
      else {
        out.push(use.debian);
        decisions.push(`apt ${use.debian}: ${runs}`);
      }
    }
    return out;
  }
}
