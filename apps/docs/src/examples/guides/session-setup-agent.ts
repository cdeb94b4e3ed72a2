import { basename } from 'node:path';
import type { McpServer, SessionId } from '@acp-kit/schema';
import { Agent, ErrorCodes, RpcError } from '@acp-kit/sdk';

/**
 * An agent that connects the stdio MCP servers each session asks for, titles its sessions, and
 * lets clients delete them. `connected` is what it holds per live session.
 */
export function createProjectAgent(connected = new Map<SessionId, readonly McpServer[]>()): Agent {
  const connect = (sessionId: SessionId, servers: readonly McpServer[] = []) => {
    const index = servers.findIndex((server) => server.type !== 'stdio');
    if (index >= 0) {
      // A refusal: the client gets this error and no session is created.
      throw new RpcError(ErrorCodes.InvalidParams, 'This agent only starts stdio MCP servers.', {
        pointer: `/params/mcpServers/${index}/type`,
        expected: '"stdio"',
      });
    }
    connected.set(sessionId, servers);
  };
  return new Agent({
    info: { name: 'project-agent', version: '1.0.0' },
    // `session.delete` makes session/delete available (without it: -32601); the others tell
    // clients what session/new may carry.
    capabilities: { session: { delete: {}, additionalDirectories: {}, mcp: { stdio: {} } } },
    listPageSize: 2,
    // The whole request, before the session exists, with the ID it will get.
    onNewSession(request, { sessionId }) {
      connect(sessionId, request.mcpServers);
      const directories = 1 + (request.additionalDirectories?.length ?? 0);
      return { title: `${basename(request.cwd)} (${directories} directories)` };
    },
    // A closed session can be resumed: connect its servers again.
    onResumeSession(request, { session }) {
      connect(session.id, request.mcpServers);
      return undefined;
    },
    // session/close and session/delete: free what the session held. Its history stays (close).
    onCloseSession(session) {
      connected.delete(session.id);
    },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      await session.idle('end_turn');
    },
  });
}
