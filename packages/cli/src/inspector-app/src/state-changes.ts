/**
 * How the page's state changes as events arrive, without a DOM: each function takes the one
 * {@link InspectorState} and changes it (or answers from it); the page's handlers call them and
 * then draw. Unit-tested without a browser (test/inspect/inspector-state.test.ts).
 */
import type { ConversationStore } from '@acp-kit/sdk/client';
import { V1ConversationTranslator } from '@acp-kit/v1-compat/browser';
import type { Ask } from './asks-view.js';
import { RpcError } from './peer.js';
import { record } from './record.js';
import { canonicalCapabilities, type InspectorState } from './state.js';
import type { TrafficRow } from './traffic.js';

/** Which way a message went on the page's connection. */
export type Direction = 'client->agent' | 'agent->client';

/**
 * Folds one message of the traffic into the conversation: a v2 agent's session/update as it is,
 * the v1 traffic (both ways) through the v1 translator. A replay check's resume fills its own
 * store. Returns why the store refused each update it refused (the others are applied).
 */
export function foldIntoStore(
  state: InspectorState,
  dir: Direction,
  msg: Record<string, unknown> | undefined,
): string[] {
  let updates: unknown[] = [];
  if (state.traffic.version === 1) updates = state.v1Conversation.take(dir, msg);
  else if (dir === 'agent->client' && msg?.method === 'session/update') updates = [msg.params];
  const refused: string[] = [];
  for (const params of updates) {
    try {
      const target =
        state.replayCheck !== undefined && record(params)?.sessionId === state.replayCheck.sessionId
          ? state.replayCheck.store
          : state.store;
      target.apply(params as Parameters<ConversationStore['apply']>[0]);
    } catch (error) {
      refused.push(error instanceof Error ? error.message : String(error));
    }
  }
  return refused;
}

/**
 * The page's answer to a request of the agent: a permission or elicitation request waits, as an
 * {@link Ask} in `state.asks`, until the user answers it (then `changed` is called again);
 * anything else is refused -32601.
 */
export function takeAgentRequest(
  state: InspectorState,
  changed: () => void,
): (method: string, params: unknown, id: unknown) => Promise<unknown> {
  return (method, params, id) => {
    if (method === 'session/request_permission' || method === 'elicitation/create') {
      const key = JSON.stringify(id);
      return new Promise((resolve, reject) => {
        const ask: Ask = {
          key,
          method,
          params: record(params) ?? {},
          since: performance.now(),
          answer: (result) => {
            state.asks.delete(key);
            resolve(result);
            changed();
          },
        };
        state.asks.set(key, { ask, reject });
        changed();
      });
    }
    return Promise.reject(new RpcError(-32601, `the inspector does not answer ${method}`, undefined));
  };
}

/**
 * The agent withdrew one of its requests (`$/cancel_request`): its ask goes, and the request is
 * answered -32800 as JSON-RPC cancellation asks. Returns the withdrawn ask's key and method, or
 * undefined when no such request waits.
 */
export function withdrawAsk(
  state: InspectorState,
  requestId: unknown,
): { key: string; method: string } | undefined {
  const key = JSON.stringify(requestId);
  const waiting = state.asks.get(key);
  if (waiting === undefined) return undefined;
  state.asks.delete(key);
  waiting.reject(new RpcError(-32800, 'Request cancelled', undefined));
  return { key, method: waiting.ask.method };
}

/** The inspector caught up with its log: the agent's requests held meanwhile, to be handed to the peer. */
export function catchUp(state: InspectorState): unknown[] {
  state.replaying = false;
  const held = [...state.held.values()];
  state.held.clear();
  return held;
}

/** A new agent process (or connection) started: not initialized yet, no stderr, no v1 sessions. */
export function startRun(
  state: InspectorState,
  event: { run: number; description: string; target?: 'stdio' | 'remote' | undefined },
): void {
  state.agent = {
    phase: 'running',
    run: event.run,
    description: event.description,
    target: event.target ?? 'stdio',
  };
  state.initialized = undefined;
  state.initializing.clear();
  state.stderr = '';
  // A new agent process: the v1 sessions of the last one are not continued.
  state.v1Conversation = new V1ConversationTranslator();
}

/** The agent's stderr grows, its last 16 KiB kept. */
export function addStderr(state: InspectorState, text: string): void {
  state.stderr = (state.stderr + text).slice(-16_384);
}

/** The agent's run ended: its sessions are disconnected, and every request it asked is rejected. */
export function disconnectAll(state: InspectorState, reason: string): void {
  for (const id of state.store.sessionIds()) state.store.setConnection(id, 'disconnected');
  for (const [key, { reject }] of state.asks) {
    state.asks.delete(key);
    reject(new Error(reason));
  }
}

/**
 * An initialize request seen on the wire (this tab's, or an earlier tab's in the replayed log):
 * its settings, so its answer tells which initialize is in force.
 */
export function noteInitialize(state: InspectorState, msg: Record<string, unknown> | undefined): void {
  if (msg?.method !== 'initialize' || !('id' in msg)) return;
  const params = record(msg.params) ?? {};
  state.initializing.set(JSON.stringify(msg.id), {
    version: params.protocolVersion === 1 ? 1 : 2,
    capabilities: canonicalCapabilities(
      params.protocolVersion === 1 ? params.clientCapabilities : params.capabilities,
    ),
  });
}

/** An initialize answered: the settings its request was sent with are the ones in force. */
export function initializeAnswered(
  state: InspectorState,
  row: TrafficRow,
  result: Record<string, unknown>,
): { version: 1 | 2; capabilities: string } {
  const key = JSON.stringify(record(row.msg)?.id);
  const asked = state.initializing.get(key);
  state.initializing.delete(key);
  state.initialized = {
    version: result.protocolVersion === 1 ? 1 : 2,
    capabilities: asked?.capabilities ?? canonicalCapabilities({}),
  };
  return state.initialized;
}

/** A session answer (new, resume, load, fork): its options and commands, connected, and listed. */
export function sessionAnswered(state: InspectorState, sessionId: string, result: unknown): void {
  const r = record(result);
  if (state.traffic.version === 2 && Array.isArray(r?.configOptions))
    state.store.setConfigOptions(sessionId, r.configOptions as never);
  if (state.traffic.version === 2 && Array.isArray(r?.availableCommands))
    state.store.setAvailableCommands(sessionId, r.availableCommands as never);
  state.store.setConnection(sessionId, 'connected');
  if (!state.sessions.includes(sessionId)) state.sessions.push(sessionId);
}

/** A session deleted: the store and the list forget it. */
export function sessionDeleted(state: InspectorState, sessionId: string): void {
  state.store.forget(sessionId);
  if (state.sessions.includes(sessionId)) state.sessions.splice(state.sessions.indexOf(sessionId), 1);
}
