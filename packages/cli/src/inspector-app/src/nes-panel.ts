import type { UnstableClient } from '@acp-kit/sdk/client';
import { NesClient } from '@acp-kit/sdk/nes';
import type { App } from './app.js';
import { byId, el } from './dom.js';
import {
  applySuggestion,
  describeSuggestion,
  freshNes,
  nesOffered,
  type NesState,
  editorDocument,
  type PanelSuggestion,
  textChange,
} from './nes-view.js';

/** How long the editor waits after the last keystroke before asking for suggestions. */
const SUGGEST_AFTER_MS = 300;
/** How many suggestions the panel shows at once (the rest of an answer is rejected as ignored). */
const SHOWN = 20;

/**
 * The NES panel: a textarea whose edits go to the agent as the `document/*` events it asked for
 * (through the SDK's NesClient, which converts positions to the negotiated encoding and drops what
 * the agent did not ask for), suggestions requested as you type or with the Suggest button, and
 * each suggestion's Accept (the edit applied, `nes/accept`) and Reject (`nes/reject`). Every frame
 * goes through the page's peer, so the traffic table shows it like every other method.
 */
export class NesPanel {
  readonly #app: App;
  #client: NesClient | undefined;
  /** The NES frames in order: the inspector's sends are separate fetches, which could overtake each other. */
  #queue: Promise<unknown> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(app: App) {
    this.#app = app;
    byId('nes-start').addEventListener('click', () => this.#run('nes/start', () => this.#start()));
    byId('nes-suggest').addEventListener('click', () =>
      this.#run('nes/suggest', () => this.#suggest('manual')),
    );
    byId('nes-save').addEventListener('click', () =>
      this.#run('document/didSave', () => this.#client!.save(this.#session(), this.#uri())),
    );
    byId('nes-close').addEventListener('click', () => this.#run('nes/close', () => this.#close()));
    byId('nes-editor').addEventListener('input', () => this.#edited());
  }

  get #state(): NesState {
    return this.#app.state.nes;
  }

  #uri(): string {
    return byId<HTMLInputElement>('nes-uri').value;
  }

