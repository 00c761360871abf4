// Names a project's console script may not take. The venv's bin is first on PATH in every sandbox,
// so a script named `sh`, `env`, `python3` or `pytest` would stand in for the program a test
// command, a shebang or a subprocess means: a fixed list of what a run relies on, plus every name
// the image already has in its command directories (listed before any repository file arrives in
// the project's build box, and the venv's own bin: a dependency's script is not the project's).
import type { StepSpec } from '../build-box.js';
import { VENV } from '../../floor/names.js';

const FIXED = new Set([
  // shells and what starts programs
  ...['sh', 'bash', 'dash', 'zsh', 'ksh', 'csh', 'tcsh', 'fish', 'busybox', 'env', 'exec', 'sudo', 'su'],
  ...['nice', 'nohup', 'timeout', 'time', 'xargs', 'stdbuf', 'setsid', 'chroot', 'runuser', 'login'],
  // the interpreter, its installers and the test tools a command names
  ...['python', 'python3', 'pip', 'pip3', 'pytest', 'py.test', 'coverage', 'coverage3', 'tox', 'nox'],
  ...['pydoc', 'pydoc3', 'idle', 'idle3', 'unittest', 'virtualenv', 'venv'],
  // coreutils and the everyday programs a test suite calls
  ...['ls', 'cat', 'cp', 'mv', 'rm', 'ln', 'mkdir', 'rmdir', 'chmod', 'chown', 'touch', 'echo'],
  ...['printf', 'test', '[', 'true', 'false', 'sleep', 'head', 'tail', 'sort', 'uniq', 'wc', 'tr'],
  ...['cut', 'tee', 'date', 'id', 'whoami', 'uname', 'dirname', 'basename', 'readlink', 'realpath'],
  ...['pwd', 'stat', 'du', 'df', 'mktemp', 'install', 'dd', 'kill', 'ps', 'yes', 'seq', 'expr'],
  ...['find', 'grep', 'egrep', 'fgrep', 'sed', 'awk', 'gawk', 'diff', 'cmp', 'patch', 'tar', 'gzip'],
  ...['gunzip', 'zcat', 'which', 'command', 'git', 'hg', 'make', 'cc', 'gcc', 'cpp', 'ld', 'as'],
  ...['ssh', 'scp', 'curl', 'wget', 'file', 'less', 'more', 'vi', 'nano', 'man', 'locale', 'ldd'],
]);

/** A console script name a project may not have: fixed, Python-like, or already in the image. */
export function isSystemCommand(name: string, inImage: ReadonlySet<string>): boolean {
  return (
    FIXED.has(name) || /^(python|pip|pytest|pydoc|idle)[0-9.]*(-config)?$/.test(name) || inImage.has(name)
  );
}

export function commandListStep(): StepSpec {
  const dirs = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin', `${VENV}/bin`];
  return {
    name: 'system commands',
    script: `ls -1 ${dirs.join(' ')} 2>/dev/null; true`,
    timeoutS: 30,
    quiet: true,
  };
}

export function parseCommandList(stdout: string): Set<string> {
  return new Set(
    stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.endsWith(':')),
  );
}
