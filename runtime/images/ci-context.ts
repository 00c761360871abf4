// The build context of the CI image (docker/): which files go in, their content hash, and the tar
// stream the engine builds from. Two layouts, one per Dockerfile:
//   offline — two images: docker/Dockerfile.offline-base (the sandbox image's root filesystem,
//             this machine's node and git, the production node_modules), rebuilt only when those
//             change, and docker/Dockerfile.offline (the compiled app) on top of it;
//   dockerfile — docker/Dockerfile: the repository's sources, compiled and npm-installed inside.
// The hash covers every byte that can change the image, so an unchanged app is never rebuilt.
import { createHash } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  lstatSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { RuntimeError } from '../errors.js';

export type CiBuildPath = 'offline' | 'dockerfile';

export type ContextEntry =
  | { name: string; kind: 'file'; source: string }
  | { name: string; kind: 'symlink'; target: string }
  | { name: string; kind: 'text'; content: string; mode: number };

export interface CiContext {
  path: CiBuildPath;
  /** Sorted by name; the Dockerfile is the entry named `Dockerfile`. */
  entries: ContextEntry[];
  /** What the image will lack that the online path has (git, when this machine has none). */
  lacks: string[];
}

/** The ARGs naming each offline Dockerfile's base; the build sets their defaults. */
export const SANDBOX_ARG = 'PIPER_SANDBOX_IMAGE';
export const BASE_ARG = 'PIPER_CI_BASE';

// Never part of an image: VCS data, ledgers, caches of Python and pytest.
const SKIP_ALWAYS = new Set(['.git', '.piper', '__pycache__', '.pytest_cache']);
// The demo's files (cli/commands/demo.ts), baked in so `piper-agent demo` works in the image.
const DEMO_FILES = ['test/fixtures/sample-repo', 'test/fixtures/models/sample-fix.jsonl'];
/** The TypeScript docker/Dockerfile compiles inside its build stage. */
const SOURCE_DIRS = ['cli', 'runtime', 'primitives', 'policy', 'eval', 'bench'];
/** What the installed command runs (bin/piper-agent.js): the bundle, nothing else of dist/. */
const BUNDLE = join('dist', 'bundle');
// Fixed, so the same files give the same tar (the build cache and the hash see contents only).
const MTIME = new Date('2000-01-01T00:00:00Z');

/**
 * docker/Dockerfile.offline-base: what changes rarely — the sandbox's root filesystem (FROM
 * `sandboxRef`), this machine's node and git, the production node_modules. ~190 MiB, sent to the
 * engine only when its hash changes.
 */
export function offlineBaseContext(root: string, sandboxRef: string): CiContext {
  const entries: ContextEntry[] = [dockerfileEntry(root, 'Dockerfile.offline-base', SANDBOX_ARG, sandboxRef)];
  const lacks: string[] = [];
  // The host's node: the image runs the very binary the app was installed and tested with, so the
  // native better-sqlite3 build matches its ABI. finish-ci-image.sh checks its libraries resolve.
  entries.push({ name: 'host/usr/local/bin/node', kind: 'file', source: realpathSync(process.execPath) });
  const git = findOnPath('git');
  if (git) {
    // Every command piper-agent runs (ls-files, check-ignore, rev-parse; init/add/commit in the
    // demo) is built into the git binary itself; the templates keep `git init` quiet.
    entries.push({ name: 'host/usr/bin/git', kind: 'file', source: realpathSync(git) });
    const templates = '/usr/share/git-core/templates';
    if (existsSync(templates)) addTree(entries, templates, 'host/usr/share/git-core/templates');
  } else {
    lacks.push('git (this machine has none): file listing walks the tree, the ledger records no HEAD');
  }
  for (const pkg of productionPackages(root)) {
    // A package's own node_modules holds packages the lockfile lists separately (and may be dev).
    addTree(
      entries,
      join(root, pkg),
      `deps/${pkg}`,
      (name, isDir) => isDir && (name === 'node_modules' || name === '.bin'),
    );
  }
  return { path: 'offline', entries: sortEntries(entries), lacks };
}