  #session(): string {
    const sessionId = this.#state.sessionId;
    if (sessionId === undefined) throw new Error('start an NES session first');
    return sessionId;
  }

  /** Runs one NES step after the ones before it; a failure is said, the queue goes on. */
  #run(what: string, step: () => Promise<unknown>): void {
    this.#queue = this.#queue.then(() => this.#app.act(what, step)).finally(() => this.render());
  }

  /**
   * An initialize was answered: the panel shows when the agent offers NES. `capabilities` is what
   * this page advertised in that initialize (the suggestion kinds it takes). Any NES session of
   * the earlier initialize is forgotten.
   */
  initialized(result: Record<string, unknown>, version: 1 | 2, capabilities: unknown): void {
    const agentCapabilities = version === 2 ? result.capabilities : result.agentCapabilities;
    const offered = nesOffered(agentCapabilities);
    this.#app.state.nes = { ...freshNes(), offered };
    this.#client = undefined;
    if (offered) {
      // The SDK's NesClient over the page's own peer: it needs only these two sends.
      const connection = {
        sendRequest: (method: string, params: unknown) => this.#app.peer.request(method, params),
        sendNotification: (method: string, params: unknown) => this.#app.peer.notify(method, params),
      };
      this.#client = new NesClient(
        { unstable: true, connection } as unknown as UnstableClient,
        { protocolVersion: 2, capabilities: (agentCapabilities ?? {}) as never } as never,
        (capabilities ?? {}) as never,
      );
    }
    this.render();
  }

  /** The agent process ended: its NES session is gone with it. */
  ended(): void {
    this.#state.sessionId = undefined;
    this.#state.suggestions = [];
    this.render();
  }

  async #start(): Promise<void> {
    const client = this.#client;
    if (client === undefined) throw new Error('the agent does not offer next edit suggestions');
    const sessionId = await client.start({});
    const editor = byId<HTMLTextAreaElement>('nes-editor');
    Object.assign(this.#state, { sessionId, version: 1, text: editor.value, suggestions: [] });
    await client.open(sessionId, this.#uri(), 'plaintext', 1, editor.value);
    const opened = editorDocument(editor.value);
    await client.focus(sessionId, this.#uri(), opened.positionAt(editor.selectionStart), {
      start: { line: 0, character: 0 },
      end: opened.positionAt(editor.value.length),
    });
    this.#app.say(`NES session ${sessionId} started (positions in ${client.encoding})`);
  }

  async #close(): Promise<void> {
    const client = this.#client!;
    const sessionId = this.#session();
    await this.#rejectAll('cancelled');
    await client.closeDocument(sessionId, this.#uri());
    await client.close(sessionId);
    this.#state.sessionId = undefined;
    this.#app.say(`NES session ${sessionId} closed`);
  }

  /** The textarea changed: the change goes to the agent, shown suggestions are ignored, suggestions asked again soon. */
  #edited(): void {
    if (this.#state.sessionId === undefined || this.#client === undefined) return;
    const text = byId<HTMLTextAreaElement>('nes-editor').value;
    const change = textChange(this.#state.text, text);
    if (change === undefined) return;
    this.#state.text = text;
    this.#state.version += 1;
    const { sessionId, version } = this.#state;
    const client = this.#client;
    const uri = this.#uri();
    const ignored = this.#state.suggestions.splice(0);
    this.#run('document/didChange', async () => {
      for (const s of ignored) await client.reject(sessionId, s.suggestionId, 'ignored');
      await client.change(sessionId, uri, version, [change]);
    });
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => this.#run('nes/suggest', () => this.#suggest('automatic')),
      SUGGEST_AFTER_MS,
    );
    this.render();
  }

  async #suggest(triggerKind: 'automatic' | 'manual'): Promise<void> {
    const client = this.#client;
    if (client === undefined || this.#state.sessionId === undefined) return;
    const sessionId = this.#state.sessionId;
    const editor = byId<HTMLTextAreaElement>('nes-editor');
    const asked = this.#state.version;
    const cursor = editorDocument(this.#state.text).positionAt(editor.selectionStart);
    const got = (await client.suggest(sessionId, this.#uri(), cursor, { triggerKind })) as PanelSuggestion[];
    // The text moved on while the agent answered: these are for a version the editor no longer has.
    if (sessionId !== this.#state.sessionId) return;
    if (asked !== this.#state.version) {
      for (const s of got) await client.reject(sessionId, s.suggestionId, 'cancelled');
      return;
    }
    const kept = got.slice(0, SHOWN);
    for (const s of got.slice(SHOWN)) await client.reject(sessionId, s.suggestionId, 'ignored');
    // New suggestions take the place of the ones shown; an empty answer leaves those as they are.
    if (kept.length > 0) {
      await this.#rejectAll('replaced');
      this.#state.suggestions = kept;
    }
    this.#app.say(`${got.length} suggestion(s) at version ${asked}`);
  }

  async #rejectAll(reason: 'replaced' | 'cancelled' | 'ignored'): Promise<void> {
    const sessionId = this.#state.sessionId;
    if (sessionId === undefined) return;
    for (const s of this.#state.suggestions.splice(0))
      await this.#client!.reject(sessionId, s.suggestionId, reason);
  }

  #accept(s: PanelSuggestion): void {
    this.#run('nes/accept', async () => {
      const client = this.#client!;
      const sessionId = this.#session();
      const editor = byId<HTMLTextAreaElement>('nes-editor');
      const applied = applySuggestion(this.#state.text, s);
      if (applied === undefined) throw new Error(`a ${s.kind} suggestion cannot be applied here; reject it`);
      this.#state.suggestions = this.#state.suggestions.filter((x) => x !== s);
      const change = textChange(this.#state.text, applied.text);
      // The editor and the panel's copy of its text change together, before the first await: an
      // edit typed while the agent answers is then a change against this text, with the next
      // version, and goes out after this one (it waits in the queue this step runs in).
      editor.value = applied.text;
      editor.setSelectionRange(applied.cursor, applied.cursor);
      editor.focus();
      // The other suggestions were for the text before this one.
      const edit =
        change === undefined
          ? undefined
          : { change, version: ++this.#state.version, outdated: this.#state.suggestions.splice(0) };
      if (edit !== undefined) this.#state.text = applied.text;
      await client.accept(sessionId, s.suggestionId);
      if (edit !== undefined) {
        for (const o of edit.outdated) await client.reject(sessionId, o.suggestionId, 'ignored');
        await client.change(sessionId, this.#uri(), edit.version, [edit.change]);
      }
      this.#app.say(`accepted ${s.suggestionId} (${s.kind})`);
      clearTimeout(this.#timer);
      this.#timer = setTimeout(
        () => this.#run('nes/suggest', () => this.#suggest('automatic')),
        SUGGEST_AFTER_MS,
      );
    });
  }

  #reject(s: PanelSuggestion): void {
    this.#run('nes/reject', async () => {
      this.#state.suggestions = this.#state.suggestions.filter((x) => x !== s);
      await this.#client!.reject(this.#session(), s.suggestionId, 'rejected');
      this.#app.say(`rejected ${s.suggestionId} (${s.kind})`);
    });
  }

  /** Shows or hides the panel and draws the session's buttons and suggestions. */
  render(): void {
    const state = this.#state;
    byId('nes-pane').hidden = !state.offered;
    if (!state.offered) return;
    const open = state.sessionId !== undefined;
    byId<HTMLButtonElement>('nes-start').disabled = open;
    for (const id of ['nes-suggest', 'nes-save', 'nes-close']) byId<HTMLButtonElement>(id).disabled = !open;
    byId<HTMLInputElement>('nes-uri').disabled = open;
    byId('nes-status').textContent = open
      ? `NES session ${state.sessionId}, document version ${state.version}, positions in ${this.#client?.encoding ?? 'utf-16'}`
      : 'The agent offers next edit suggestions: start an NES session, then type in the editor.';
    byId('nes-suggestions').replaceChildren(
      ...state.suggestions.map((s) =>
        el(
          'li',
          { 'data-suggestion-id': s.suggestionId, 'data-kind': s.kind },
          el('span', { class: 'nes-kind' }, s.kind),
          ' ',
          el('span', { class: 'nes-what' }, describeSuggestion(s)),
          ' ',
          el('button', { type: 'button', class: 'nes-accept', onclick: () => this.#accept(s) }, 'Accept'),
          el('button', { type: 'button', class: 'nes-reject', onclick: () => this.#reject(s) }, 'Reject'),
        ),
      ),
    );
  }
}
