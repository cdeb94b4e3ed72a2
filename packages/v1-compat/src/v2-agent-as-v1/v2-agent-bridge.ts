import type { BridgeLossListener } from '../bridge-loss.js';
import type {
  AgentNotificationMap as V2AgentNotificationMap,
  AgentRequestMap as V2AgentRequestMap,
  ClientNotificationMap as V2ClientNotificationMap,
  ClientRequestMap as V2ClientRequestMap,
  SessionId,
  AvailableCommand as V2AvailableCommand,
  SessionConfigOption as V2SessionConfigOption,
  SessionNotification as V2SessionNotification,
  ResumeSessionResponse as V2ResumeSessionResponse,
} from '@acp-kit/schema';
import { Connection, ErrorCodes, RpcError, schemaValidator, type Transport } from '@acp-kit/sdk';
import {
  v1ToV2Authenticate,
  v1ToV2CreateElicitationResponse,
  v1ToV2CloseSessionRequest,
  v1ToV2DeleteSessionRequest,
  v1ToV2InitializeRequest,
  v1ToV2ListSessionsRequest,
  v1ToV2LoadSessionRequest,
  v1ToV2Logout,
  v1ToV2NewSessionRequest,
  v1ToV2PromptRequest,
  v1ToV2RequestPermissionResponse,
  v1ToV2ResumeSessionRequest,
  v1ToV2SetSessionConfigOptionRequest,
  v1ToV2SetSessionMode,
  v2ToV1AuthenticateResponse,
  v2ToV1CloseSessionResponse,
  v2ToV1CompleteElicitationNotification,
  v2ToV1CreateElicitationRequest,
  v2ToV1DeleteSessionResponse,
  v2ToV1InitializeResponse,
  v2ToV1ListSessionsResponse,
  v2ToV1LoadSessionResponse,
  v2ToV1LogoutResponse,
  v2ToV1NewSessionResponse,
  v2ToV1ResumeSessionResponse,
  v2ToV1SetSessionConfigOptionResponse,
  v2ToV1SetSessionModeResponse,
  v2ToV1StopReason,
} from '../generated/compat/converters.js';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../generated/v1/methods.js';
import type * as V1 from '../generated/v1/types.js';
import { setModeErrorDataToV1, v2ModeOption } from '../mode-options.js';
import { v1SchemaValidator } from '../v1-validator.js';
import { WrappedPeer } from '../wrapped-peer.js';
import { type OpenPrompt, SessionView } from './session-view.js';

/** The bridge's connection to the v2 agent, as a v2 client. */
type V2ClientConnection = Connection<
  V2ClientRequestMap,
  V2ClientNotificationMap,
  V2AgentRequestMap,
  V2AgentNotificationMap
>;
/** The bridge's connection to the v1 client, as a v1 agent. */
export type V1AgentConnection = Connection<
  AgentRequestMap,
  AgentNotificationMap,
  ClientRequestMap,
  ClientNotificationMap
>;

/** Options of {@link serveV2AgentAsV1}. */
export interface ServeV2AgentAsV1Options {
  /** Transport to the v2 agent, e.g. `spawnTransport(command, args)`. */
  agent: Transport;
  /** Transport from the v1 client (e.g. `stdioTransport()`). */
  client: Transport;
  /** How errors name the agent. Default `v2 agent`. */
  name?: string;
  /**
   * Told each part of a v2 update that has no v1 form and was left out (a command whose input
   * type v1 does not know, say). `runBridge` logs them.
   */
  onLoss?: BridgeLossListener;
}

/** A running v2-agent-as-v1 bridge. */
export interface V2AgentBridge {
  /** The v1 client connection. */
  readonly connection: V1AgentConnection;
  /** Resolves with the reason once the v2 agent is gone. */
  readonly closed: Promise<string>;
  /** Closes both connections. */
  close(): void;
}

/**
 * Serves a v2 agent to a v1 client. A v1 `session/prompt` stays open until the v2 agent reports
 * `idle` after inserting it, then answers `{stopReason}`; v2 message updates become v1 chunks
 * (see `ChunkWriter` for replacements); `state_update` is not forwarded; v1 `session/load`
 * is v2 `session/resume` with replay from the start.
 */