/** docker/Dockerfile.offline: the compiled app, FROM the base image `baseRef`. A few MiB. */
export function offlineContext(root: string, baseRef: string): CiContext {
  if (!existsSync(join(root, BUNDLE, 'main.js'))) {
    throw new RuntimeError(
      'image_build_failed',
      `${join(root, BUNDLE)} is not built`,
      'run `make build` first',
    );
  }
  const entries: ContextEntry[] = [dockerfileEntry(root, 'Dockerfile.offline', BASE_ARG, baseRef)];
  for (const file of ['package.json', 'package-lock.json']) addFile(entries, root, file, `app/${file}`);
  addTree(entries, join(root, 'bin'), 'app/bin');
  // Source maps point at files the image does not have.
  addTree(entries, join(root, BUNDLE), 'app/dist/bundle', (name) => name.endsWith('.map'));
  addTree(entries, join(root, 'sandbox-images'), 'app/sandbox-images');
  // Debian's PyPI → Debian name map, read by the environment plan at run time.
  addTree(entries, join(root, 'runtime', 'env', 'data'), 'app/runtime/env/data');
  for (const path of DEMO_FILES) addPath(entries, root, path, `app/${path}`);
  addFile(entries, root, 'docker/finish-ci-image.sh', 'app/docker/finish-ci-image.sh');
  return { path: 'offline', entries: sortEntries(entries), lacks: [] };
}

/** The repository-root layout docker/Dockerfile expects (what docker/Dockerfile.dockerignore lets through). */
export function onlineContext(root: string): CiContext {
  const entries: ContextEntry[] = [];
  addFile(entries, root, 'docker/Dockerfile', 'Dockerfile');
  for (const file of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'rolldown.config.mjs',
  ]) {
    addFile(entries, root, file, file);
  }
  for (const dir of [...SOURCE_DIRS, 'bin', 'sandbox-images']) {
    if (existsSync(join(root, dir))) addTree(entries, join(root, dir), dir);
  }
  for (const path of DEMO_FILES) addPath(entries, root, path, path);
  addFile(entries, root, 'docker/finish-ci-image.sh', 'docker/finish-ci-image.sh');
  return { path: 'dockerfile', entries: sortEntries(entries), lacks: [] };
}

/**
 * The node_modules directories `npm ci --omit=dev` would install: package-lock.json's packages
 * not marked dev. Optional packages absent here (another platform's) are left out; a required
 * one that is absent means node_modules is incomplete.
 */
export function productionPackages(root: string): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages?: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean; link?: boolean }>;
  };
  if (!lock.packages) {
    throw new RuntimeError(
      'image_build_failed',
      'package-lock.json has no "packages" map',
      'regenerate it with npm 7 or later',
    );
  }
  const out: string[] = [];
  for (const [path, meta] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || meta.dev || meta.link) continue;
    if (!existsSync(join(root, path))) {
      if (meta.optional || meta.devOptional) continue;
      throw new RuntimeError(
        'image_build_failed',
        `${path} is in package-lock.json but not installed`,
        'run `npm ci`',
      );
    }
    out.push(path);
  }
  return out.sort();
}

/** sha256 over names, kinds, modes and contents of every entry, and whatever else names the result. */
export async function contextHash(context: CiContext, extra: string[]): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`piper-ci-context/1\0${context.path}\0${extra.join('\0')}\0`);
  for (const entry of context.entries) {
    if (entry.kind === 'file') {
      const st = lstatSync(entry.source);
      hash.update(`${entry.name}\0file\0${(st.mode & 0o777).toString(8)}\0${st.size}\0`);
      for await (const chunk of createReadStream(entry.source)) hash.update(chunk as Buffer);
    } else if (entry.kind === 'symlink') {
      hash.update(`${entry.name}\0symlink\0${entry.target}\0`);
    } else {
      hash.update(`${entry.name}\0text\0${entry.mode.toString(8)}\0${entry.content}\0`);
    }
  }
  return hash.digest('hex');
}

