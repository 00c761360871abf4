// What piper itself built: the sandbox image is identified by the id and layers
// recorded when piper built it, never by its recipe label alone — an image built FROM the sandbox
// image inherits that label, and must never be taken (and re-tagged) as the sandbox image.
// The record is a small JSON file in the user's state directory, keyed by recipe hash and engine
// (the same recipe built through a second engine, Podman beside Docker, is another image and must
// not replace the first one's record), replaced atomically (write a temp file, rename) so a crash
// never leaves half a record.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { engineEndpoint } from '../engine/engine-failure.js';
import { RuntimeError } from '../errors.js';

export interface BuiltImage {
  recipeHash: string;
  imageId: string;
  /** The image's RootFS layer digests, in order, as the build produced them. */
  layers: string[];
  ref: string;
  suite: string;
  builtAt: string;
}

type Records = Record<string, BuiltImage>;

/** The default engine's records are keyed by the recipe hash alone (as records always were). */
const DEFAULT_ENDPOINT = 'unix:///var/run/docker.sock';

/** A record's key: the recipe hash, and the engine's endpoint when it is not the default one. */
function recordKey(recipeHash: string): string {
  const endpoint = engineEndpoint();
  return endpoint === DEFAULT_ENDPOINT ? recipeHash : `${recipeHash}@${endpoint}`;
}

/** piper's own state on this machine (never in a repository): PIPER_STATE_DIR, else ~/.local/state/piper-agent. */
export function stateDir(): string {
  return process.env.PIPER_STATE_DIR || join(homedir(), '.local', 'state', 'piper-agent');
}

export function builtImagesPath(): string {
  return join(stateDir(), 'images.json');
}

/** This engine's records, by recipe hash. */
export function readBuiltImages(): Records {
  const mine: Records = {};
  for (const [key, record] of Object.entries(readAllRecords()))
    if (key === recordKey(record.recipeHash)) mine[record.recipeHash] = record;
  return mine;
}

/** Every engine's records; an unreadable or malformed file counts as none (the next build rewrites it). */
function readAllRecords(): Records {
  let text: string;
  try {
    text = readFileSync(builtImagesPath(), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const records: Records = {};
    for (const [hash, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (isBuiltImage(value) && value.recipeHash === hash.split('@')[0]) records[hash] = value;
    }
    return records;
  } catch {
    return {};
  }
}

export function builtImage(recipeHash: string): BuiltImage | null {
  return readBuiltImages()[recipeHash] ?? null;
}

export function recordBuiltImage(record: BuiltImage): void {
  const records = { ...readAllRecords(), [recordKey(record.recipeHash)]: record };
  const path = builtImagesPath();
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(stateDir(), { recursive: true });
    writeFileSync(tmp, `${JSON.stringify(records, null, 2)}\n`, { mode: 0o644 });
    renameSync(tmp, path);
  } catch (error) {
    throw new RuntimeError(
      'image_build_failed',
      `cannot record the built image in ${path}: ${(error as Error).message}`,
      'make the directory writable, or set PIPER_STATE_DIR',
      { cause: error },
    );
  }
}

/** Whether an image is exactly the one recorded: the same id and the same layers. */
export function matchesRecord(image: { id: string; layers: string[] }, record: BuiltImage): boolean {
  return (
    image.id === record.imageId &&
    image.layers.length === record.layers.length &&
    image.layers.every((layer, i) => layer === record.layers[i])
  );
}

function isBuiltImage(value: unknown): value is BuiltImage {
  const v = value as Partial<BuiltImage> | null;
  return (
    !!v &&
    typeof v.recipeHash === 'string' &&
    typeof v.imageId === 'string' &&
    Array.isArray(v.layers) &&
    v.layers.every((l) => typeof l === 'string') &&
    typeof v.ref === 'string' &&
    typeof v.suite === 'string' &&
    typeof v.builtAt === 'string'
  );
}
