import type {
  AgentCapabilities,
  ClientCapabilities,
  InitializeResponse,
  NesEditSuggestion,
  NesJumpSuggestion,
  NesRenameSuggestion,
  NesSuggestContext,
  NesSuggestion,
  NesTriggerKind,
  RejectNesNotification,
  StartNesRequest,
} from '@acp-kit/schema';
import type { UnstableClient } from '../../client/client.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { unstableNotEnabled } from '../../unstable-surface.js';
import { isPositionEncoding, type PositionEncoding } from '../document/position-encoding.js';
import { TextDocument } from '../document/text-document.js';
import type { TextContentChange, TextPosition, TextRange } from '../document/types.js';

/** A suggestion with every position in the editor's UTF-16 (JavaScript string) offsets. */
export type EditorSuggestion = NesSuggestion;

/** The suggestion kinds an agent may send only to a client that advertised them (`edit` is always allowed). */
const GATED_KINDS: ReadonlySet<string> = new Set(['jump', 'rename', 'searchAndReplace']);

/** One editor change: `range` in UTF-16 offsets of the text before it, or absent for the whole text. */
export type EditorChange = TextContentChange;

/**
 * The client side of next edit suggestions over a `Client` created with `unstable: true` (an
 * {@link UnstableClient}: a stable client does not compile here, and throws at run time if cast),
 * for an agent whose `initialize` response advertised `capabilities.nes`. Positions in and out are
 * the editor's (UTF-16 code units, as JavaScript strings count); the client converts each to and
 * from the negotiated `positionEncoding`. It keeps a copy of every open document to convert
 * against, sends only the `document/*` notifications the agent asked for (`didChange` in the sync
 * kind it asked for), includes only the context it asked for, and refuses (-32602 at the pointer)
 * an answer with a suggestion kind this client did not advertise or a position outside the
 * document.
 */
export class NesClient {
  readonly #client: UnstableClient;
  readonly #agent: AgentCapabilities;
  readonly #ours: ClientCapabilities['nes'];
  /** The encoding positions travel in on this connection. */
  readonly encoding: PositionEncoding;
  readonly #documents = new Map<string, TextDocument>();

  constructor(
    client: UnstableClient,
    initialized: InitializeResponse,
    capabilities: ClientCapabilities = {},
  ) {
    if (!client.unstable) throw unstableNotEnabled('NesClient (next edit suggestions)', 'Client');
    this.#client = client;
    this.#agent = initialized.capabilities ?? {};
    this.#ours = capabilities.nes;
    const negotiated = this.#agent.positionEncoding;
    this.encoding =
      negotiated !== undefined && negotiated !== null && isPositionEncoding(negotiated)
        ? negotiated
        : 'utf-16';
  }

  /** Whether the agent offers next edit suggestions. */
  get offered(): boolean {
    return this.#agent.nes !== undefined && this.#agent.nes !== null;
  }

