// .yarnrc.yml (yarn berry) and pnpm-workspace.yaml sanitized to an allowlist of keys before they
// reach the networked download, written back as YAML. Berry: the linker and registries (a scope's
// registry only, never its token), `enableGlobalCache` only when false, and never `yarnPath` or
// `plugins` (repository JavaScript the manager would load online). pnpm: the workspace's packages
// and the settings that shape the lockfile (a frozen install fails when they differ), never a
// pnpmfile, a shell or a store elsewhere; a registry URL with a login or to a local address is never
// copied (download-urls.ts). Each dropped key is a decision.
import { stringify } from 'yaml';
import { refusedUrl } from './download-urls.js';
import { isRecord } from '../read/js-files.js';
import { readYamlText } from '../read/js-yaml.js';

const BERRY_KEYS = new Set([
  'nodeLinker',
  'npmRegistryServer',
  'npmScopes',
  'enableGlobalCache',
  'packageExtensions',
  'compressionLevel',
  'nmHoistingLimits',
  'pnpMode',
]);

const PNPM_KEYS = new Set([
  'packages',
  'catalog',
  'catalogs',
  'overrides',
  'packageExtensions',
  'peerDependencyRules',
  'patchedDependencies',
  'onlyBuiltDependencies',
  'neverBuiltDependencies',
  'ignoredBuiltDependencies',
  'allowBuilds',
  'allowedDeprecatedVersions',
  'nodeLinker',
  'shamefullyHoist',
  'publicHoistPattern',
  'hoistPattern',
  'autoInstallPeers',
  'dedupePeers',
  'peersSuffixMaxLength',
  'strictPeerDependencies',
  'dedupePeerDependents',
  'resolvePeersFromWorkspaceRoot',
  'excludeLinksFromLockfile',
  'injectWorkspacePackages',
  'linkWorkspacePackages',
  'preferWorkspacePackages',
  'sharedWorkspaceLockfile',
  'registry',
]);

function noExpansion(value: unknown): boolean {
  return !JSON.stringify(value ?? null).includes('${');
}

/** Why a registry URL may not reach the download, or null. */
function refusedRegistry(value: unknown): string | null {
  return typeof value === 'string' ? refusedUrl(value) : null;
}

/** A berry `npmScopes` map with each scope's registry only. */
function scopesOf(value: unknown, path: string, decisions: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(value)) return out;
  for (const [scope, spec] of Object.entries(value)) {
    if (!isRecord(spec)) continue;
    for (const key of Object.keys(spec))
      if (key !== 'npmRegistryServer')
        decisions.push(`${path}: npmScopes.${scope}.${key} not copied (not an allowed key)`);
    const why = refusedRegistry(spec.npmRegistryServer);
    if (why) decisions.push(`${path}: npmScopes.${scope}.npmRegistryServer not copied (${why})`);
    else if (typeof spec.npmRegistryServer === 'string' && noExpansion(spec.npmRegistryServer))
      out[scope] = { npmRegistryServer: spec.npmRegistryServer };
  }
  return out;
}

function sanitizeMap(
  doc: Record<string, unknown>,
  keys: ReadonlySet<string>,
  path: string,
  decisions: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!keys.has(key)) decisions.push(`${path}: ${key.slice(0, 60)} not copied (not an allowed key)`);
    else if (!noExpansion(value)) decisions.push(`${path}: ${key} not copied (its value expands a variable)`);
    else if ((key === 'npmRegistryServer' || key === 'registry') && refusedRegistry(value))
      decisions.push(`${path}: ${key} not copied (${refusedRegistry(value)})`);
    else if (key === 'enableGlobalCache' && value !== false)
      decisions.push(`${path}: enableGlobalCache not copied (only false is)`);
    else if (key === 'npmScopes') out[key] = scopesOf(value, path, decisions);
    else out[key] = value;
  }
  return out;
}

/** The sanitized text, or null when the file is not a YAML mapping. */
export function sanitizeYamlConfig(
  text: string,
  path: string,
  kind: 'yarn-berry' | 'pnpm',
  decisions: string[],
): string | null {
  const doc = readYamlText(text, path, decisions);
  if (!isRecord(doc)) return null;
  const out = sanitizeMap(doc, kind === 'pnpm' ? PNPM_KEYS : BERRY_KEYS, path, decisions);
  return Object.keys(out).length ? stringify(out) : '';
}
