import { PassThrough } from 'node:stream';
import {
  Connection,
  type ConnectionOptions,
  type Diagnostic,
  NdjsonDecoder,
  type ValidationResult,
  type Validator,
} from '../../src/rpc/index.js';
import { streamTransport } from '../../src/transports/index.js';

/**
 * A connection under test whose peer is the test itself: raw bytes go in, and every line the
 * connection writes comes back parsed, in order. Because replies are ordered, "nothing was sent
 * for input X" is proven by sending a probe request after X and seeing its answer come first.
 */
export interface RawPeer {
  connection: Connection;
  diagnostics: Diagnostic[];
  /** Writes raw text or bytes into the connection's input. */
  send(raw: string | Uint8Array): void;
  /** Writes one JSON value as a line. */
  sendJson(value: unknown): void;
  /** Ends the connection's input (the peer's end of stream), optionally after a last piece. */
  end(raw?: string): void;
  /** Every line the connection wrote, as raw text, in order. */
  rawLines: string[];
  /** Resolves once the connection ended its output. */
  outputEnded: Promise<void>;
  /** Resolves with the next message the connection wrote. */
  next(): Promise<Record<string, unknown>>;
  /** Sends `echo` with a fresh id and resolves with the next message (which must be its answer). */
  probe(): Promise<Record<string, unknown>>;
}

export function rawPeer(
  options: ConnectionOptions & { maxMessageBytes?: number } = {},
  setup?: (connection: Connection) => void,
): RawPeer {
  const input = new PassThrough();
  const output = new PassThrough();
  const connection = new Connection(
    streamTransport(input, output, { maxMessageBytes: options.maxMessageBytes }),
    options,
  );
  const diagnostics: Diagnostic[] = [];
  connection.onDiagnostic((d) => diagnostics.push(d));
  connection.onRequest('echo', (params) => params);
  setup?.(connection);
  connection.listen();

  const received: Record<string, unknown>[] = [];
  const rawLines: string[] = [];
  const waiters: ((message: Record<string, unknown>) => void)[] = [];
  const decoder = new NdjsonDecoder();
  output.on('data', (chunk: Buffer) => {
    for (const line of decoder.push(chunk)) {
      if (!line.ok) throw new Error(`connection wrote an undecodable line: ${line.error.message}`);
      rawLines.push(line.text);
      const message = JSON.parse(line.text) as Record<string, unknown>;
      const waiter = waiters.shift();
      if (waiter) waiter(message);
      else received.push(message);
    }
  });
  let probeId = 0;
  const next = (): Promise<Record<string, unknown>> => {
    const ready = received.shift();
    return ready ? Promise.resolve(ready) : new Promise((resolve) => waiters.push(resolve));
  };
  const sendJson = (value: unknown): void => {
    input.write(`${JSON.stringify(value)}\n`);
  };
  return {
    connection,
    diagnostics,
    send: (raw) => input.write(raw),
    sendJson,
    rawLines,
    end: (raw) => (raw === undefined ? input.end() : input.end(raw)),
    outputEnded: new Promise<void>((resolve) => output.on('finish', () => resolve())),
    next,
    probe: async () => {
      const id = `probe-${++probeId}`;
      sendJson({ jsonrpc: '2.0', id, method: 'echo', params: { probe: probeId } });
      const answer = await next();
      if (answer.id !== id) throw new Error(`expected the probe's answer, got ${JSON.stringify(answer)}`);
      return answer;
    },
  };
}

/**
 * A stand-in for the schema validators: `greet` needs `{ prompt: [{ type: 'text' }] }`-shaped
 * params and `remote/get` must return `{ messageId: string }`.
 */
export const testValidator: Validator = {
  params(method, value): ValidationResult | undefined {
    if (method !== 'greet' && method !== 'note') return undefined;
    const prompt = (value as { prompt?: unknown } | undefined)?.prompt;
    if (!Array.isArray(prompt)) {
      return {
        ok: false,
        issues: [{ pointer: '/prompt', keyword: 'type', message: 'must be array', expected: 'array' }],
      };
    }
    const index = prompt.findIndex((block: { type?: unknown }) => block?.type !== 'text');
    if (index >= 0) {
      return {
        ok: false,
        issues: [
          {
            pointer: `/prompt/${index}/type`,
            keyword: 'const',
            message: 'must be "text"',
            expected: '"text"',
          },
        ],
      };
    }
    return { ok: true, value };
  },
  result(method, value): ValidationResult | undefined {
    if (method !== 'remote/get') return undefined;
    const messageId = (value as { messageId?: unknown } | null)?.messageId;
    if (typeof messageId === 'string') return { ok: true, value };
    return {
      ok: false,
      issues: [{ pointer: '/messageId', keyword: 'type', message: 'must be string', expected: 'string' }],
    };
  },
};
