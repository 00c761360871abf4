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

function fileOf(path: string, text: string): ConfigFile {
  return { path, sha256: createHash('sha256').update(text).digest('hex'), text };
}

/**
 * The CI's `npm install --legacy-peer-deps` as npm config in the download's .npmrc: the flag decides
 * whether npm resolves the tree at all (a peer conflict fails it otherwise).
 */
function withCiFlags(out: ConfigFile[], ciInstall: string | null, decisions: string[]): ConfigFile[] {
  if (!ciInstall || !/(^|\s)--legacy-peer-deps(=true)?(\s|$)/.test(ciInstall)) return out;
  const npmrc = out.find((f) => f.path === '.npmrc');
  const text = `${npmrc ? `${npmrc.text.trimEnd()}\n` : ''}legacy-peer-deps=true\n`;
  decisions.push(`the CI installs with --legacy-peer-deps: legacy-peer-deps=true in the download's .npmrc`);
  return [...out.filter((f) => f !== npmrc), fileOf('.npmrc', text)];
}

/** `ciInstall`: the CI's npm install line, whose peer-dependency flag the download takes too. */
export function configFiles(
  files: JsFiles,
  decisions: string[],
  ciInstall: string | null = null,
): ConfigFile[] {
  const out: ConfigFile[] = [];
  for (const [path, sanitize] of FILES) {
    const file = files.read(path, 'config');
    if (!file) continue;
    const text = sanitize(file.text, path, decisions);
    if (!text) continue;
    out.push(fileOf(path, text));
    decisions.push(`${path} copied to the download, sanitized to its allowed keys`);
  }
  return withCiFlags(out, ciInstall, decisions);
}