export function serveV2AgentAsV1(options: ServeV2AgentAsV1Options): V2AgentBridge {
  const v2: V2ClientConnection = new Connection(options.agent, { validator: schemaValidator });
  const peer = new WrappedPeer(options.name ?? 'v2 agent', v2);
  const v1: V1AgentConnection = new Connection(options.client, { validator: v1SchemaValidator });
  const sessions = new Map<SessionId, SessionView>();
  /** What the v1 client advertised in its initialize (kinds it did not ask for are not sent). */
  let clientCapabilities: V1.ClientCapabilities | undefined;
  const view = (sessionId: SessionId): SessionView => {
    let found = sessions.get(sessionId);
    if (found === undefined) {
      found = new SessionView(options.onLoss, 'arrival', () => clientCapabilities);
      sessions.set(sessionId, found);
    }
    return found;
  };
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw peer.toBridgeError(error);
    }
  };
  /** The configId of each session's mode option (v1 session/set_mode sets it). */
  const modeIds = new Map<SessionId, string>();
  const noteOptions = (
    sessionId: SessionId,
    options: readonly V2SessionConfigOption[] | null | undefined,
  ) => {
    const mode = v2ModeOption(options);
    if (mode !== undefined) modeIds.set(sessionId, mode.configId);
  };
  const send = (sessionId: SessionId, update: V1.SessionUpdate): void => {
    v1.sendNotification('session/update', { sessionId, update }).catch(() => undefined);
  };
  /** A v1 answer has no place for the commands a v2 answer lists: they follow as an update. */
  const sendCommands = (sessionId: SessionId, commands: V2AvailableCommand[] | null | undefined): void => {
    if (commands === undefined || commands === null) return;
    const update = { sessionUpdate: 'available_commands_update' as const, availableCommands: commands };
    // A command v1 cannot express is left out of the list and reported (see the lossy table).
    view(sessionId).forward(sessionId, update, send);
  };

  v2.onNotification('session/update', (params: V2SessionNotification) => {
    if (params.update.sessionUpdate === 'config_option_update')
      noteOptions(
        params.sessionId,
        (params.update as { configOptions: V2SessionConfigOption[] }).configOptions,
      );
    view(params.sessionId).receive(params.sessionId, params.update, send);
  });

  v2.onRequest('session/request_permission', async (params) => {
    // The v1 client is shown the tool call it is asked about first (see SessionView.askPermission).
    const asked = view(params.sessionId).askPermission(params.sessionId, params, send);
    let response: V1.RequestPermissionResponse | undefined;
    try {
      response = await v1.sendRequest('session/request_permission', asked.request);
      return v1ToV2RequestPermissionResponse(response);
    } finally {
      asked.answered(response);
    }
  });

  // A v1 client that advertised elicitation (its capabilities reach the v2 agent) is asked in v1 form.
  v2.onRequest('elicitation/create', async (params, context) =>
    v1ToV2CreateElicitationResponse(
      await v1.sendRequest('elicitation/create', v2ToV1CreateElicitationRequest(params), {
        signal: context.signal,
      }),
    ),
  );

  v2.onNotification('elicitation/complete', (params) => {
    v1.sendNotification('elicitation/complete', v2ToV1CompleteElicitationNotification(params)).catch(
      () => undefined,
    );
  });

  v1.onRequest('initialize', async (params) => {
    clientCapabilities = params.clientCapabilities;
    const response = await call(() => v2.sendRequest('initialize', v1ToV2InitializeRequest(params)));
    return v2ToV1InitializeResponse(response);
  });

  v1.onRequest('session/new', async (params) => {
    const response = await call(() => v2.sendRequest('session/new', v1ToV2NewSessionRequest(params)));
    const created = view(response.sessionId);
    if (created.state === 'unknown') created.state = 'idle'; // a new session has run nothing yet
    noteOptions(response.sessionId, response.configOptions);
    // After the answer, as v1 agents announce their commands: the client knows the session then.
    setImmediate(() => sendCommands(response.sessionId, response.availableCommands));
    return v2ToV1NewSessionResponse(response);
  });

  v1.onRequest('session/load', async (params) => {
    const s = view(params.sessionId);
    s.startLoading();
    let response: V2ResumeSessionResponse;
    try {
      response = await call(() => v2.sendRequest('session/resume', v1ToV2LoadSessionRequest(params)));
    } finally {
      s.loading = false;
    }
    noteOptions(params.sessionId, response.configOptions);
    sendCommands(params.sessionId, response.availableCommands);
    return v2ToV1LoadSessionResponse(response);
  });

  v1.onRequest('session/resume', async (params) => {
    const response = await call(() => v2.sendRequest('session/resume', v1ToV2ResumeSessionRequest(params)));
    view(params.sessionId);
    noteOptions(params.sessionId, response.configOptions);
    sendCommands(params.sessionId, response.availableCommands);
    return v2ToV1ResumeSessionResponse(response);
  });

  v1.onRequest('authenticate', async (params) =>
    v2ToV1AuthenticateResponse(await call(() => v2.sendRequest('auth/login', v1ToV2Authenticate(params)))),
  );

  v1.onRequest('logout', async (params) =>
    v2ToV1LogoutResponse(await call(() => v2.sendRequest('auth/logout', v1ToV2Logout(params)))),
  );

  v1.onRequest('session/set_mode', async (params) => {
    // The v2 agent's mode option may have another configId than the one v1 modes map to.
    const request = { ...v1ToV2SetSessionMode(params), configId: modeIds.get(params.sessionId) ?? 'mode' };
    const response = await call(() => v2.sendRequest('session/set_config_option', request)).catch(
      (error: unknown) => {
        // The agent points at the v2 option's value; the v1 client sent a modeId.
        if (!(error instanceof RpcError)) throw error;
        throw new RpcError(error.code, error.message, setModeErrorDataToV1(error.data));
      },
    );
    noteOptions(params.sessionId, response.configOptions);
    return v2ToV1SetSessionModeResponse(response);
  });

  v1.onRequest('session/set_config_option', async (params) => {
    const response = await call(() =>
      v2.sendRequest('session/set_config_option', v1ToV2SetSessionConfigOptionRequest(params)),
    );
    noteOptions(params.sessionId, response.configOptions);
    return v2ToV1SetSessionConfigOptionResponse(response);
  });

  v1.onRequest('session/list', async (params) =>
    v2ToV1ListSessionsResponse(
      await call(() => v2.sendRequest('session/list', v1ToV2ListSessionsRequest(params))),
    ),
  );

  v1.onRequest('session/close', async (params) =>
    v2ToV1CloseSessionResponse(
      await call(() => v2.sendRequest('session/close', v1ToV2CloseSessionRequest(params))),
    ),
  );

  v1.onRequest('session/delete', async (params) =>
    v2ToV1DeleteSessionResponse(
      await call(() => v2.sendRequest('session/delete', v1ToV2DeleteSessionRequest(params))),
    ),
  );

  v1.onRequest('session/prompt', async (params) => {
    const s = view(params.sessionId);
    const open: OpenPrompt = { cancelledAt: undefined };
    s.open.add(open);
    try {
      return await answerPrompt(params, s, open);
    } finally {
      s.open.delete(open);
    }
  });

  /**
   * One v1 prompt: sent as a v2 prompt, answered at the end of the turn that processes it. A
   * `session/cancel` that arrives while the prompt is open applies to it: the v1 answer is then
   * `cancelled` (unless the turn failed), even when the v2 agent ran the turn to its end — the
   * bridge is the agent the v1 client talks to, and it accepted the cancel. And because a v2
   * agent may get the cancel between inserting the prompt and starting its turn, the bridge sends
   * the cancel again once the prompt is inserted, unless another prompt was sent since.
   */
  const answerPrompt = async (
    params: V1.PromptRequest,
    s: SessionView,
    open: OpenPrompt,
  ): Promise<V1.PromptResponse> => {
    s.answering += 1;
    s.sent += 1;
    let messageId: string;
    try {
      ({ messageId } = await call(() => v2.sendRequest('session/prompt', v1ToV2PromptRequest(params))));
      s.ownMessages.add(messageId);
    } catch (error) {
      // A prompt the v2 agent dropped because the session was cancelled ends the v1 turn as cancelled.
      if (error instanceof RpcError && error.code === ErrorCodes.RequestCancelled)
        return { stopReason: 'cancelled' };
      throw error;
    } finally {
      s.answering -= 1;
      if (s.answering === 0) s.flush(params.sessionId, Number.POSITIVE_INFINITY, send);
    }
    if (open.cancelledAt !== undefined && open.cancelledAt === s.sent) {
      v2.sendNotification('session/cancel', { sessionId: params.sessionId }).catch(() => undefined);
    }
    const end = await s.turns.turnEnd(messageId);
    // Updates of this turn still held for another prompt's echo go out before the answer.
    s.flush(params.sessionId, end.seq, send);
    if (end.stopReason === 'error') {
      // v1 has no error stop reason: a turn that failed ends its session/prompt with an error.
      const error = end.error ?? {
        code: ErrorCodes.InternalError,
        message: 'The v2 agent reported an error.',
      };
      throw new RpcError(error.code, error.message, error.data);
    }
    if (open.cancelledAt !== undefined) return { stopReason: 'cancelled' };
    return { stopReason: v2ToV1StopReason(end.stopReason ?? 'end_turn') };
  };

  v1.onNotification('session/cancel', (params) => {
    const s = sessions.get(params.sessionId);
    for (const open of s?.open ?? []) open.cancelledAt ??= s?.sent;
    v2.sendNotification('session/cancel', params).catch(() => undefined);
  });

  peer.closed.then((reason) => {
    const error = new RpcError(ErrorCodes.InternalError, `${peer.name} unavailable: ${reason}`);
    for (const s of sessions.values()) s.turns.fail(error);
  });
  v2.listen();
  v1.listen();
  return {
    connection: v1,
    closed: peer.closed,
    close: () => {
      v1.close();
      peer.close();
    },
  };
}
