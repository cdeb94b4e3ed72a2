import type {
  ClientCapabilities,
  NesCapabilities,
  NesSuggestContext,
  NesSuggestion,
  StartNesRequest,
  SuggestNesRequest,
} from '@acp-kit/schema';
import { randomUUID } from 'node:crypto';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import type { PositionEncoding } from '../../nes/document/position-encoding.js';
import { TextDocument } from '../../nes/document/text-document.js';
import { TextDocumentError } from '../../nes/document/text-document-error.js';
import { negotiatePositionEncoding } from '../../nes/encoding.js';
import type { NesAgentOptions, NesSessionView } from '../../nes/agent/nes-agent-options.js';
import type { ConnectionState } from '../connection/connection-state.js';
import type { AgentMethodHandlers } from '../connection/method-table.js';
import type { ConnectionHost, MethodFeature } from '../connection/serving.js';

const DEFAULTS = { sessionsPerConnection: 8, documentsPerSession: 64, maxDocumentLength: 8 * 1024 * 1024 };

/** The kinds a client must advertise before an agent may send them; `edit` needs nothing. */
const GATED_KINDS = ['jump', 'rename', 'searchAndReplace'] as const;

interface NesSession extends NesSessionView {
  readonly documents: Map<string, TextDocument>;
  focused: string | undefined;
}

interface NesConnection {
  encoding: PositionEncoding;
  readonly sessions: Map<string, NesSession>;
}

const connections = new WeakMap<ConnectionState, NesConnection>();

/**
 * What `initialize` adds for an agent with next edit suggestions: the position encoding this
 * connection uses (see {@link negotiatePositionEncoding}), kept for the connection's NES sessions.
 */
export function nesInitialize(
  options: NesAgentOptions | undefined,
  client: ClientCapabilities | undefined,
  state: ConnectionState,
): { positionEncoding: PositionEncoding } | undefined {
  if (options === undefined) return undefined;
  const encoding = negotiatePositionEncoding(client?.positionEncodings, options.positionEncodings);
  connections.set(state, { encoding, sessions: new Map() });
  return { positionEncoding: encoding };
}

function invalid(pointer: string, message: string, expected: string): RpcError {
  return new RpcError(ErrorCodes.InvalidParams, message, { pointer, expected });
}

function fromDocumentError(error: unknown, prefix = '/params'): never {
  if (error instanceof TextDocumentError)
    throw new RpcError(ErrorCodes.InvalidParams, error.message, {
      pointer: `${prefix}${error.pointer}`,
      expected: error.expected,
      reason: error.code,
    });
  throw error;
}

/** Only the context kinds the agent asked for in `capabilities.nes.context` (others removed). */
export function requestedContext(
  wanted: NesCapabilities['context'],
  given: NesSuggestContext | null | undefined,
): NesSuggestContext {
  if (given === null || given === undefined || wanted === null || wanted === undefined) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    if (key === '_meta') continue;
    const asked = (wanted as Record<string, unknown>)[key];
    if (asked === undefined || asked === null || !Array.isArray(value)) continue;
    const max = (asked as { maxCount?: number | null }).maxCount;
    out[key] = typeof max === 'number' ? value.slice(-max) : value;
  }
  return out as NesSuggestContext;
}

/** Whether the client takes `suggestion`'s kind: `edit` always, the others when advertised. */
export function clientTakes(client: ClientCapabilities['nes'], suggestion: NesSuggestion): boolean {
  const kind = suggestion.kind;
  if (kind === 'edit') return true;
  if ((GATED_KINDS as readonly string[]).includes(kind)) {
    const advertised = (client as Record<string, unknown> | null | undefined)?.[kind];
    return advertised !== undefined && advertised !== null;
  }
  return false;
}

/** What every NES handler of one agent reads: its options, their limits and the events it asked for. */
interface NesFeature {
  readonly options: NesAgentOptions;
  readonly limits: typeof DEFAULTS;
  readonly wanted: NesCapabilities;
  /** `wanted.events.document`: the document events the agent asked for. */
  readonly documentEvents: NonNullable<NesCapabilities['events']>['document'];
}

