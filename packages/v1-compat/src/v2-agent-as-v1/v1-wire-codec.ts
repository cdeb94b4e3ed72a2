import type { BridgeLossListener } from '../bridge-loss.js';
import type {
  PromptResponse as V2PromptResponse,
  RequestPermissionRequest as V2RequestPermissionRequest,
  AvailableCommand as V2AvailableCommand,
  SessionConfigOption as V2SessionConfigOption,
  SessionId,
  SessionNotification as V2SessionNotification,
} from '@acp-kit/schema';
import { ErrorCodes, type RpcId, type ValidationIssue } from '@acp-kit/sdk';
import type { CodecChannel, CodecSession, RpcErrorObject, WireCodec, WriteNote } from '@acp-kit/sdk/adapter';
import { v2ToV1StopReason } from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import { validateParams, validateResult } from '../generated/v1/validate.js';
import { setModeErrorDataToV1, v2ModeOption } from '../mode-options.js';
import { v1BatchRefusal } from '../no-batches.js';
import type { V1ClientServicesOptions } from '../v1-agent-as-v2/client-services.js';
import { offerClientServices, openV1ClientCodec } from '../v1-agent-as-v2/v1-client-codec.js';
import { type OpenPrompt, SessionView, type StreamNumbering } from './session-view.js';
import type { TurnEnd } from './turn-watcher.js';
import { advertises } from './client-advertises.js';
import {
  AGENT_ROUTES,
  CLIENT_ROUTES,
  type Convert,
  reportDropped,
  UNCARRIED_CLIENT_METHODS,
  V1_METHOD_NAMES,
  type V1Route,
} from './v1-routes.js';

type Message = Record<string, unknown> & { id?: RpcId | null; method?: unknown; params?: unknown };

/** A v1 request the codec passed on to the core and has not answered yet. */
interface PeerRequest {
  readonly method: string;
  readonly route: V1Route;
  readonly sessionId?: SessionId;
  readonly open?: OpenPrompt;
}

/** A request of the core to the v1 client, not answered yet. */
interface CoreRequest {
  readonly route: V1Route;
  /** Told the v1 answer's result (undefined for an error). */
  readonly answered?: (result?: V1.RequestPermissionResponse) => void;
}

/**
 * The v1 wire codec: lets an agent built on the SDK (which speaks v2) serve a v1 client on the
 * same endpoint, in process — and, on the client side (`negotiateClientVersion`), lets a client
 * built on the SDK drive a v1 agent through the v1-agent-as-v2 translation (see
 * `openV1ClientCodec`). Pass it to `negotiateAgentVersion(transport, { codecs: [v1WireCodec] })`;
 * a client whose `initialize` asks for version 1 then gets a v1 connection.
 *
 * `serveV2AgentAsV1` is this codec in front of a relay to a v2 agent process, so both translate
 * alike. Every v1 method crosses by the routes read from the generated compat tables (`METHOD_MAPPING`,
 * `CONVERSIONS`: `session/load` is `session/resume` with replay, `authenticate` is `auth/login`,
 * `session/set_mode` is `session/set_config_option`), so
 * the codec follows the schemas and the compat mapping as they grow. A v1 `session/prompt` is
 * answered with `{stopReason}` at the first `idle` after the prompt's insertion, found in the
 * session's numbered update stream; v2 message updates become v1 chunks; `state_update` is not
 * sent; the agent's requests that v1 also has (`session/request_permission`) go to the v1 client
 * and its answer comes back as v2. Incoming v1 params and results are validated against the v1
 * schema (bad input gets -32602 with a pointer into the message and what was expected); a v2
 * request the v1 client cannot answer is refused to the agent with -32601.
 */
export const v1WireCodec: WireCodec = createV1WireCodec();

