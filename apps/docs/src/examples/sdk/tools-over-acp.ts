import type { McpServerAcp } from '@acp-kit/schema';
import { Agent, type Client, McpCallError } from '@acp-kit/sdk';

/**
 * MCP over ACP (an unstable feature: upstream's mcp-over-acp draft), the client's side: a
 * `word_count` tool served by the client application itself, with no process or port. The client
 * must be created with `unstable: true` (`client.mcp.register()` throws a `TypeError` otherwise).
 * Give the returned declaration in `session/new`; `dispose()` on the registration withdraws it.
 */
export function provideWordCount(client: Client): McpServerAcp {
  const server = client.mcp.register({
    name: 'project-tools',
    async handler({ method, params }) {
      if (method === 'tools/list') {
        const inputSchema = { type: 'object', properties: { text: { type: 'string' } } };
        return { result: { tools: [{ name: 'word_count', inputSchema }] } };
      }
      if (method === 'tools/call' && params?.name === 'word_count') {
        const text = String((params.arguments as { text?: unknown } | undefined)?.text ?? '');
        const count = text.split(/\s+/).filter(Boolean).length;
        return { result: { content: [{ type: 'text', text: `${count} words` }] } };
      }
      // An MCP error is an answer too: it travels inside the mcp/message result.
      return { error: { code: -32601, message: `Not supported: ${method}` } };
    },
  });
  return server.declaration;
}

/**
 * The agent's side: `mcpOverAcp` advertises `capabilities.session.mcp.acp`; each prompt's text is
 * given to the `word_count` tool of the first acp server the client declared for the session.
 */
export function createWordCountingAgent(): Agent {
  const agent: Agent = new Agent({
    info: { name: 'word-counting-agent', version: '1.0.0' },
    unstable: true, // MCP over ACP is upstream's unstable surface: opt in
    mcpOverAcp: true,
    async onPrompt(prompt, { session, client }) {
      await prompt.insert();
      await session.running();
      const text = prompt.content.map((block) => (block.type === 'text' ? block.text : '')).join(' ');
      const reply = await session.agentMessage();
      const [server] = agent.mcp!.servers(session.id, client);
      if (server === undefined) {
        await reply.chunk({ type: 'text', text: 'No tools were provided.' });
        return session.idle('end_turn');
      }
      try {
        const tools = agent.mcp!.server(client, server.serverId);
        const result = await tools.callTool('word_count', { text }, { signal: session.signal });
        const [first] = (result.content ?? []) as { text?: string }[];
        await reply.chunk({ type: 'text', text: `${server.name} says: ${first?.text ?? ''}` });
      } catch (error) {
        // McpCallError: the server's own MCP error; an RpcError: the binding failed (-33001…).
        const why = error instanceof McpCallError ? `MCP error ${error.code}` : String(error);
        await reply.chunk({ type: 'text', text: `The tool failed: ${why}` });
      }
      await session.idle('end_turn');
    },
  });
  return agent;
}
