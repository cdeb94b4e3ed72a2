import {
  type AgentSession,
  type ClientPeer,
  McpCallError,
  type McpOverAcpCaller,
  type McpTool,
  RpcError,
} from '@acp-kit/sdk';

/** One tool and the declared server offering it. */
interface Offered {
  readonly serverId: string;
  readonly serverName: string;
  readonly tool: McpTool;
}

function describeFailure(error: unknown): string {
  if (error instanceof McpCallError) return `MCP error ${error.code}: ${error.message}`;
  if (error instanceof RpcError) return `mcp/message failed with ${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Parses `/mcp` arguments: a tool name, optionally followed by its arguments as one JSON object. */
function parseCall(text: string): { tool: string; args: Record<string, unknown> } | { problem: string } {
  const match = /^(\S+)\s*(.*)$/s.exec(text);
  const tool = match?.[1] ?? '';
  const rest = match?.[2]?.trim() ?? '';
  if (rest === '') return { tool, args: {} };
  try {
    const args = JSON.parse(rest) as unknown;
    if (typeof args === 'object' && args !== null && !Array.isArray(args))
      return { tool, args: args as Record<string, unknown> };
  } catch {
    // Reported below.
  }
  return { problem: `the arguments of ${tool} must be one JSON object, for example {"text": "a b c"}` };
}

/**
 * `/mcp` (upstream's unstable mcp-over-acp draft): uses the MCP servers the client provides over
 * the ACP connection (declared as `McpServer`s of type `acp` for this session).
 *
 * - `/mcp` lists every tool of every declared server (`tools/list` over `mcp/message`).
 * - `/mcp <tool> [json arguments]` calls the tool on the first server listing it (`tools/call`),
 *   reported as a tool call whose content is the tool's text result: `completed`, or `failed`
 *   with the MCP error or the binding's JSON-RPC error (an unknown server, a withdrawn one).
 * - `/mcp @<serverId> <tool> [json arguments]` calls it on that server, declared or not, so the
 *   agent's refusal of an undeclared server shows too.
 *
 * Deterministic and offline: the agent's only effect is what the client's server answers.
 */
export async function mcpCommand(
  session: AgentSession,
  args: string,
  client: ClientPeer,
  mcp: McpOverAcpCaller,
): Promise<void> {
  const say = async (text: string) => {
    const reply = await session.agentMessage();
    await reply.chunk({ type: 'text', text });
  };
  const signal = session.signal;
  const servers = mcp.servers(session.id, client);
  if (args === '' || args === 'tools') {
    if (servers.length === 0) {
      await say('No MCP servers of type acp were declared for this session.');
      return session.idle('end_turn');
    }
    const lines: string[] = [];
    for (const server of servers) {
      try {
        const tools = await mcp.server(client, server.serverId).listTools({ signal });
        const names = tools.map((t) => (t.description ? `${t.name} (${t.description})` : t.name));
        lines.push(`${server.name}: ${names.length > 0 ? names.join(', ') : 'no tools'}`);
      } catch (error) {
        lines.push(`${server.name}: ${describeFailure(error)}`);
      }
    }
    await say(`MCP tools over ACP:\n${lines.join('\n')}`);
    return session.idle(signal.aborted ? 'cancelled' : 'end_turn');
  }

  let target: { serverId: string; serverName: string } | undefined;
  let rest = args;
  if (args.startsWith('@')) {
    const [id = '', ...more] = args.slice(1).split(/\s+/);
    const declared = servers.find((s) => s.serverId === id);
    target = { serverId: id, serverName: declared?.name ?? id };
    rest = more.join(' ');
  }
  const call = parseCall(rest);
  if ('problem' in call || call.tool === '') {
    await say(
      `Usage: /mcp [@serverId] <tool> [json arguments] — ${'problem' in call ? call.problem : 'name a tool'}.`,
    );
    return session.idle('end_turn');
  }
  if (target === undefined) {
    let offered: Offered | undefined;
    for (const server of servers) {
      const tools = await mcp
        .server(client, server.serverId)
        .listTools({ signal })
        .catch(() => [] as McpTool[]);
      const tool = tools.find((t) => t.name === call.tool);
      if (tool) {
        offered = { serverId: server.serverId, serverName: server.name, tool };
        break;
      }
    }
    if (offered === undefined) {
      await say(`No declared MCP server offers a tool named ${call.tool}.`);
      return session.idle('end_turn');
    }
    target = offered;
  }
  const tool = await session.toolCall({
    title: `MCP ${target.serverName}: ${call.tool}`,
    kind: 'other',
    status: 'in_progress',
    rawInput: { serverId: target.serverId, tool: call.tool, arguments: call.args },
  });
  try {
    const result = await mcp.server(client, target.serverId).callTool(call.tool, call.args, { signal });
    const text = (result.content ?? [])
      .map((c) =>
        typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text'
          ? String((c as { text: unknown }).text)
          : '',
      )
      .join('');
    await tool.update({
      status: result.isError === true ? 'failed' : 'completed',
      content: [{ type: 'content', content: { type: 'text', text } }],
      rawOutput: result,
    });
  } catch (error) {
    await tool.update({
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: describeFailure(error) } }],
    });
  }
  return session.idle(signal.aborted ? 'cancelled' : 'end_turn');
}
