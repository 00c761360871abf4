// Text as lines the way diff sees it: each line keeps its own `\n`, so a last line without one
// is told apart ("\ No newline at end of file") and a round trip is byte-exact. `\r` stays part of
// the line, so CRLF files survive too.

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => `${line}\n`);
  const last = lines.length - 1;
  // "a\nb" split is ['a', 'b']: the last piece had no newline; "a\n" gives ['a', ''] and '' is no line.
  if (text.endsWith('\n')) lines.pop();
  else lines[last] = lines[last]!.slice(0, -1);
  return lines;
}
