// pip-compile (and `uv pip compile`) output: every package pinned, each followed by `# via` lines
// naming who asked for it. A pin asked for only by other packages (`# via pytest`) is a transitive
// one: read as a constraint (it narrows that distribution if something requires it, never adds
// it), so the plan installs what the project asked for and leaves the rest to pip's resolver. A pin
// asked for by a file (`# via -r requirements/test.in`, `# via pyproject.toml`) stays a
// requirement.

const VIA = /^\s*#\s+via(?:\s+(.*))?$/;
const CONTINUED = /^\s*#\s{2,}(\S.*)$/;
const PACKAGE = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?$/;

function isPackage(entry: string): boolean {
  return PACKAGE.test(entry) && !/\.(in|txt|toml|cfg|py)$/i.test(entry);
}

/** 1-based line numbers of the requirement lines only other packages asked for. */
export function transitivePins(text: string): Set<number> {
  const lines = text.split(/\r?\n/);
  const out = new Set<number>();
  let requirement: number | null = null;
  let entries: string[] = [];
  const close = (): void => {
    if (requirement !== null && entries.length && entries.every(isPackage)) out.add(requirement);
    requirement = null;
    entries = [];
  };
  lines.forEach((line, index) => {
    const via = VIA.exec(line);
    if (via && requirement !== null) {
      if (via[1]) entries.push(via[1].trim());
      return;
    }
    const continued = CONTINUED.exec(line);
    if (continued?.[1] && requirement !== null && !VIA.test(line)) {
      entries.push(continued[1].trim());
      return;
    }
    // Comments, blank lines and a pin's continuation lines (`    --hash=...`) keep the pin open.
    if (/^\s*#/.test(line) || line.trim() === '' || /^\s/.test(line)) return;
    close();
    if (!line.startsWith('-')) requirement = index + 1;
  });
  close();
  return out;
}
