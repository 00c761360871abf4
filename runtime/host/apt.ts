// Installing Debian packages on this host, for the engine and for debootstrap. Only as root, only
// the named packages, and `apt-get update` once per process (a fresh machine's lists are empty).
import { spawn } from 'node:child_process';
import { RuntimeError } from '../errors.js';

let updated = false;

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

export async function aptInstall(packages: string[], log: (line: string) => void): Promise<void> {
  if (!isRoot()) {
    throw new RuntimeError(
      'engine_unreachable',
      `installing ${packages.join(', ')} needs root`,
      `run as root, or install them yourself: sudo apt-get install -y ${packages.join(' ')}`,
    );
  }
  if (!updated) {
    log('apt-get update');
    await run(['apt-get', 'update', '-qq'], log);
    updated = true;
  }
  log(`apt-get install ${packages.join(' ')}`);
  await run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages], log);
}

function run(argv: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const collect = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (error) => reject(new RuntimeError('engine_error', `${argv[0]}: ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) return resolve();
      log(tail.trim());
      reject(
        new RuntimeError('engine_error', `${argv.join(' ')} exited with ${code}`, 'see the output above'),
      );
    });
  });
}
