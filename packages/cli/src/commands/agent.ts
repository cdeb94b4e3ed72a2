import { parseArgs } from 'node:util';
import {
  type AgentConnection,
  type HistoryStore,
  Connection,
  listenWebSocket,
  schemaValidator,
  stdioTransport,
} from '@acp-kit/sdk';
import { createReferenceAgent } from '../agent/reference-agent.js';
import { UsageError } from '../usage-error.js';
import { openSqliteHistory } from './sqlite-history.js';

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        history: { type: 'string' },
        listen: { type: 'string' },
        'chunk-delay': { type: 'string' },
      },
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d+)$/.exec(value);
  if (!match) throw new UsageError(`--listen expects <host:port> or <port>, got "${value}"`);
  const port = Number(match[2]);
  if (port > 65535) throw new UsageError(`--listen port out of range: ${port}`);
  return { host: match[1] || '127.0.0.1', port };
}

async function openHistory(path: string | undefined): Promise<HistoryStore | undefined> {
  if (!path) return undefined;
  return openSqliteHistory(path);
}

/** `acp-kit agent`: the reference agent over stdio, or over WebSocket with `--listen`. */
export async function runAgent(args: string[]): Promise<number> {
  const values = parse(args);
  const delay = values['chunk-delay'] === undefined ? undefined : Number(values['chunk-delay']);
  if (delay !== undefined && !(Number.isFinite(delay) && delay >= 0)) {
    throw new UsageError(`--chunk-delay expects a number of milliseconds, got "${values['chunk-delay']}"`);
  }
  const listen = values.listen === undefined ? undefined : parseListen(values.listen);
  const history = await openHistory(values.history);
  const agent = createReferenceAgent({
    ...(history ? { history } : {}),
    ...(delay === undefined ? {} : { chunkDelayMs: delay }),
  });

  if (listen) {
    const server = await listenWebSocket({
      ...listen,
      onConnection: (transport) => {
        const connection: AgentConnection = new Connection(transport, { validator: schemaValidator });
        agent.serve(connection);
      },
    });
    process.stderr.write(`acp-kit agent listening on ${server.url}\n`);
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        void server.close().then(resolve);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await history?.close?.();
    return 0;
  }

  const connection: AgentConnection = new Connection(stdioTransport(), { validator: schemaValidator });
  const closed = new Promise<void>((resolve) => connection.onClose(() => resolve()));
  agent.serve(connection, 'stdio');
  await closed;
  await history?.close?.();
  return 0;
}
