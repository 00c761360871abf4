// The gold-label file of a SWE-bench-format set: `gold-labels.json` beside the instances file. The
// labels gold-labels.ts derives from a gold patch follow a rule; the file's were checked by hand
// against each instance's problem statement and gold patch, so for the instances it names they
// replace the derived ones. How the committed one was made: eval/tasks/real/README.md.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { RESERVED_NAMES, TOOL_NAMES } from '../../policy/registry.js';

const GOLD_LABEL_FILE = 'gold-labels.json';

const ACTIONS: readonly string[] = [...TOOL_NAMES, ...RESERVED_NAMES];
const actionSchema = z.string().refine((a) => ACTIONS.includes(a), {
  error: () => `not a tool or ${RESERVED_NAMES.join('/')}`,
});

const entrySchema = z.strictObject({
  /** The expected model decision at each of the first decision points: what selection accuracy scores. */
  labels: z.array(actionSchema).min(1).max(3),
  /** The selector of the entity the fix starts in. */
  entity: z.string().min(1),
  /** What gold-labels.ts derives for the instance, for the record of what the hand check changed. */
  derived: z.array(actionSchema),
  /** The step after the edit (not scored: the policy arm's post-patch trigger may take it). */
  then: actionSchema,
  /** The expected ask_user/stop: null, as the dataset marks no instance under-specified. */
  abstention: z.null(),
  /** What the hand check verified, and what it corrected. */
  checked: z.string().min(1),
});

const fileSchema = z.strictObject({
  about: z.string(),
  sample: z.strictObject({ size: z.int().min(1), seed: z.string() }),
  instances: z.record(z.string(), entrySchema),
});

type GoldLabelEntry = z.infer<typeof entrySchema>;

export interface GoldLabelFile {
  path: string;
  instances: ReadonlyMap<string, GoldLabelEntry>;
}

/** The set's gold-label file, or null when it has none; a file that does not parse is an error. */
export function readGoldLabelFile(bench: string): GoldLabelFile | null {
  const path = join(dirname(bench), GOLD_LABEL_FILE);
  if (!existsSync(path)) return null;
  const parsed = fileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${path}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return { path, instances: new Map(Object.entries(parsed.data.instances)) };
}
