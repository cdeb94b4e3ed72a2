// A small agent written against the installed @acp-kit/sdk, as its README shows it.
import { Agent, Connection, stdioTransport } from '@acp-kit/sdk';

const agent = new Agent({
  info: { name: 'consumer-agent', version: '1.0.0' },
  async onPrompt(prompt, { session }) {
    await prompt.insert(); // the client gets its messageId now, not before
    await session.running();
    const reply = await session.agentMessage();
    await reply.chunk({ type: 'text', text: 'Hello from an installed @acp-kit/sdk.' });
    await session.idle('end_turn');
  },
  onHandlerError: (error, { handler }) =>
    process.stderr.write(`consumer-agent: ${handler}: ${String(error)}\n`),
});
const connection = new Connection(stdioTransport());
agent.serve(connection);