/** Options of {@link createV1WireCodec}. */
export interface V1WireCodecOptions {
  /**
   * Told each part of a v2 update that has no v1 form and was left out for a v1 client (a command
   * whose input type v1 does not know, say), so nothing is dropped silently.
   */
  onLoss?: BridgeLossListener;
  /**
   * Client side: the v1 client methods v2 removed — `fs/read_text_file`, `fs/write_text_file`,
   * `terminal/*` — offered to a v1 agent and served on this machine (files confined to each
   * session's cwd and additionalDirectories unless `allowPath` decides otherwise; terminals as
   * child processes, bounded). `true` offers them all with the defaults. They are advertised in the
   * client's `initialize` (v1 `clientCapabilities.fs` and `terminal`, fields a v2 agent ignores) and
   * served only when the agent answers with version 1. Each write reaches the client's store as a
   * completed `edit` tool call with a diff, each terminal as a display terminal whose output
   * streams. Default: none offered.
   */
  clientServices?: boolean | V1ClientServicesOptions;
}

/**
 * A {@link v1WireCodec} with options: what the v2→v1 translation leaves out goes to `onLoss`; on
 * the client side, `clientServices` offers a v1 agent the file system and terminals.
 */
export function createV1WireCodec(options: V1WireCodecOptions = {}): WireCodec {
  const services =
    options.clientServices === undefined || options.clientServices === false
      ? undefined
      : options.clientServices === true
        ? {}
        : options.clientServices;
  // Checks the bounds now, so a bad option fails where the codec is made.
  if (services !== undefined) offerClientServices({}, services);
  return {
    protocolVersion: 1,
    agent: (channel) => new V1AgentCodec(channel, options.onLoss),
    client: (channel, handshake) => openV1ClientCodec(channel, handshake, services),
    ...(services === undefined
      ? {}
      : { amendInitialize: (params: unknown) => offerClientServices(params, services) }),
  };
}

/**
 * The agent side of the v1 codec: a v1 client in front, the v2 core behind. In process (the
 * codec an `Agent` negotiates) the core tells each live update's log seq, and turns are found by
 * it; in front of a v2 agent process (`serveV2AgentAsV1`), which only has the wire, updates are
 * numbered by arrival.
 */
export class V1AgentCodec implements CodecSession {
  readonly #channel: CodecChannel;
  /** v1 requests passed on to the core, by their id. */
  readonly #peerRequests = new Map<RpcId, PeerRequest>();
  /** Requests of the core to the v1 client, by their id: how they crossed, and who hears the answer. */
  readonly #coreRequests = new Map<RpcId, CoreRequest>();
  readonly #sessions = new Map<SessionId, SessionView>();
  /** The configId of each session's mode option, as last reported (v1 session/set_mode sets it). */
  readonly #modeIds = new Map<SessionId, string>();
  readonly #sendUpdate = (sessionId: SessionId, update: V1.SessionUpdate): Promise<void> =>
    this.#write({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } });

  readonly #onLoss: BridgeLossListener | undefined;
  /** Subagent sessions the agent announced (`subagent_update`), each with its parent. */
  readonly #subagents = new Map<SessionId, SessionId>();
  /** What the v1 client advertised in its initialize (kinds it did not ask for are not sent). */
  #clientCapabilities: V1.ClientCapabilities | undefined;

  readonly #numbering: StreamNumbering;

  constructor(channel: CodecChannel, onLoss?: BridgeLossListener, numbering: StreamNumbering = 'log') {
    this.#channel = channel;
    this.#onLoss = onLoss;
    this.#numbering = numbering;
  }

  #view(sessionId: SessionId): SessionView {
    let found = this.#sessions.get(sessionId);
    if (found === undefined) {
      found = new SessionView(this.#onLoss, this.#numbering, () => this.#clientCapabilities);
      this.#sessions.set(sessionId, found);
    }
    return found;
  }