/** The context as the tar stream POST /build takes. Owners are root, times fixed, modes kept. */
export function packContext(context: CiContext): Readable {
  const pack = tar.pack();
  const write = async () => {
    for (const entry of context.entries) {
      const base = { name: entry.name, uid: 0, gid: 0, mtime: MTIME };
      if (entry.kind === 'file') {
        const st = lstatSync(entry.source);
        const sink = pack.entry({ ...base, type: 'file', mode: st.mode & 0o777, size: st.size });
        await pipeline(createReadStream(entry.source), sink);
      } else if (entry.kind === 'symlink') {
        await new Promise<void>((resolve, reject) =>
          pack.entry({ ...base, type: 'symlink', linkname: entry.target, mode: 0o777 }, (e) =>
            e ? reject(e) : resolve(),
          ),
        );
      } else {
        pack.entry({ ...base, type: 'file', mode: entry.mode }, entry.content);
      }
    }
  };
  write()
    .then(() => pack.finalize())
    .catch((error: Error) => pack.destroy(error));
  return pack as unknown as Readable;
}

/** Total bytes of the context's files, for the build log. */
export function contextBytes(context: CiContext): number {
  let bytes = 0;
  for (const entry of context.entries) {
    if (entry.kind === 'file') bytes += lstatSync(entry.source).size;
    else if (entry.kind === 'text') bytes += Buffer.byteLength(entry.content);
  }
  return bytes;
}

/** docker/NAME as the context's Dockerfile, with `ARG arg=` set to `value`. */
function dockerfileEntry(root: string, name: string, arg: string, value: string): ContextEntry {
  const path = join(root, 'docker', name);
  if (!existsSync(path)) throw new RuntimeError('image_build_failed', `${path} is missing`);
  const template = readFileSync(path, 'utf8');
  const line = new RegExp(`^ARG ${arg}=.*$`, 'm');
  if (!line.test(template))
    throw new RuntimeError('image_build_failed', `docker/${name} has no \`ARG ${arg}=\` line`);
  return {
    name: 'Dockerfile',
    kind: 'text',
    content: template.replace(line, `ARG ${arg}=${value}`),
    mode: 0o644,
  };
}

function findOnPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return null;
}

function addFile(entries: ContextEntry[], root: string, rel: string, name: string): void {
  const source = join(root, rel);
  if (!existsSync(source)) throw new RuntimeError('image_build_failed', `${source} is missing`);
  entries.push({ name, kind: 'file', source });
}

function addPath(entries: ContextEntry[], root: string, rel: string, name: string): void {
  if (existsSync(join(root, rel)) && lstatSync(join(root, rel)).isDirectory())
    addTree(entries, join(root, rel), name);
  else addFile(entries, root, rel, name);
}

/** Files and symlinks under `dir`, named under `prefix`; `skip` drops names (and whole directories). */
function addTree(
  entries: ContextEntry[],
  dir: string,
  prefix: string,
  skip: (name: string, isDir: boolean) => boolean = () => false,
): void {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const st = lstatSync(full);
    if (SKIP_ALWAYS.has(name) || skip(name, st.isDirectory())) continue;
    if (st.isDirectory()) addTree(entries, full, `${prefix}/${name}`, skip);
    else if (st.isSymbolicLink())
      entries.push({ name: `${prefix}/${name}`, kind: 'symlink', target: readlinkSync(full) });
    else if (st.isFile()) entries.push({ name: `${prefix}/${name}`, kind: 'file', source: full });
  }
}

function sortEntries(entries: ContextEntry[]): ContextEntry[] {
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
