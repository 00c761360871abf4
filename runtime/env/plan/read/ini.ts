// A small INI reader with Python configparser's rules, which setuptools (setup.cfg) and tox
// (tox.ini) both read with: `[section]` headers; `key = value` or `key: value` (first delimiter
// wins); keys lower-cased; a value continues on following indented lines (one per line, stripped);
// whole-line comments start with '#' or ';' (no inline comments); a repeated key overrides.
import { EnvPlanError } from '../errors.js';

export type IniSections = Map<string, Map<string, string>>;

export function parseIni(text: string, file: string): IniSections {
  const sections: IniSections = new Map();
  let section: Map<string, string> | null = null;
  let key: string | null = null;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const stripped = raw.trim();
    if (stripped.startsWith('#') || stripped.startsWith(';')) return;
    if (stripped === '') {
      // configparser keeps blank lines inside a value; trailing ones are trimmed at the end.
      if (section && key !== null) section.set(key, `${section.get(key)}\n`);
      return;
    }
    const indented = /^[ \t]/.test(raw);
    if (indented && section && key !== null) {
      section.set(key, `${section.get(key)}\n${stripped}`);
      return;
    }
    const header = /^\[([^\]]+)\]/.exec(stripped);
    if (header?.[1] !== undefined && !indented) {
      const name = header[1].trim();
      section = sections.get(name) ?? new Map<string, string>();
      sections.set(name, section);
      key = null;
      return;
    }
    const delimiter = stripped.search(/[=:]/);
    if (!section || delimiter <= 0) {
      throw new EnvPlanError(
        'bad_project_file',
        `${file}:${index + 1}: ${section ? 'expected "key = value"' : 'a value before any [section]'}`,
        { file, line: index + 1, expected: section ? 'key = value' : '[section]' },
      );
    }
    key = stripped.slice(0, delimiter).trim().toLowerCase();
    section.set(key, stripped.slice(delimiter + 1).trim());
  });
  for (const values of sections.values()) {
    for (const [name, value] of values) values.set(name, value.replace(/\n+$/, ''));
  }
  return sections;
}

/** A multi-line INI value as its non-empty lines. */
export function iniLines(value: string | undefined): string[] {
  return (value ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