type NesHandlers = AgentMethodHandlers<ConnectionHost>;

type DocumentEvent = 'didOpen' | 'didChange' | 'didClose' | 'didSave' | 'didFocus';

/**
 * Next edit suggestions (upstream's unstable surface), served when the agent has the `nes`
 * option: NES sessions per connection, each with its documents, and the checks the SDK makes
 * before the application's `suggest` runs.
 */
export const nes: MethodFeature = (agent) => {
  const options = agent.options.nes;
  if (options === undefined) return {};
  const wanted = options.capabilities ?? {};
  const limits = { ...DEFAULTS, ...options.limits };
  const feature: NesFeature = { options, limits, wanted, documentEvents: wanted.events?.document };
  return { ...nesSessionHandlers(feature), ...nesDocumentHandlers(feature) };
};

/** The NES state of `connection`, created (UTF-16, no sessions) if `initialize` set none. */
function nesOf(connection: ConnectionHost): NesConnection {
  let found = connections.get(connection.state);
  if (found === undefined) {
    found = { encoding: 'utf-16', sessions: new Map() };
    connections.set(connection.state, found);
  }
  return found;
}

/** A request's NES session; an unknown one is -32602 at `/params/sessionId`. */
function sessionOf(connection: ConnectionHost, sessionId: unknown): NesSession {
  const found = nesOf(connection).sessions.get(String(sessionId));
  if (found === undefined)
    throw invalid(
      '/params/sessionId',
      `Unknown NES session ${JSON.stringify(sessionId)}`,
      'the sessionId of an NES session nes/start opened on this connection and nes/close did not close',
    );
  return found;
}

/** A notification's session, or undefined (reported as dropped). */
function notifiedSession(
  feature: NesFeature,
  connection: ConnectionHost,
  method: string,
  sessionId: string,
): NesSession | undefined {
  const found = nesOf(connection).sessions.get(sessionId);
  if (found === undefined)
    feature.options.dropped?.(method, `unknown NES session ${JSON.stringify(sessionId)}`);
  return found;
}

/** Whether the agent asked for the document event in `capabilities.nes.events.document` (if not, reported as dropped). */
function wants(feature: NesFeature, event: DocumentEvent, method: string): boolean {
  const asked = feature.documentEvents?.[event];
  if (asked === undefined || asked === null) {
    feature.options.dropped?.(method, 'the agent did not ask for it in capabilities.nes.events.document');
    return false;
  }
  return true;
}

/** `nes/start`, `nes/close`, `nes/suggest` and the `nes/accept` / `nes/reject` notifications. */
function nesSessionHandlers(feature: NesFeature): NesHandlers {
  const { options, limits, wanted } = feature;
  return {
    'nes/start': (params: StartNesRequest, _request, connection) => {
      const state = nesOf(connection);
      if (state.sessions.size >= limits.sessionsPerConnection)
        throw new RpcError(
          ErrorCodes.InvalidRequest,
          `Too many NES sessions: at most ${limits.sessionsPerConnection} may be open on one connection; close one with nes/close first`,
          { limit: limits.sessionsPerConnection },
        );
      const sessionId = `nes_${randomUUID()}`;
      state.sessions.set(sessionId, {
        sessionId,
        start: params,
        encoding: state.encoding,
        clientKinds: connection.gate.clientCapabilities?.nes ?? {},
        documents: new Map(),
        focused: undefined,
      });
      return { sessionId };
    },
    'nes/close': (params, _request, connection) => {
      sessionOf(connection, params.sessionId);
      nesOf(connection).sessions.delete(params.sessionId);
      return {};
    },
    'nes/suggest': async (params, request, connection) => {
      const session = sessionOf(connection, params.sessionId);
      const document = suggestedDocument(session, params);
      const suggestions = await options.suggest({
        session,
        document,
        position: params.position,
        selection: params.selection ?? undefined,
        triggerKind: params.triggerKind,
        context: requestedContext(wanted.context, params.context),
        signal: request.signal,
      });
      return { suggestions: suggestions.filter((s) => clientTakes(session.clientKinds, s)) };
    },
    'nes/accept': (params, _context, connection) => {
      const session = notifiedSession(feature, connection, 'nes/accept', params.sessionId);
      if (session) options.accept?.(params, session);
    },
    'nes/reject': (params, _context, connection) => {
      const session = notifiedSession(feature, connection, 'nes/reject', params.sessionId);
      if (session) options.reject?.(params, session);
    },
  };
}

