import { Connection, stdioTransport } from '@acp-kit/sdk';
import { createEchoAgent } from './echo-agent.js';

// One agent can serve many connections; each serve() call adds a client.
const agent = createEchoAgent();
agent.serve(new Connection(stdioTransport()));
