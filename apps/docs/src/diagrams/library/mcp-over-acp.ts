import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** An MCP tool the client provides, called by the agent over the ACP connection. */
export const mcpOverAcp: SequenceDiagram = {
  id: 'diagram-mcp-over-acp',
  title: 'An MCP tool the client provides, called over ACP',
  summary:
    'The agent advertises capabilities.session.mcp.acp. The client declares its MCP server as an McpServer of type acp with serverId srv_1 in session/new. During a prompt the agent sends mcp/message requests to the client — tools/list, then tools/call with its own requestId — and each result carries the inner MCP outcome; a progress notification for the active request travels back as an mcp/message notification. The agent then reports the tool call and ends its turn.',
  participants: [
    { id: 'client', label: 'Client (MCP server)' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'initialize result',
      detail: 'capabilities.session.mcp.acp: {}',
    },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/new',
      detail: 'mcpServers: [{ type: "acp", name: "project-tools", serverId: "srv_1" }]',
    },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/prompt (id: 4)',
      detail: '"how many words?"',
    },
    {
      type: 'arrow',
      id: 'call',
      from: 'agent',
      to: 'client',
      kind: 'request',
      label: 'mcp/message (id: 7)',
      detail: 'serverId: srv_1 · requestId: mcp-2 · tools/call word_count',
    },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'notification',
      label: 'mcp/message',
      detail: 'srv_1 · mcp-2 · notifications/progress (only while mcp-2 is active)',
    },
    {
      type: 'arrow',
      id: 'outcome',
      from: 'client',
      to: 'agent',
      kind: 'response',
      label: 'result (id: 7)',
      detail: '{ result: { content: [{ type: "text", text: "3 words" }] } } — or { error: McpError }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'tool_call_update completed · agent_message_chunk · idle end_turn',
    },
    {
      type: 'note',
      over: ['client'],
      lines: ['unknown or withdrawn srv_1:', 'JSON-RPC error -33001, never a hang'],
    },
  ],
  pending: [{ participant: 'agent', from: 'call', to: 'outcome' }],
};
