// YAML the JavaScript planner reads (CI workflows, pnpm-workspace.yaml, .yarnrc.yml, pnpm-lock.yaml's
// head) goes through the `yaml` library with its limits: a bounded alias expansion (a "billion laughs"
// file stops there) and a size cap per file, checked before parsing. Nothing in the text is evaluated:
// custom tags stay strings.
import { parse } from 'yaml';

/** A workflow or a settings file is a page or two; a larger one is not parsed. */
const MAX_YAML_BYTES = 512 * 1024;
const MAX_ALIASES = 100;

/** `text` parsed, or null with a decision naming `path` and why. */
export function readYamlText(text: string, path: string, decisions: string[]): unknown {
  if (text.length > MAX_YAML_BYTES) {
    decisions.push(`${path}: not read (over ${MAX_YAML_BYTES / 1024} KiB)`);
    return null;
  }
  try {
    return parse(text, { maxAliasCount: MAX_ALIASES, prettyErrors: false, uniqueKeys: false }) as unknown;
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    decisions.push(`${path}: not read as YAML (${why})`);
    return null;
  }
}