/**
 * The open document a `nes/suggest` names, at the version it names, with its position and
 * selection inside it; otherwise -32602 at the offending field (`reason: 'stale_version'` for an
 * older version).
 */
function suggestedDocument(session: NesSession, params: SuggestNesRequest): TextDocument {
  const document = session.documents.get(params.uri);
  if (document === undefined)
    throw invalid(
      '/params/uri',
      `No open document ${JSON.stringify(params.uri)} in NES session ${params.sessionId}`,
      'the URI of a document opened with document/didOpen in this NES session',
    );
  if (params.version !== document.version)
    throw new RpcError(
      ErrorCodes.InvalidParams,
      `Stale version ${params.version}: the document is at version ${document.version}`,
      {
        pointer: '/params/version',
        expected: `the document's current version ${document.version}`,
        reason: 'stale_version',
      },
    );
  try {
    document.assertInside(params.position, '/position');
    if (params.selection) {
      document.assertInside(params.selection.start, '/selection/start');
      document.assertInside(params.selection.end, '/selection/end');
    }
  } catch (error) {
    fromDocumentError(error);
  }
  return document;
}

/** The `document/*` notifications: each dropped (and reported) unless the agent asked for its event. */
function nesDocumentHandlers(feature: NesFeature): NesHandlers {
  const { options, limits } = feature;
  return {
    'document/didOpen': (params, _context, connection) => {
      if (!wants(feature, 'didOpen', 'document/didOpen')) return;
      const session = notifiedSession(feature, connection, 'document/didOpen', params.sessionId);
      if (session === undefined) return;
      if (!session.documents.has(params.uri) && session.documents.size >= limits.documentsPerSession) {
        options.dropped?.(
          'document/didOpen',
          `at most ${limits.documentsPerSession} documents may be open in one NES session`,
        );
        return;
      }
      try {
        session.documents.set(
          params.uri,
          TextDocument.open(params, { encoding: session.encoding, maxLength: limits.maxDocumentLength }),
        );
      } catch (error) {
        options.dropped?.('document/didOpen', error instanceof Error ? error.message : String(error));
      }
    },
    'document/didChange': (params, _context, connection) => {
      if (!wants(feature, 'didChange', 'document/didChange')) return;
      const session = notifiedSession(feature, connection, 'document/didChange', params.sessionId);
      const document = session?.documents.get(params.uri);
      if (session === undefined) return;
      if (document === undefined) {
        options.dropped?.('document/didChange', `no open document ${JSON.stringify(params.uri)}`);
        return;
      }
      try {
        const before = options.changed === undefined ? '' : document.text;
        document.applyChange(params);
        options.changed?.(document, before, session);
      } catch (error) {
        // The document stays as it was; a later nes/suggest at the client's version is refused as stale.
        options.dropped?.('document/didChange', error instanceof Error ? error.message : String(error));
      }
    },
    'document/didClose': (params, _context, connection) => {
      if (!wants(feature, 'didClose', 'document/didClose')) return;
      notifiedSession(feature, connection, 'document/didClose', params.sessionId)?.documents.delete(
        params.uri,
      );
    },
    'document/didSave': (params, _context, connection) => {
      if (!wants(feature, 'didSave', 'document/didSave')) return;
      const session = notifiedSession(feature, connection, 'document/didSave', params.sessionId);
      if (session) options.saved?.(params, session);
    },
    'document/didFocus': (params, _context, connection) => {
      if (!wants(feature, 'didFocus', 'document/didFocus')) return;
      const session = notifiedSession(feature, connection, 'document/didFocus', params.sessionId);
      if (session === undefined) return;
      session.focused = params.uri;
      options.focused?.(params, session);
    },
  };
}
