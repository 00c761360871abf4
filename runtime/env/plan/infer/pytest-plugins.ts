// The plugins a pytest configuration needs, from its keys and its addopts, by a table: an option or
// an ini key only a plugin defines fails the run without it (`--cov` is "unrecognized arguments";
// `asyncio_mode` under `--strict-config` is an error). `-p NAME` names a plugin module, resolved
// like an import; `required_plugins` names distributions (with specifiers) outright.
import { normalizeName } from '../read/normalize.js';
import { shellWords, values, type PytestConfig } from './pytest-config.js';
import type { EnvPlan } from '../types.js';

/** An addopts option (its name, before any `=`) → the distribution that defines it. */
const OPTIONS: Array<[RegExp, string]> = [
  [/^--(no-)?cov(-.*)?$/, 'pytest-cov'],
  [/^(-n.*|--numprocesses|--maxprocesses|--dist|--tx)$/, 'pytest-xdist'],
  [/^--timeout(-method|_method)?$/, 'pytest-timeout'],
  [/^--asyncio-mode$/, 'pytest-asyncio'],
  [/^--benchmark-.*$/, 'pytest-benchmark'],
  [/^--reruns(-delay)?$/, 'pytest-rerunfailures'],
  [/^--html$/, 'pytest-html'],
  [/^--randomly-.*$/, 'pytest-randomly'],
];

/** An ini key → the distribution that defines it. */
const INI_KEYS: Record<string, string> = {
  timeout: 'pytest-timeout',
  timeout_method: 'pytest-timeout',
  timeout_func_only: 'pytest-timeout',
  asyncio_mode: 'pytest-asyncio',
  asyncio_default_fixture_loop_scope: 'pytest-asyncio',
  asyncio_default_test_loop_scope: 'pytest-asyncio',
  env: 'pytest-env',
  reruns: 'pytest-rerunfailures',
  describe_prefixes: 'pytest-describe',
};

export interface PluginNeed {
  /** A PEP 508 requirement (from the tables or required_plugins)... */
  requirement?: string;
  /** ...or a plugin module (`-p NAME`), to resolve as an import. */
  module?: string;
  from: string;
}

/** The plugins pytest arguments need (`-p NAME`, `--cov`, `-n 4`), each `from` `<source> WORD`. */
export function pluginNeedsOfArgs(words: readonly string[], source: string): PluginNeed[] {
  const out: PluginNeed[] = [];
  words.forEach((word, index) => {
    const from = `${source} ${word}`;
    if (word === '-p' || (word.startsWith('-p') && !word.startsWith('--'))) {
      const module = word === '-p' ? words[index + 1] : word.slice(2);
      if (module && !module.startsWith('no:')) out.push({ module, from: `${source} -p ${module}` });
      return;
    }
    const name = word.split('=')[0] as string;
    const plugin = OPTIONS.find(([pattern]) => pattern.test(name))?.[1];
    if (plugin) out.push({ requirement: plugin, from });
  });
  return out;
}

function fromAddopts(config: PytestConfig): PluginNeed[] {
  return pluginNeedsOfArgs(values(config, 'addopts'), `${config.source}.addopts`);
}

/** What the run side needs of the configuration: its addopts, and the ini keys a plugin defines. */
export function pytestFacts(config: PytestConfig | null): EnvPlan['pytest'] {
  if (!config) return null;
  const iniNeeds = Object.entries(INI_KEYS)
    .filter(([key]) => config.options.has(key))
    .map(([key, plugin]) => ({ key, dist: normalizeName(plugin) }));
  // As pytest reads it: a TOML list's items as they are (one argument each), a string split by shlex.
  const raw = config.options.get('addopts');
  const addopts = Array.isArray(raw)
    ? raw.filter((v): v is string => typeof v === 'string')
    : typeof raw === 'string'
      ? shellWords(raw)
      : [];
  return { source: config.source, addopts, iniNeeds };
}

export function pluginNeeds(config: PytestConfig): PluginNeed[] {
  const out = fromAddopts(config);
  for (const [key, plugin] of Object.entries(INI_KEYS)) {
    if (config.options.has(key)) out.push({ requirement: plugin, from: `${config.source}.${key}` });
  }
  for (const requirement of values(config, 'required_plugins'))
    out.push({ requirement, from: `${config.source}.required_plugins` });
  return out;
}
