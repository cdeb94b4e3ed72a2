import { Connection, negotiateAgentVersion, stdioTransport } from '@acp-kit/sdk';
import { v1WireCodec } from '@acp-kit/v1-compat';
import { createEchoAgent } from '../sdk/echo-agent.js';

// One agent, written against v2. Each connection speaks what its client's initialize asks for:
// v2 as is, or v1 translated in this process by the v1 codec. No bridge process.
const agent = createEchoAgent();
const transport = negotiateAgentVersion(stdioTransport(), {
  codecs: [v1WireCodec],
  onNegotiated: (version) => process.stderr.write(`speaking ACP v${version}\n`),
});
agent.serve(new Connection(transport));
