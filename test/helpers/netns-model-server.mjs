// A fake OpenAI-compatible chat server for the cluster test, run as its own process inside the test
// swarm's network namespace (test/helpers/netns-model-server.ts starts it with nsenter), so it
// listens on the manager's loopback address there, which jobs on both nodes reach through their
// node's network. It answers by what a request says, not by order (jobs call it concurrently):
// a request without `Authorization: Bearer KEY` gets 401; one whose conversation names the task
// FAIL_TASK gets 400 (that instance fails for its own reason); any other gets a plain answer with no
// tool call, which ends the run. Each request is appended to LOG as one JSON line (status, model).
// Usage: node netns-model-server.mjs PORT KEY FAIL_TASK LOG
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';

const [port, key, failTask, log] = process.argv.slice(2);

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const send = (status, value) => {
      appendFileSync(log, `${JSON.stringify({ status, path: req.url })}\n`);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${key}`)
      return send(401, { error: { message: 'wrong or missing API key' } });
    if (body.includes(failTask))
      return send(400, { error: { message: `the fake model refuses ${failTask}` } });
    const request = JSON.parse(body);
    send(200, {
      id: 'fake-1',
      object: 'chat.completion',
      model: request.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'I could not find the cause of this issue.' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    });
  });
});
server.listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
