/**
 * A client with many sessions on one Streamable HTTP connection: each session's stream and each
 * request in flight listens to the connection's abort signal, so past ten sessions Node printed
 * "MaxListenersExceededWarning: Possible EventTarget memory leak detected" on the client's stderr
 * (seen in the capacity bench, whose load generators put hundreds of sessions on one connection
 * behind `acp-kit serve`). Those listeners are the connection's work and leave with their
 * requests: no warning may be printed, with either exchange (`node:http`, or `fetch`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection, type Transport } from '../../src/rpc/index.js';
import { connectHttp as connectFetch } from '../../src/transports/http-client.js';
import { type AcpTransportServer, connectHttp, listenAcp } from '../../src/transports/index.js';

const SESSIONS = 12;

let server: AcpTransportServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

/** The warnings the process emitted while `run` ran (and a moment after: Node emits them on a later tick). */
async function warningsDuring(run: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(`${warning.name}: ${warning.message}`);
  };
  process.on('warning', onWarning);
  try {
    await run();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

describe('one Streamable HTTP connection with many sessions', () => {
  const exchanges: [string, (url: string, token: string) => Promise<Transport>][] = [
    ['node:http', (url, token) => connectHttp(url, { token })],
    ['fetch', (url, token) => connectFetch(url, { token })],
  ];
  for (const [name, connect] of exchanges) {
    it(`opens ${SESSIONS} sessions and prompts them all at once over ${name} without a listener-leak warning`, async () => {
      const agent = new Agent({
        info: { name: 'many-sessions-agent', version: '0.0.0' },
        onPrompt: (prompt) => void prompt.insert(),
      });
      server = await listenAcp({
        onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
      });
      const { url, token } = server;
      const warnings = await warningsDuring(async () => {
        client = new Client(new Connection(await connect(url, token!)) as ClientConnection, {
          info: { name: 'many-sessions-client', version: '0.0.0' },
        });
        await client.initialize();
        const sessions: string[] = [];
        for (let i = 0; i < SESSIONS; i += 1) sessions.push(await client.newSession('/repo'));
        const answers = await Promise.all(
          sessions.map((id) => client!.prompt(id, [{ type: 'text', text: 'hello' }])),
        );
        expect(answers).toHaveLength(SESSIONS);
      });
      expect(warnings).toEqual([]);
    });
  }
});