  #send(method: string, params: unknown): Promise<void> {
    return this.#client.connection.sendNotification(method as never, params as never);
  }

  #wants(event: 'didOpen' | 'didChange' | 'didClose' | 'didSave' | 'didFocus'): boolean {
    const asked = this.#agent.nes?.events?.document?.[event];
    return asked !== undefined && asked !== null;
  }

  #toWire(document: TextDocument, position: TextPosition): TextPosition {
    return document.convertPosition(position, 'utf-16', this.encoding);
  }

  #fromWire(document: TextDocument, position: TextPosition): TextPosition {
    return document.convertPosition(position, this.encoding, 'utf-16');
  }

  /** `nes/start`: opens an NES session; resolves with its ID. */
  async start(params: StartNesRequest = {}): Promise<string> {
    const { sessionId } = await this.#client.connection.sendRequest('nes/start', params);
    return sessionId;
  }

  /** `nes/close`: ends an NES session; the documents this client kept for it are forgotten. */
  async close(sessionId: string): Promise<void> {
    await this.#client.connection.sendRequest('nes/close', { sessionId });
    for (const key of [...this.#documents.keys()])
      if (key.startsWith(`${sessionId}\n`)) this.#documents.delete(key);
  }

  #document(sessionId: string, uri: string): TextDocument {
    const found = this.#documents.get(`${sessionId}\n${uri}`);
    if (found === undefined)
      throw new TypeError(`${uri} is not open in NES session ${sessionId}: open() it first`);
    return found;
  }

  /** The client's copy of an open document (UTF-16 positions), or undefined. */
  document(sessionId: string, uri: string): TextDocument | undefined {
    return this.#documents.get(`${sessionId}\n${uri}`);
  }

  /** An editor opened a document: kept here, and `document/didOpen` sent when the agent asked for it. */
  async open(
    sessionId: string,
    uri: string,
    languageId: string,
    version: number,
    text: string,
  ): Promise<void> {
    this.#documents.set(`${sessionId}\n${uri}`, TextDocument.open({ uri, languageId, version, text }));
    if (this.#wants('didOpen'))
      await this.#send('document/didOpen', { sessionId, uri, languageId, version, text });
  }

  /**
   * An editor changed a document (`changes` in order, ranges in UTF-16 offsets of the text each
   * applies to): `document/didChange` goes out in the sync kind the agent asked for — the whole
   * text for `full`, each change with its range converted to the negotiated encoding for
   * `incremental` — or not at all when it did not ask.
   */
  async change(
    sessionId: string,
    uri: string,
    version: number,
    changes: readonly EditorChange[],
  ): Promise<void> {
    const document = this.#document(sessionId, uri);
    const wire: TextContentChange[] = [];
    const incremental = this.#agent.nes?.events?.document?.didChange?.syncKind === 'incremental';
    let current = document.version;
    for (const change of changes) {
      // Converted against the text this change applies to, which the previous ones made.
      if (incremental && change.range)
        wire.push({
          range: {
            start: this.#toWire(document, change.range.start),
            end: this.#toWire(document, change.range.end),
          },
          text: change.text,
        });
      else if (incremental) wire.push({ text: change.text });
      current += 1;
      document.applyChange({ version: current, contentChanges: [change] });
    }
    // The editor's version wins over the per-change counter used above.
    if (current !== version) {
      const text = document.text;
      this.#documents.set(
        `${sessionId}\n${uri}`,
        TextDocument.open({ uri, languageId: document.languageId, version, text }),
      );
    }
    if (!this.#wants('didChange')) return;
    const contentChanges = incremental ? wire : [{ text: this.#document(sessionId, uri).text }];
    await this.#send('document/didChange', { sessionId, uri, version, contentChanges });
  }

  /** An editor closed a document. */
  async closeDocument(sessionId: string, uri: string): Promise<void> {
    this.#documents.delete(`${sessionId}\n${uri}`);
    if (this.#wants('didClose')) await this.#send('document/didClose', { sessionId, uri });
  }

  /** An editor saved a document. */
  async save(sessionId: string, uri: string): Promise<void> {
    if (this.#wants('didSave')) await this.#send('document/didSave', { sessionId, uri });
  }

  /** A document got the editor's focus (positions in UTF-16). */
  async focus(
    sessionId: string,
    uri: string,
    position: TextPosition,
    visibleRange: TextRange,
  ): Promise<void> {
    if (!this.#wants('didFocus')) return;
    const document = this.#document(sessionId, uri);
    await this.#send('document/didFocus', {
      sessionId,
      uri,
      version: document.version,
      position: this.#toWire(document, position),
      visibleRange: {
        start: this.#toWire(document, visibleRange.start),
        end: this.#toWire(document, visibleRange.end),
      },
    });
  }

  /**
   * `nes/suggest` at `position` (UTF-16) of an open document at its current version, with only
   * the context kinds the agent asked for. Resolves with the suggestions, positions in UTF-16.
   */
  async suggest(
    sessionId: string,
    uri: string,
    position: TextPosition,
    options: {
      triggerKind?: NesTriggerKind;
      selection?: TextRange;
      context?: NesSuggestContext;
      signal?: AbortSignal;
    } = {},
  ): Promise<EditorSuggestion[]> {
    const document = this.#document(sessionId, uri);
    const wanted = this.#agent.nes?.context ?? {};
    const context = Object.fromEntries(
      Object.entries(options.context ?? {}).filter(([key]) => {
        const asked = (wanted as Record<string, unknown>)[key];
        return asked !== undefined && asked !== null;
      }),
    );
    const response = await this.#client.connection.sendRequest(
      'nes/suggest',
      {
        sessionId,
        uri,
        version: document.version,
        position: this.#toWire(document, position),
        ...(options.selection && {
          selection: {
            start: this.#toWire(document, options.selection.start),
            end: this.#toWire(document, options.selection.end),
          },
        }),
        triggerKind: options.triggerKind ?? 'automatic',
        ...(Object.keys(context).length > 0 && { context }),
      },
      options.signal ? { signal: options.signal } : undefined,
    );
    return response.suggestions.map((suggestion, i) =>
      this.#checked(sessionId, suggestion, `/suggestions/${i}`),
    );
  }

  #checked(sessionId: string, suggestion: NesSuggestion, pointer: string): EditorSuggestion {
    const kind = suggestion.kind;
    // A kind this client does not know (`_`-prefixed or from a later version) is kept as it came,
    // for the editor to ignore or reject: the schema's UnknownNesSuggestion. Only the known kinds
    // a client opts into are checked against what it advertised.
    if (kind !== 'edit' && !GATED_KINDS.has(kind)) return suggestion;
    if (kind !== 'edit') {
      const advertised = (this.#ours as Record<string, unknown> | null | undefined)?.[kind];
      if (advertised === undefined || advertised === null)
        throw new RpcError(
          ErrorCodes.InvalidParams,
          `The agent sent a ${kind} suggestion, which this client did not advertise`,
          {
            pointer: `${pointer}/kind`,
            expected: `edit, or a kind this client advertised in clientCapabilities.nes`,
          },
        );
    }
    const s = suggestion as NesSuggestion & { uri?: string };
    const document = s.uri === undefined ? undefined : this.document(sessionId, s.uri);
    if (document === undefined) return suggestion;
    const inside = (position: TextPosition, at: string): TextPosition => {
      try {
        document.assertInside(position, at, this.encoding);
      } catch (error) {
        throw new RpcError(ErrorCodes.InvalidParams, error instanceof Error ? error.message : String(error), {
          pointer: at,
          expected: `a position inside ${s.uri} at version ${document.version}`,
        });
      }
      return this.#fromWire(document, position);
    };
    if (suggestion.kind === 'edit') {
      const edit = suggestion as NesEditSuggestion;
      return {
        ...edit,
        edits: edit.edits.map((e, j) => ({
          ...e,
          range: {
            start: inside(e.range.start, `${pointer}/edits/${j}/range/start`),
            end: inside(e.range.end, `${pointer}/edits/${j}/range/end`),
          },
        })) as NesEditSuggestion['edits'],
        ...(edit.cursorPosition && {
          cursorPosition: inside(edit.cursorPosition, `${pointer}/cursorPosition`),
        }),
      };
    }
    if (suggestion.kind === 'jump' || suggestion.kind === 'rename') {
      const moved = suggestion as NesJumpSuggestion | NesRenameSuggestion;
      return { ...moved, position: inside(moved.position, `${pointer}/position`) };
    }
    return suggestion;
  }

  /** `nes/accept`: the user took a suggestion. */
  accept(sessionId: string, suggestionId: string): Promise<void> {
    return this.#send('nes/accept', { sessionId, suggestionId });
  }

  /** `nes/reject`: the user dismissed a suggestion or let it go. */
  reject(sessionId: string, suggestionId: string, reason?: RejectNesNotification['reason']): Promise<void> {
    return this.#send('nes/reject', { sessionId, suggestionId, ...(reason && { reason }) });
  }
}
