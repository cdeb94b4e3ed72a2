import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, listenWebSocket, negotiateAgentVersion } from '@acp-kit/sdk';
import { v1WireCodec } from '@acp-kit/v1-compat';
import { createEchoAgent } from '../sdk/echo-agent.js';

// One agent for every WebSocket client; each accepted connection negotiates its own version,
// so v1 and v2 clients can be connected at the same time.
const agent = createEchoAgent();
const server = await listenWebSocket({
  host: '127.0.0.1', // loopback only (the default, spelled out)
  // No token passed: a random one is generated, and every handshake must present it.
  // No allowedOrigins: a web page's handshake (it carries an Origin) is refused with 403.
  onConnection(transport) {
    const negotiated = negotiateAgentVersion(transport, {
      codecs: [v1WireCodec],
      onNegotiated: (version) => process.stderr.write(`a client speaks ACP v${version}\n`),
    });
    agent.serve(new Connection(negotiated));
  },
});

// The token goes to a file only you can read, in a folder only you can open:
// print where it is, never the token itself.
const folder = mkdtempSync(join(tmpdir(), 'echo-agent-'));
const tokenFile = join(folder, 'token');
writeFileSync(tokenFile, `${server.token}\n`, { mode: 0o600, flag: 'wx' });
process.stderr.write(`listening on ${server.url}\ntoken file: ${tokenFile}\n`);

const stop = async (): Promise<void> => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
