import { Agent, ErrorCodes, RpcError } from '@acp-kit/sdk';

/** An agent that needs an API key from its environment, and a login before any session method. */
export function createKeyedAgent(env: { ACME_API_KEY?: string }): Agent {
  return new Agent({
    info: { name: 'keyed-agent', version: '1.0.0' },
    auth: {
      // Advertised as authMethods in the initialize response.
      methods: [{ type: 'agent', methodId: 'api-key', name: 'API key', description: 'Uses ACME_API_KEY' }],
      // Until a login succeeds on a connection, its session methods answer -32000.
      required: true,
      login() {
        if (!env.ACME_API_KEY) {
          throw new RpcError(ErrorCodes.AuthRequired, 'Set ACME_API_KEY and log in again.');
        }
      },
    },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      await session.idle('end_turn');
    },
  });
}
