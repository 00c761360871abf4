// A runner's output as words: the SGR sequences (`ESC [ … m`) a runner writes when it colours its
// output (pytest `--color=yes` in a project's addopts, `FORCE_COLOR` in its CI) removed, so a reader
// of its summary sees `FAILED x.py::t` and `1 failed, 2 passed`, not the colours around them.

// eslint-disable-next-line no-control-regex -- the escape byte is what is matched
const SGR = /\u001b\[[0-9;]*m/g;

export function withoutColors(text: string): string {
  return text.includes('\u001b[') ? text.replace(SGR, '') : text;
}