  #write(message: unknown): Promise<void> {
    return this.#channel.write(message).catch(() => undefined);
  }

  fromPeer(value: unknown): void {
    if (Array.isArray(value)) {
      this.#write(v1BatchRefusal());
      return;
    }
    if (typeof value !== 'object' || value === null) {
      this.#channel.deliver(value);
      return;
    }
    const message = value as Message;
    if (typeof message.method === 'string') {
      if (message.id === undefined) this.#notificationFromPeer(message, message.method);
      else this.#requestFromPeer(message, message.method, message.id as RpcId);
      return;
    }
    if (message.id !== undefined && message.id !== null && 'result' in message) {
      this.#resultFromPeer(message, message.id);
      return;
    }
    if (message.id !== undefined && message.id !== null) {
      this.#coreRequests.get(message.id)?.answered?.();
      this.#coreRequests.delete(message.id);
    }
    this.#channel.deliver(message);
  }

  #requestFromPeer(received: Message, method: string, id: RpcId): void {
    const checked = validateParams(method, received.params);
    if (checked !== undefined && !checked.ok) {
      this.#write(invalid(id, ErrorCodes.InvalidParams, 'Invalid params', '/params', checked.issues));
      return;
    }
    // An omitted `params` of a method that requires none was read as `{}`: go on with that.
    const message = checked === undefined ? received : { ...received, params: checked.value };
    const route = CLIENT_ROUTES.get(method);
    if (route === undefined) {
      const refused = this.#notCarried(method, message.params, false);
      if (refused !== undefined) {
        this.#write(errorResponse(id, ErrorCodes.MethodNotFound, refused.message, refused.data));
        return;
      }
      // Extensions, and v1 methods the agent sends: the agent answers (-32601 for what it lacks).
      this.#channel.deliver(message);
      return;
    }
    const params = message.params as { sessionId?: SessionId };
    if (method === 'initialize')
      this.#clientCapabilities = (message.params as V1.InitializeRequest).clientCapabilities;
    const request: { method: string; route: V1Route; sessionId?: SessionId; open?: OpenPrompt } = {
      method,
      route,
    };
    if (params.sessionId !== undefined) request.sessionId = params.sessionId;
    if (method === 'session/load' && params.sessionId !== undefined)
      this.#view(params.sessionId).startLoading();
    // A client that names a subagent's session itself wants its updates, subagents or not.
    if ((method === 'session/load' || method === 'session/resume') && params.sessionId !== undefined)
      this.#subagents.delete(params.sessionId);
    if (method === 'session/prompt' && params.sessionId !== undefined) {
      const s = this.#view(params.sessionId);
      request.open = { cancelledAt: undefined };
      s.open.add(request.open);
      s.answering += 1;
      s.sent += 1;
    }
    this.#peerRequests.set(id, request);
    reportDropped(this.#onLoss, route.paramsDropped, message.params, '/params', {
      method,
      sessionId: params.sessionId,
    });
    const converted = convert(route.params, message.params) as Record<string, unknown>;
    // The agent's mode option may have another configId than the one v1 modes map to by default.
    const modeId = method === 'session/set_mode' ? this.#modeIds.get(params.sessionId ?? '') : undefined;
    this.#channel.deliver({
      ...message,
      method: route.v2,
      params: modeId === undefined ? converted : { ...converted, configId: modeId },
    });
  }

  /**
   * Why a v1 method without a route does not reach the core, or undefined when it does: an
   * extension (`_`-prefixed) crosses unchanged, and so does a v1 method only the agent sends (the
   * core refuses it itself). A v1 method the bridge does not carry (`proxy/*`) is refused and
   * reported to `onLoss`. A method that is neither v1 nor an extension cannot be translated and is
   * not passed on as it is either (a v2 method would be reachable with v2 semantics on a v1
   * connection): a request is refused -32601; a notification, which cannot be answered, is
   * reported to `onLoss` and goes no further.
   */
  #notCarried(
    method: string,
    params: unknown,
    notification: boolean,
  ): { message: string; data: unknown } | undefined {
    if (method.startsWith('_')) return undefined;
    const sessionId = (params as { sessionId?: unknown } | null | undefined)?.sessionId;
    const lost = (reason: string) =>
      this.#onLoss?.({
        sessionId: typeof sessionId === 'string' ? sessionId : '',
        in: method,
        pointer: '',
        reason,
      });
    const uncarried = UNCARRIED_CLIENT_METHODS.get(method);
    if (uncarried !== undefined) {
      lost(uncarried);
      const why = method.startsWith('proxy/')
        ? 'the bridge does not carry proxy chains across versions'
        : 'it has no v2 counterpart';
      return {
        message: `Method not found: ${method} does not cross the v1 bridge (${why})`,
        data: { method, reason: uncarried },
      };
    }
    if (V1_METHOD_NAMES.has(method)) return undefined;
    const reason = `${method} is not a v1 method: a v1 connection carries v1 methods and extensions (_-prefixed)`;
    if (notification) lost(reason);
    return { message: `Method not found: ${method}`, data: { method, reason } };
  }

  /** Remembers which option is the session's mode, from options the agent reported. */
  #noteOptions(sessionId: SessionId | undefined, options: unknown): void {
    if (sessionId === undefined || !Array.isArray(options)) return;
    const mode = v2ModeOption(options as V2SessionConfigOption[]);
    if (mode !== undefined) this.#modeIds.set(sessionId, mode.configId);
  }

  #notificationFromPeer(received: Message, method: string): void {
    const checked = validateParams(method, received.params);
    // A notification cannot be answered: one that is not valid v1 goes no further.
    if (checked !== undefined && !checked.ok) return;
    const message = checked === undefined ? received : { ...received, params: checked.value };
    if (method === 'session/cancel') {
      const params = message.params as V1.CancelNotification;
      const s = this.#sessions.get(params.sessionId);
      for (const open of s?.open ?? []) open.cancelledAt ??= s?.sent;
    }
    const route = CLIENT_ROUTES.get(method);
    // Not carried, or not v1 at all: a notification cannot be refused, so it is reported instead.
    if (route === undefined && this.#notCarried(method, message.params, true) !== undefined) return;
    this.#channel.deliver(
      route === undefined
        ? message
        : { ...message, method: route.v2, params: convert(route.params, message.params) },
    );
  }

  /** The v1 client's answer to one of the core's requests: checked against v1, then translated. */
  #resultFromPeer(message: Message, id: RpcId): void {
    const request = this.#coreRequests.get(id);
    this.#coreRequests.delete(id);
    if (request === undefined) {
      this.#channel.deliver(message);
      return;
    }
    const { route } = request;
    const checked = validateResult(route.v1, message.result);
    request.answered?.(checked === undefined || checked.ok ? (message.result as never) : undefined);
    if (checked !== undefined && !checked.ok) {
      this.#channel.deliver(
        invalid(id, ErrorCodes.InternalError, `Invalid result for ${route.v1}`, '/result', checked.issues),
      );
      return;
    }
    this.#channel.deliver({ ...message, result: convert(route.result, message.result) });
  }

  fromCore(value: unknown, note?: WriteNote): Promise<void> {
    const message = value as Message;
    if (typeof message.method === 'string') {
      return message.id === undefined
        ? this.#notificationFromCore(message, message.method, note)
        : this.#requestFromCore(message, message.method, message.id as RpcId);
    }
    const request =
      message.id === undefined || message.id === null ? undefined : this.#peerRequests.get(message.id);
    if (request === undefined) return this.#write(message);
    this.#peerRequests.delete(message.id as RpcId);
    return this.#answer(message, message.id as RpcId, request);
  }

  #notificationFromCore(message: Message, method: string, note?: WriteNote): Promise<void> {
    if (method === 'session/update') {
      const { sessionId, update } = message.params as V2SessionNotification;
      if (update.sessionUpdate === 'config_option_update') this.#noteOptions(sessionId, update.configOptions);
      if (update.sessionUpdate === 'subagent_update') {
        const child = (update as { sessionId?: unknown }).sessionId;
        if (typeof child === 'string') this.#subagents.set(child, sessionId);
      }
      const parent = this.#subagents.get(sessionId);
      if (parent !== undefined && !advertises(this.#clientCapabilities, '/subagents')) {
        // A child session's own traffic is for clients that understand subagents (v1's unstable
        // subagents capability): any other never learnt the child's ID.
        this.#onLoss?.({
          sessionId,
          in: update.sessionUpdate,
          pointer: '',
          reason: `${sessionId} is a subagent of ${parent}: its updates go only to a v1 client that advertised subagents in its initialize`,
        });
        return Promise.resolve();
      }
      return (
        this.#view(sessionId).receive(sessionId, update, this.#sendUpdate, note?.seq) ?? Promise.resolve()
      );
    }
    const route = AGENT_ROUTES.get(method);
    if (route !== undefined) {
      return this.#write({ ...message, method: route.v1, params: convert(route.params, message.params) });
    }
    // Extensions pass; a v2-only notification has no v1 reader.
    if (method.startsWith('_')) return this.#write(message);
    return Promise.resolve();
  }

  #requestFromCore(message: Message, method: string, id: RpcId): Promise<void> {
    const route = AGENT_ROUTES.get(method);
    if (route !== undefined && method === 'session/request_permission') {
      // The v1 client is shown the tool call it is asked about first (see SessionView.askPermission).
      const params = message.params as V2RequestPermissionRequest;
      const asked = this.#view(params.sessionId).askPermission(params.sessionId, params, this.#sendUpdate);
      this.#coreRequests.set(id, { route, answered: asked.answered });
      return this.#write({ ...message, method: route.v1, params: asked.request });
    }
    if (route !== undefined) {
      this.#coreRequests.set(id, { route });
      return this.#write({ ...message, method: route.v1, params: convert(route.params, message.params) });
    }
    if (method.startsWith('_')) return this.#write(message);
    this.#channel.deliver(
      errorResponse(
        id,
        ErrorCodes.MethodNotFound,
        `Method not found: a v1 client does not answer ${method}`,
        {
          method,
        },
      ),
    );
    return Promise.resolve();
  }

  /** The core's answer to a v1 request. */
  #answer(message: Message, id: RpcId, request: PeerRequest): Promise<void> {
    const { method, sessionId } = request;
    const s = sessionId === undefined ? undefined : this.#view(sessionId);
    if (method === 'session/load' && s !== undefined) s.loading = false;
    if (
      method === 'session/prompt' &&
      s !== undefined &&
      sessionId !== undefined &&
      request.open !== undefined
    ) {
      this.#prompted(message, id, sessionId, s, request.open);
      return Promise.resolve();
    }
    if (!('result' in message)) {
      return this.#write(method === 'session/set_mode' ? modeErrorInV1(message) : message);
    }
    const answered = message.result as {
      sessionId?: SessionId;
      configOptions?: unknown;
      availableCommands?: V2AvailableCommand[] | null;
    } | null;
    // A fork's request names its source; the answer names the session it made.
    const session = method === 'session/fork' ? answered?.sessionId : (sessionId ?? answered?.sessionId);
    this.#noteOptions(session, answered?.configOptions);
    const commands = answered?.availableCommands;
    // Before the answer to a load or resume: the client sees the commands once the session is loaded.
    if (session !== undefined && (method === 'session/load' || method === 'session/resume'))
      this.#sendCommands(session, commands);
    reportDropped(this.#onLoss, request.route.resultDropped, message.result, '/result', {
      method,
      sessionId: session,
    });
    const written = this.#write({ ...message, result: convert(request.route.result, message.result) });
    if (session !== undefined && (method === 'session/new' || method === 'session/fork')) {
      const created = this.#view(session);
      if (created.state === 'unknown') created.state = 'idle'; // a new session has run nothing yet
      // After the answer, as v1 agents announce their commands: the client knows the session then.
      void written.then(() => this.#sendCommands(session, commands));
    }
    return written;
  }

  /** A v1 answer has no place for the commands a v2 answer lists: they follow as an update. */
  #sendCommands(sessionId: SessionId, commands: V2AvailableCommand[] | null | undefined): void {
    if (commands === undefined || commands === null) return;
    const update = { sessionUpdate: 'available_commands_update' as const, availableCommands: commands };
    // A command v1 cannot express is left out of the list and reported (see the lossy table).
    void this.#view(sessionId).forward(sessionId, update, this.#sendUpdate);
  }

  /**
   * A v1 prompt the core answered. Its v2 answer (`{messageId}`, the insertion) is not sent: the v1
   * answer waits for the end of the turn that processes that message. A `session/cancel` received
   * while the prompt was open applies to it (the answer is then `cancelled`), and is sent to the
   * core again now that the prompt is inserted, unless another prompt was sent since (the core may
   * have had the cancel before the turn started).
   */
  async #prompted(
    message: Message,
    id: RpcId,
    sessionId: SessionId,
    s: SessionView,
    open: OpenPrompt,
  ): Promise<void> {
    // Whether updates are held behind this prompt's answer (released once it is written).
    let holding = false;
    try {
      if ('error' in message) {
        s.responded(sessionId, undefined, this.#sendUpdate);
        const error = message.error as RpcErrorObject;
        // A prompt dropped because the session was cancelled ends the v1 turn as cancelled.
        if (error.code === ErrorCodes.RequestCancelled)
          await this.#write(result(id, { stopReason: 'cancelled' }));
        else await this.#write(message);
        return;
      }
      const { messageId } = message.result as V2PromptResponse;
      s.ownMessages.add(messageId);
      holding = s.responded(sessionId, messageId, this.#sendUpdate);
      if (open.cancelledAt !== undefined && open.cancelledAt === s.sent) {
        queueMicrotask(() =>
          this.#channel.deliver({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } }),
        );
      }
      const end = await s.turns.turnEnd(messageId).catch((error: unknown) => ({ failed: error }));
      if ('failed' in end) {
        const reason = end.failed instanceof Error ? end.failed.message : String(end.failed);
        await this.#write(errorResponse(id, ErrorCodes.InternalError, reason));
        return;
      }
      holding ||= end.held;
      // Updates of this turn still held for another prompt's echo go out before the answer.
      s.flush(sessionId, end.seq, this.#sendUpdate);
      const written = this.#write(this.#turnAnswer(id, end, open));
      // Written in order: the updates held behind the idle (background work, out-of-turn
      // messages) follow the answer.
      if (holding) {
        holding = false;
        s.answered(sessionId, this.#sendUpdate);
      }
      await written;
    } finally {
      if (holding) s.answered(sessionId, this.#sendUpdate);
      s.open.delete(open);
    }
  }

  /** The v1 answer of a prompt whose turn ended: its stop reason, or the error the failed turn reported. */
  #turnAnswer(id: RpcId, end: TurnEnd, open: OpenPrompt): Message {
    if (end.stopReason === 'error') {
      // v1 has no error stop reason: a turn that failed ends its session/prompt with an error.
      const error = end.error ?? { code: ErrorCodes.InternalError, message: 'The agent reported an error.' };
      return { jsonrpc: '2.0', id, error };
    }
    const stopReason =
      open.cancelledAt !== undefined ? 'cancelled' : v2ToV1StopReason(end.stopReason ?? 'end_turn');
    // The idle's token counts (v1's unstable PromptResponse.usage has the same shape).
    const usage = end.usage === undefined || end.usage === null ? {} : { usage: end.usage };
    return result(id, { stopReason, ...usage } satisfies V1.PromptResponse);
  }

  close(reason?: Error): void {
    this.fail(new Error(`connection closed${reason ? `: ${reason.message}` : ''}`));
  }

  /** Ends every v1 prompt still waiting for its turn with `error` (the core is gone). */
  fail(error: Error): void {
    for (const s of this.#sessions.values()) s.turns.fail(error);
  }
}

/** The agent's error for a v1 `session/set_mode`, pointing into the v1 request. */
function modeErrorInV1(message: Message): Message {
  const error = message.error as RpcErrorObject | undefined;
  if (error?.data === undefined) return message;
  const data = setModeErrorDataToV1(error.data);
  return data === error.data ? message : { ...message, error: { ...error, data } };
}

/** Applies a generated converter; without one the value crosses unchanged. */
function convert(converter: Convert | undefined, value: unknown): unknown {
  return converter === undefined || value === undefined ? value : converter(value as never);
}

function result(id: RpcId, value: unknown): Message {
  return { jsonrpc: '2.0', id, result: value };
}

function errorResponse(id: RpcId | null, code: number, message: string, data?: unknown): Message {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** A validation failure as the SDK's connection words it: the first issue's pointer and expectation. */
function invalid(
  id: RpcId,
  code: number,
  label: string,
  prefix: string,
  issues: readonly ValidationIssue[],
): Message {
  const rebased = issues.map((issue) => ({ ...issue, pointer: `${prefix}${issue.pointer}` }));
  const first = rebased[0];
  const pointer = first?.pointer ?? prefix;
  const expected = first ? (first.expected ?? first.message) : 'a valid value';
  return errorResponse(id, code, `${label} at ${pointer}: expected ${expected}`, {
    pointer,
    expected,
    issues: rebased,
  });
}
