/**
 * The agent end of a benchmark pipe: answers `initialize` and `session/new` read from the client,
 * then hands over to the benchmark, which writes pre-serialized updates into the same pipe.
 */
import type { PassThrough } from 'node:stream';
import { BENCH_SESSION } from './update-stream.js';

type Request = { id?: number | string; method?: string };

/** Answers the client's handshake on `toClient`; calls `onSession` right after the session/new answer. */
export function answerHandshake(fromClient: PassThrough, toClient: PassThrough, onSession: () => void): void {
  let pending = '';
  fromClient.setEncoding('utf8');
  fromClient.on('data', (text: string) => {
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const raw of lines) {
      if (raw.trim() === '') continue;
      const request = JSON.parse(raw) as Request;
      if (request.id === undefined) continue;
      const answer = (result: unknown): void => {
        toClient.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n`);
      };
      if (request.method === 'initialize') {
        answer({
          protocolVersion: 2,
          info: { name: 'bench-agent', version: '0.0.0' },
          capabilities: { session: {} },
        });
      } else if (request.method === 'session/new') {
        answer({ sessionId: BENCH_SESSION });
        onSession();
      } else {
        toClient.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } })}\n`,
        );
      }
    }
  });
}
