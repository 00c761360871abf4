// Text from outside piper-agent (sandbox output, model replies, issue text, file content, ledger
// values) is made inert before it reaches a terminal: a terminal acts on control characters, so a
// test's output could set the window title, clear the screen, plant an OSC 8 link or move the
// cursor. Every C0 control except newline and tab, DEL, every C1 control (U+0080–U+009F), and the
// bidirectional overrides and isolates that reorder what is shown ("Trojan Source") are written as
// visible escapes: `\x1b` for ESC (four characters), `\r` as `\x0d`, `\u202e` for RIGHT-TO-LEFT
// OVERRIDE. With ESC shown as text, a CSI / OSC / DCS sequence that followed it is plain text too.
// Machine output (json, stream-json, --json) is not passed through here: JSON escapes controls itself.

// eslint-disable-next-line no-control-regex -- matching control characters is this module's job
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The text with every terminal control shown as a visible escape; newline and tab are kept. */
export function inert(text: string): string {
  return text.replace(UNSAFE, visibleEscape);
}

/**
 * One line of JSON made inert and still the same JSON: JSON.stringify escapes C0 controls itself,
 * not DEL, the C1 controls or the bidirectional marks, which are written here as `\uXXXX` escapes.
 * For JSON a person reads on a terminal (`piper-agent tool`); `--json` output stays as it is.
 */
export function inertJson(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether the text holds a character `inert` would escape. */
export function hasControls(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return found;
}

/** Every string inside a JSON-like value made inert (objects and arrays copied, others kept). */
export function inertDeep<T>(value: T): T {
  return deep(value, 0) as T;
}

function deep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return inert(value);
  // Event payloads are shallow; the bound only keeps a hostile cycle or nesting from recursing forever.
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => deep(item, depth + 1));
  const copy: Record<string, unknown> = {};
  // Keys too: a model's argument names are shown (`name=value`) like their values. defineProperty,
  // so a key named __proto__ stays a key, as JSON.parse made it.
  for (const [key, item] of Object.entries(value)) {
    const descriptor = { value: deep(item, depth + 1), enumerable: true, writable: true, configurable: true };
    Object.defineProperty(copy, inert(key), descriptor);
  }
  return copy;
}

function visibleEscape(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}
