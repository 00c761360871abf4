// The user's index settings that are files — the CA bundle, the client certificate (with its
// private key), the netrc, the constraints (plan/pip-network.ts) — in a networked box, and only
// there: copied in through the engine's archive endpoint before the box's first step, their paths
// given to those steps' execs only (pipSourceEnv), removed after the last. A box that holds them is
// never committed (BuildBox.commit refuses), so no image layer, history or configuration can
// carry them; the record names what was used and where it came from, never their contents.
import { Readable } from 'node:stream';
import { RuntimeError } from '../../../errors.js';
import { padding, TAR_END, tarHeader } from '../../../workspace/tar-header.js';
import { INDEX_FILES_DIR, type IndexFile } from '../../plan/network/pip-network.js';
import type { PipSettings } from '../../plan/pip-settings.js';
import type { BuildBox } from '../build-box.js';
import { isHolding, markHolding, markReleased } from './held-boxes.js';

/** The files put into `box` (nothing when the user has none); the box's steps may use them after this. */
export async function putIndexFiles(box: BuildBox, pip: PipSettings): Promise<void> {
  const { files } = pip.network;
  if (!files.length) return;
  const parent = INDEX_FILES_DIR.slice(0, INDEX_FILES_DIR.lastIndexOf('/')) || '/';
  markHolding(box);
  await box.put(parent, indexFilesTar(files));
}

/** The files removed from `box` (after its last networked step): it may be committed again. */
export async function dropIndexFiles(box: BuildBox): Promise<void> {
  if (!isHolding(box)) return;
  const r = await box.run({
    name: 'index files out',
    script: `rm -rf ${INDEX_FILES_DIR}`,
    timeoutS: 60,
    quiet: true,
  });
  if (r.exit_code !== 0)
    throw new RuntimeError(
      'env_build_failed',
      `the index settings could not be removed from a build box (exit ${r.exit_code})`,
    );
  markReleased(box);
}

/** A tar of INDEX_FILES_DIR (its own name, 0700, root's) and the files, to unpack at its parent. */
export function indexFilesTar(files: IndexFile[]): Readable {
  const dir = INDEX_FILES_DIR.slice(INDEX_FILES_DIR.lastIndexOf('/') + 1);
  const parts: Buffer[] = [tarHeader({ name: dir, type: 'directory', mode: 0o700 })];
  for (const f of files) {
    parts.push(tarHeader({ name: `${dir}/${f.name}`, type: 'file', mode: f.mode, size: f.data.length }));
    parts.push(f.data, Buffer.alloc(padding(f.data.length)));
  }
  parts.push(TAR_END);
  return Readable.from([Buffer.concat(parts)]);
}

/**
 * Python lines that give every HTTPS connection of the standard library (urllib's default context)
 * the client certificate of PIP_CLIENT_CERT, for piper's own scripts in a networked box (the index
 * probe, the sdist fetcher): pip reads the variable itself. The CA bundle needs no line: Python's
 * ssl reads SSL_CERT_FILE.
 */
export const CLIENT_CERT_PRELUDE = [
  'import os as _os, ssl as _ssl',
  'if _os.environ.get("PIP_CLIENT_CERT"):',
  '    _piper_https = _ssl._create_default_https_context',
  '    def _with_client_cert(*args, **kwargs):',
  '        context = _piper_https(*args, **kwargs)',
  '        context.load_cert_chain(_os.environ["PIP_CLIENT_CERT"])',
  '        return context',
  '    _ssl._create_default_https_context = _with_client_cert',
].join('\n');
