import type {
  AcceptNesNotification,
  ClientNesCapabilities,
  DidFocusDocumentNotification,
  DidSaveDocumentNotification,
  NesCapabilities,
  NesSuggestContext,
  NesSuggestion,
  NesTriggerKind,
  RejectNesNotification,
  StartNesRequest,
} from '@acp-kit/schema';
import type { PositionEncoding } from '../document/position-encoding.js';
import type { TextDocument } from '../document/text-document.js';
import type { TextPosition, TextRange } from '../document/types.js';

/** One NES session as an agent's handlers see it: its documents, kept current by `document/*`. */
export interface NesSessionView {
  /** The NES session's ID (its own, not a chat session's). */
  readonly sessionId: string;
  /** What `nes/start` said about the workspace. */
  readonly start: StartNesRequest;
  /** The encoding of every position on this connection. */
  readonly encoding: PositionEncoding;
  /** The suggestion kinds beyond `edit` the client takes (`clientCapabilities.nes`). */
  readonly clientKinds: ClientNesCapabilities;
  /** The open documents by URI (those `document/didOpen` opened and `didClose` did not close). */
  readonly documents: ReadonlyMap<string, TextDocument>;
  /** The URI `document/didFocus` last named, if any. */
  readonly focused: string | undefined;
}

/** What a `nes/suggest` handler gets: the request, with its document and only the asked-for context. */
export interface NesSuggestCall {
  readonly session: NesSessionView;
  /** The document asked about, at the request's version (the SDK checked it). */
  readonly document: TextDocument;
  /** The cursor, inside the document (checked), in the connection's encoding. */
  readonly position: TextPosition;
  readonly selection: TextRange | undefined;
  readonly triggerKind: NesTriggerKind;
  /** The context, reduced to the kinds the agent asked for in `capabilities.nes.context`. */
  readonly context: NesSuggestContext;
  /** Aborted when the client cancels the request or the connection ends. */
  readonly signal: AbortSignal;
}

/** Limits on what one client can make the agent hold for NES. */
export interface NesLimits {
  /** NES sessions one connection may have open at once. Default 8. */
  readonly sessionsPerConnection?: number;
  /** Documents one NES session may have open at once. Default 64. */
  readonly documentsPerSession?: number;
  /** The longest document, in UTF-16 code units. Default 8 Mi. */
  readonly maxDocumentLength?: number;
}

/**
 * Next edit suggestions on an {@link Agent} (unstable; the agent needs `unstable: true`): serves
 * `nes/start`, `nes/suggest`, `nes/accept`, `nes/reject`, `nes/close` and the `document/*`
 * notifications, advertises `capabilities.nes` (with `capabilities`' events and context) and
 * negotiates `positionEncoding` per connection. The SDK keeps each NES session's documents
 * (applying `didOpen`/`didChange` in the negotiated encoding), refuses with -32602 at the pointer
 * an unknown NES session, a stale version and a position outside the document, removes from the
 * context what the agent did not ask for, and never sends a suggestion kind the client did not
 * advertise.
 */
export interface NesAgentOptions {
  /** What the agent wants: `events.document` (which `document/*`, which sync kind) and `context`. Default `{}`. */
  readonly capabilities?: NesCapabilities;
  /** The encodings the agent can work in, preferred first. Default `['utf-16']`. */
  readonly positionEncodings?: readonly PositionEncoding[];
  readonly limits?: NesLimits;
  /** Answers `nes/suggest`; may return kinds the client does not take (they are left out). */
  suggest(call: NesSuggestCall): readonly NesSuggestion[] | Promise<readonly NesSuggestion[]>;
  /** Called for `nes/accept`. */
  accept?(params: AcceptNesNotification, session: NesSessionView): void;
  /** Called for `nes/reject`. */
  reject?(params: RejectNesNotification, session: NesSessionView): void;
  /**
   * Called after a `document/didChange` was applied, with the document's text before it (read
   * only when this hook is given).
   */
  changed?(document: TextDocument, previousText: string, session: NesSessionView): void;
  /** Called after `document/didSave`. */
  saved?(params: DidSaveDocumentNotification, session: NesSessionView): void;
  /** Called after `document/didFocus`. */
  focused?(params: DidFocusDocumentNotification, session: NesSessionView): void;
  /** Called with a `document/*` or `nes/accept|reject` notification the SDK dropped, and why. */
  dropped?(method: string, reason: string): void;
}
