/**
 * A real agent process for the subscribe-and-snapshot benchmark: answers `initialize` and
 * `session/new` on stdin/stdout, then streams `<messages>` agent messages of `<chunks>`
 * `agent_message_chunk`s each as fast as the client reads (honouring stdout backpressure), and
 * stays up until stdin ends. The whole stream is serialized before the handshake, so producing it
 * costs nothing while the client is being timed.
 *
 * Usage: node --import tsx bench/streaming-agent.ts <messages> <chunks>
 */
import { BENCH_SESSION } from './update-stream.js';

const messages = Number(process.argv[2] ?? 1);
const chunks = Number(process.argv[3] ?? 1000);
const WORDS = 'the agent reads the file then edits the function and runs the tests again'.split(' ');

const lines: string[] = [];
for (let m = 0; m < messages; m += 1) {
  for (let c = 0; c < chunks; c += 1) {
    const update = {
      sessionUpdate: 'agent_message_chunk',
      messageId: `msg_agent_${m}`,
      content: { type: 'text', text: `${WORDS[(m + c) % WORDS.length]} ` },
    };
    lines.push(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'session/update',
        params: { sessionId: BENCH_SESSION, update },
      }),
    );
  }
}
const stream = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
lines.length = 0;

function send(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function streamUpdates(): Promise<void> {
  const piece = 64 * 1024;
  for (let at = 0; at < stream.length; at += piece) {
    if (!process.stdout.write(stream.subarray(at, at + piece))) {
      await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
    }
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text: string) => {
  pending += text;
  const parts = pending.split('\n');
  pending = parts.pop() ?? '';
  for (const raw of parts) {
    if (raw.trim() === '') continue;
    const request = JSON.parse(raw) as { id?: number | string; method?: string };
    if (request.id === undefined) continue;
    if (request.method === 'initialize') {
      send({
        jsonrpc: '2.0',
        id: request.id,
        result: { protocolVersion: 2, info: { name: 'streaming-agent', version: '0.0.0' }, capabilities: {} },
      });
    } else if (request.method === 'session/new') {
      send({ jsonrpc: '2.0', id: request.id, result: { sessionId: BENCH_SESSION } });
      void streamUpdates();
    } else {
      send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } });
    }
  }
});
process.stdin.on('end', () => process.exit(0));
