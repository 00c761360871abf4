// The real CLI under /usr/bin/time: its result and its peak resident memory (maxRSS, KiB), so a test
// can say a hostile input was refused without the process growing with it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, type CliResult } from './cli.js';

export interface MeasuredResult extends CliResult {
  maxRssKb: number;
}

export async function runCliMeasured(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<MeasuredResult> {
  const scratch = mkdtempSync(join(tmpdir(), 'piper-rss-'));
  const out = join(scratch, 'rss');
  try {
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', out, process.execPath, CLI, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    return { code, signal, stdout, stderr, maxRssKb: Number(lines.at(-1)) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
