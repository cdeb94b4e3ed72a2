import type { ResumeSessionRequest, ResumeSessionResponse } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '@acp-kit/sdk';
import { convertParams } from '../../compat-error.js';
import {
  v2ToV1ForkSessionRequest,
  v2ToV1LoadSessionRequest,
  v2ToV1NewSessionRequest,
  v2ToV1ResumeSessionRequest,
} from '../../generated/compat/converters.js';
import type { BridgeCore } from '../bridge-core.js';
import type { ClientLink } from '../client-link.js';
import { SessionPaths } from '../session-paths.js';
import type { BridgeFeature } from './index.js';
import { replayCursorOf } from '@acp-kit/sdk/adapter';

/** MCP server types with a v1 form (see the McpServer conversion); `acp` is unstable in both. */
const V1_SERVER_TYPES = new Set(['stdio', 'http', '_sse', 'acp']);

/** Where in the params the first MCP server without a v1 form sits, for error pointers. */
function serversPointer(servers: readonly { type: string }[] | undefined): string {
  const index = servers?.findIndex((server) => !V1_SERVER_TYPES.has(server.type)) ?? -1;
  return index < 0 ? '/params' : `/params/mcpServers/${index}`;
}

/**
 * How a client gets a session: `session/new`, `session/fork` (unstable in both versions: served
 * when the v1 agent advertises sessionCapabilities.fork, the gate refuses it otherwise, -32601)
 * and `session/resume` (a v1 `session/load` when the agent can load, a v1 `session/resume`
 * otherwise). Each opens the bridge's side of the session and attaches the client to it.
 */
export const sessionSetup: BridgeFeature = (bridge) => ({
  'session/new': async (params, _request, link) => {
    const v1 = await bridge.v1Capabilities();
    link.checkPrompt(params.systemPrompt);
    link.declare(params.mcpServers, v1);
    const created = await bridge.call(() =>
      bridge.v1.sendRequest(
        'session/new',
        convertParams(() => v2ToV1NewSessionRequest(params), serversPointer(params.mcpServers)),
      ),
    );
    const session = bridge.open(created.sessionId, params.cwd);
    session.paths = new SessionPaths(params.cwd, params.additionalDirectories ?? []);
    session.options.take(created);
    link.attach(session);
    return { sessionId: created.sessionId, ...bridge.settings(session) };
  },

  // The fork is a new session to the bridge; its history reaches v2 clients by a resume with
  // replay (a v1 session/load of the fork).
  'session/fork': async (params, _request, link) => {
    const v1 = await bridge.v1Capabilities();
    link.checkPrompt(params.systemPrompt);
    link.declare(params.mcpServers, v1);
    const forked = await bridge.call(() =>
      bridge.v1.sendRequest(
        'session/fork',
        convertParams(() => v2ToV1ForkSessionRequest(params), serversPointer(params.mcpServers ?? [])),
      ),
    );
    const session = bridge.open(forked.sessionId, params.cwd);
    session.paths = new SessionPaths(params.cwd, params.additionalDirectories ?? []);
    session.options.take(forked);
    link.attach(session);
    return { sessionId: forked.sessionId, ...bridge.settings(session) };
  },

  'session/resume': (params, _request, link) => resume(bridge, params, link),
});

/**
 * `session/resume`: a live session is attached as it is unless a replay is asked for; a v1 agent
 * that can load replays the session (and recounts message positions); one that can only resume is
 * sent a v1 `session/resume`; one that can do neither answers -32002. Each ends with the
 * session's current activity.
 */
async function resume(
  bridge: BridgeCore,
  params: ResumeSessionRequest,
  link: ClientLink,
): Promise<ResumeSessionResponse> {
  const v1 = await bridge.v1Capabilities();
  const caps = v1.agentCapabilities;
  link.checkPrompt(params.systemPrompt);
  link.declare(params.mcpServers, v1);
  const cursor = replayCursorOf(params);
  const live = bridge.sessions.get(params.sessionId);
  if (live !== undefined && cursor === undefined) {
    link.attach(live);
    await bridge.current(live, link.peer);
    return bridge.settings(live);
  }
  if (caps?.loadSession === true) {
    // Also without replay: loading lets the bridge recount message positions, so the
    // derived IDs of later messages continue where the conversation left off.
    const session = bridge.open(params.sessionId, params.cwd);
    session.paths = new SessionPaths(params.cwd, params.additionalDirectories ?? []);
    const loaded = await session.load(cursor === undefined ? undefined : link.peer, () =>
      bridge.call(() =>
        bridge.v1.sendRequest(
          'session/load',
          convertParams(() => v2ToV1LoadSessionRequest(params), serversPointer(params.mcpServers)),
        ),
      ),
    );
    session.options.take(loaded);
    link.attach(session);
    await bridge.current(session, link.peer);
    return bridge.settings(session);
  }
  if (live !== undefined) {
    // Asked for replay, but the v1 agent cannot load: nothing is retained, nothing replayed.
    link.attach(live);
    await bridge.current(live, link.peer);
    return bridge.settings(live);
  }
  if (caps?.sessionCapabilities?.resume === undefined || caps.sessionCapabilities.resume === null) {
    throw new RpcError(
      ErrorCodes.ResourceNotFound,
      'Session not found: the v1 agent can neither load nor resume sessions',
      {
        sessionId: params.sessionId,
      },
    );
  }
  const resumed = await bridge.call(() =>
    bridge.v1.sendRequest(
      'session/resume',
      convertParams(() => v2ToV1ResumeSessionRequest(params), serversPointer(params.mcpServers)),
    ),
  );
  // Positions are unknown without a replay: later derived IDs are salted to stay unique.
  const session = bridge.open(params.sessionId, params.cwd, globalThis.crypto.randomUUID());
  session.paths = new SessionPaths(params.cwd, params.additionalDirectories ?? []);
  session.options.take(resumed);
  link.attach(session);
  await bridge.current(session, link.peer);
  return bridge.settings(session);
}
