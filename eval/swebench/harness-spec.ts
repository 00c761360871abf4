// The public SWE-bench harness's install specs, per repository and version, as data
// (data/harness-specs.json, written by data/harness-specs.py from the harness's own constants file,
// with the repository and commit it was read from). An instance whose (repo, version) has an entry
// is built from it (spec-recipe.ts); one with none is built from its repository's declarations.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../../runtime/package-root.js';
import type { SweInstance } from './instance-file.js';

const SpecSchema = z.looseObject({
  python: z.string().optional(),
  packages: z.string().optional(),
  pip_packages: z.array(z.string()).optional(),
  pre_install: z.array(z.string()).optional(),
  install: z.string().optional(),
  test_cmd: z.union([z.string(), z.array(z.string())]).optional(),
  eval_commands: z.array(z.string()).optional(),
});

export type HarnessSpec = z.infer<typeof SpecSchema>;

const FileSchema = z.object({
  source: z.object({ repository: z.string(), commit: z.string(), path: z.string() }),
  specs: z.record(z.string(), z.record(z.string(), SpecSchema)),
});

export type HarnessSpecFile = z.infer<typeof FileSchema>;

/** One entry: what it is named by and where it was read from. */
export interface SpecEntry {
  repo: string;
  version: string;
  spec: HarnessSpec;
  /** `github.com/SWE-bench/SWE-bench@b8d5332 swebench/harness/constants/python.py`. */
  source: string;
}

export function parseSpecFile(data: unknown): HarnessSpecFile {
  return FileSchema.parse(data);
}

let loaded: HarnessSpecFile | null = null;

function specFile(): HarnessSpecFile {
  loaded ??= parseSpecFile(
    JSON.parse(readFileSync(join(packageRoot(), 'eval', 'swebench', 'data', 'harness-specs.json'), 'utf8')),
  );
  return loaded;
}

/** The instance's entry in `file` (the committed data by default), or null when it has none. */
export function specEntry(instance: SweInstance, file: HarnessSpecFile = specFile()): SpecEntry | null {
  const version = instance.version;
  if (!version) return null;
  const spec = file.specs[instance.repo]?.[version];
  if (!spec) return null;
  const { repository, commit, path } = file.source;
  return { repo: instance.repo, version, spec, source: `${repository}@${commit.slice(0, 7)} ${path}` };
}
