// Before the first job (docs/scale.md): can every Ready node run one? Its architecture must be the
// CI image's; a global service of the CI image, with the node's engine socket mounted as a job's
// is, must start there (the CI image present or pullable) and find the socket answering and the
// sandbox image on that engine. Every problem is one line naming its node; `ab` refuses with all of
// them rather than failing every job.
import type { SwarmClient, SwarmNode, SwarmTask } from '../../runtime/engine/swarm-client.js';
import type { Owner } from '../../runtime/sandbox/owner.js';
import { runOnEveryNodeRead } from './global-job.js';

const MARK = 'PIPER-PREFLIGHT ';

/** Runs in the CI image on each node: one MARK line per problem, exit 0 when there is none. */
const PROBE = `
const http = require('http'), fs = require('fs');
const sock = '/var/run/docker.sock', image = process.env.PIPER_SANDBOX_IMAGE;
const say = (m) => { console.log(${JSON.stringify(MARK)} + process.env.PIPER_NODE + ': ' + m); process.exitCode = 3; };
let isSocket = false;
try { isSocket = fs.statSync(sock).isSocket(); } catch {}
if (!isSocket) say('no engine socket at ' + sock + ' inside a job (the node must let a job mount it)');
else http.get({ socketPath: sock, path: '/images/' + encodeURIComponent(image) + '/json' }, (r) => {
  r.resume();
  if (r.statusCode === 404) say('no sandbox image ' + image + ' (docker save it into the node, or give --registry)');
  else if (r.statusCode !== 200) say('its engine answered ' + r.statusCode + ' for the sandbox image ' + image);
}).on('error', (e) => say('its engine does not answer on ' + sock + ': ' + e.message));
`;

interface PreflightImages {
  ci: string;
  /** The sandbox image's name on the nodes. */
  sandbox: string;
  /** The CI image's architecture (amd64, arm64). */
  architecture: string;
}

/** Every problem found, one line each; empty when every node can run a job. */
export async function preflight(
  client: SwarmClient,
  owner: Owner,
  images: PreflightImages,
): Promise<string[]> {
  const nodes = await client.readyNodeDescriptions();
  const problems = nodes
    .filter((n) => images.architecture && n.architecture !== images.architecture)
    .map((n) => `${nameOf(n)}: its architecture is ${n.architecture}, the CI image's ${images.architecture}`);
  const { tasks, stdout } = await runOnEveryNodeRead(client, owner, 'preflight', {
    image: images.ci,
    command: ['node', '-e', PROBE],
    socket: true,
    env: [`PIPER_SANDBOX_IMAGE=${images.sandbox}`, 'PIPER_NODE={{.Node.Hostname}} ({{.Node.ID}})'],
  });
  const reported = stdout
    .split('\n')
    .filter((l) => l.startsWith(MARK))
    .map((l) => l.slice(MARK.length).trim());
  for (const task of tasks.filter((t) => t.state !== 'complete' && t.exitCode !== 3)) {
    const node = nodes.find((n) => n.id === task.nodeId);
    problems.push(`${node ? nameOf(node) : task.nodeId}: ${notStarted(task, images.ci)}`);
  }
  return [...problems, ...reported];
}

const nameOf = (n: SwarmNode) => `${n.hostname} (${n.id})`;

function notStarted(task: SwarmTask, ci: string): string {
  if (/no such image|not found|pull access denied|manifest unknown/i.test(task.message))
    return `no CI image ${ci} (docker save it into the node, or give --registry)`;
  return `a job cannot start there: ${task.state}${task.exitCode === null ? '' : ` (exit ${task.exitCode})`} ${task.message}`;
}
