// What a problem statement must never give away of the gold patch: a line of the code it adds, or
// the name of a function it changes (the `def` of a hunk header or an added `def`). A name the test
// patch itself calls is the API seen from outside (a user calls it too), so it may be named.

/** The Python lines the patch adds, trimmed; short generic ones (`return x`, `else:`) are left out. */
function addedCodeLines(patch: string): string[] {
  const lines: string[] = [];
  for (const section of patchSections(patch)) {
    if (!section.path.endsWith('.py')) continue;
    for (const line of section.lines) {
      const code = line.startsWith('+') && !line.startsWith('+++') ? line.slice(1).trim() : '';
      if (code.length >= 12 && !code.startsWith('#')) lines.push(code);
    }
  }
  return [...new Set(lines)];
}

/** Functions the patch changes or adds, less those the tests call (the public API). */
function internalFunctionNames(patch: string, testPatch: string): string[] {
  const names = new Set<string>();
  for (const section of patchSections(patch)) {
    if (!section.path.endsWith('.py')) continue;
    for (const line of section.lines) {
      const m = /^@@ [^@]* @@.*\bdef (\w+)/.exec(line) ?? /^\+\s*(?:async\s+)?def (\w+)/.exec(line);
      if (m) names.add(m[1]!);
    }
  }
  // Dunder names (`__init__`, `__get__`) are Python's protocol, not the fix's internals.
  return [...names].filter((name) => !/^__\w+__$/.test(name) && !new RegExp(`\\b${name}\\b`).test(testPatch));
}

/** The leaks of `patch` found in `statement`, as sentences; empty when it gives nothing away. */
export function statementLeaks(statement: string, patch: string, testPatch: string): string[] {
  const leaks = addedCodeLines(patch)
    .filter((code) => statement.includes(code))
    .map((code) => `quotes the gold patch's line: ${code}`);
  for (const name of internalFunctionNames(patch, testPatch)) {
    if (new RegExp(`\\b${name}\\b`).test(statement)) leaks.push(`names the changed function ${name}`);
  }
  return leaks;
}

function patchSections(patch: string): { path: string; lines: string[] }[] {
  const sections: { path: string; lines: string[] }[] = [];
  for (const line of patch.split('\n')) {
    const header = /^diff --git a\/(\S+) b\//.exec(line);
    if (header) sections.push({ path: header[1]!, lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  return sections;
}
