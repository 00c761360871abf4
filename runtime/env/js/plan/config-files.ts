// The package managers' configuration files at the root, as the download gets them: .npmrc,
// .yarnrc (yarn 1), .yarnrc.yml (berry), pnpm-workspace.yaml, each sanitized (npmrc.ts,
// yaml-config.ts) and named by the sha256 of the text copied. A file left empty by the sanitizing is
// not copied.
import { createHash } from 'node:crypto';
import type { JsFiles } from '../read/js-files.js';
import { sanitizeNpmrc, sanitizeYarnrc } from './npmrc.js';
import { sanitizeYamlConfig } from './yaml-config.js';

export interface ConfigFile {
  path: string;
  sha256: string;
  text: string;
}

const FILES: Array<[string, (text: string, path: string, decisions: string[]) => string | null]> = [
  ['.npmrc', sanitizeNpmrc],
  ['.yarnrc', sanitizeYarnrc],
  ['.yarnrc.yml', (t, p, d) => sanitizeYamlConfig(t, p, 'yarn-berry', d)],
  ['pnpm-workspace.yaml', (t, p, d) => sanitizeYamlConfig(t, p, 'pnpm', d)],
];

export function configFiles(files: JsFiles, decisions: string[]): ConfigFile[] {
  const out: ConfigFile[] = [];
  for (const [path, sanitize] of FILES) {
    const file = files.read(path, 'config');
    if (!file) continue;
    const text = sanitize(file.text, path, decisions);
    if (!text) continue;
    out.push({ path, sha256: createHash('sha256').update(text).digest('hex'), text });
    decisions.push(`${path} copied to the download, sanitized to its allowed keys`);
  }
  return out;
}
