import { ConversationStore } from '@acp-kit/sdk/client';
import type { InspectorApi, ServerEvent } from './api.js';
import { ConversationView } from './conversation-view.js';
import { el } from './dom.js';
import { Peer, RpcError } from './peer.js';
import { Traffic } from './traffic.js';
import { attachedSession } from './views.js';

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * A second client of the same agent, side by side with the first: its own connection (a remote
 * agent takes several), its own JSON-RPC peer, traffic (validated and linted on its own) and
 * ConversationStore. It attaches to a session the first client opened (resume with replay) and
 * can prompt in it, so a held prompt and each client's view of the other's turn can be watched.
 * Requests the agent sends it (a permission asked of this client) are answered from its panel.
 */
export class SecondClient {
  readonly conn: number;
  readonly #traffic: Traffic;
  readonly #store = new ConversationStore();
  readonly #peer: Peer;
  readonly #view: ConversationView;
  readonly #panel: HTMLElement;
  readonly #status: HTMLElement;
  readonly #asks: HTMLElement;
  readonly #summary: HTMLElement;
  readonly #onChange: () => void;
  #replaying: boolean;
  #connected = false;
  #session = '';
  #ready: () => void = () => {};
  /** Resolves once the inspector reports this client's connection open. */
  readonly ready = new Promise<void>((resolve) => {
    this.#ready = resolve;
  });

  /** `replaying`: whether the page is still catching up with the inspector's log (then old requests are not answered). */
  constructor(conn: number, api: InspectorApi, into: HTMLElement, onChange: () => void, replaying: boolean) {
    this.conn = conn;
    this.#replaying = replaying;
    this.#traffic = new Traffic(onChange);
    this.#onChange = onChange;
    this.#peer = new Peer(
      (text) =>
        this.#connected ? api.send(text, conn) : Promise.reject(new Error(`client ${conn} is not connected`)),
      (method, params, id) => this.#ask(method, params, id),
    );
    this.#status = el('p', { class: 'client-status' }, `client ${conn}: connecting…`);
    this.#asks = el('div', { class: 'client-asks', 'aria-live': 'polite' });
    this.#summary = el('p', { class: 'client-lint' });
    const conversation = el('div', { class: 'client-conversation' });
    this.#view = new ConversationView(conversation);
    const promptInput = el('textarea', {
      rows: 2,
      class: 'client-prompt',
      'aria-label': `client ${conn} prompt`,
    });
    const form = el(
      'form',
      {
        class: 'client-prompt-form',
        onsubmit: (event: Event) => {
          event.preventDefault();
          const text = promptInput.value;
          if (text === '') return;
          if (this.#session === '' || !this.#connected) {
            this.#status.textContent = `client ${conn}: cannot send: ${
              this.#connected ? 'not attached to a session yet' : 'its connection is closed'
            }`;
            this.#status.dataset.tone = 'bad';
            return;
          }
          promptInput.value = '';
          this.#prompt(text);
        },
      },
      promptInput,
      el('button', { type: 'submit', class: 'client-send' }, `Send as client ${conn}`),
    );
    this.#panel = el(
      'section',
      { class: 'second-client', 'data-conn': conn, 'aria-label': `client ${conn}` },
      el('h3', {}, `Client ${conn}`),
      this.#status,
      this.#summary,
      conversation,
      this.#asks,
      form,
    );
    into.append(this.#panel);
    this.#store.subscribe(() => onChange());
  }

  /** Attaches to `sessionId`: initialize (v2) and resume with replay, so its history shows here too. */
  async attach(sessionId: string, cwd: string): Promise<void> {
    await this.#peer.request('initialize', {
      protocolVersion: 2,
      info: { name: `acp-kit-inspect-client-${this.conn}`, version: '0' },
      capabilities: { elicitation: { form: {} } },
    });
    await this.#peer.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    // The answer's frame already marked the session attached (see onEvent).
    this.#onChange();
  }

  #prompt(text: string): void {
    const sessionId = this.#session;
    const content = [{ type: 'text' as const, text }];
    const localId = this.#store.addPending(sessionId, content);
    this.#peer.request('session/prompt', { sessionId, prompt: content }).then(
      (result) => {
        const messageId = record(result)?.messageId;
        if (typeof messageId === 'string') this.#store.resolvePending(localId, messageId);
      },
      (error: unknown) => {
        if (error instanceof RpcError) this.#store.rejectPending(localId, error);
        else this.#store.markOutcomeUnknown(localId);
      },
    );
    this.#onChange();
  }

  #ask(method: string, params: unknown, id: unknown): Promise<unknown> {
    if (method !== 'session/request_permission')
      return Promise.reject(new RpcError(-32601, `client ${this.conn} does not answer ${method}`, undefined));
    const p = record(params) ?? {};
    const options = Array.isArray(p.options) ? p.options.map((o) => record(o) ?? {}) : [];
    return new Promise((resolve) => {
      const card = el(
        'div',
        { class: 'permission ask', 'data-request-id': JSON.stringify(id) },
        el('p', {}, `${String(p.title ?? 'permission')} (asked of client ${this.conn})`),
        ...options.map((option) =>
          el(
            'button',
            {
              type: 'button',
              'data-option-id': String(option.optionId),
              onclick: () => {
                card.remove();
                resolve({ outcome: { outcome: 'selected', optionId: option.optionId } });
              },
            },
            String(option.name ?? option.optionId),
          ),
        ),
      );
      this.#asks.append(card);
    });
  }

  /** Feeds one event of this client's connection. */
  onEvent(event: ServerEvent): void {
    if (event.type === 'live') {
      this.#replaying = false;
      return;
    }
    if (event.type === 'started') {
      this.#connected = true;
      this.#ready();
      if (this.#session === '')
        this.#status.textContent = `client ${this.conn}: connected (${event.description})`;
      return;
    }
    if (event.type === 'ended') {
      this.#connected = false;
      this.#status.textContent = `client ${this.conn}: ${event.reason}`;
      this.#status.dataset.tone = 'bad';
      this.#peer.abandon(event.reason);
      return;
    }
    if (event.type !== 'frame' && event.type !== 'sent') return;
    const row = this.#traffic.add(
      event.type === 'sent' ? 'client->agent' : 'agent->client',
      event.t,
      event.text,
    );
    const msg = record(row.msg);
    // The session this connection resumed, also when a reloaded page replays its traffic.
    const session = attachedSession(row, this.#session);
    if (session !== this.#session) {
      this.#session = session;
      this.#store.setConnection(session, 'connected');
      this.#status.textContent = `client ${this.conn}: attached to ${session}`;
      this.#status.dataset.tone = 'good';
    }
    if (event.type === 'sent') {
      this.#peer.noteUsedId(msg?.id);
      return;
    }
    if (msg?.method === 'session/update') {
      try {
        this.#store.apply(msg.params as Parameters<ConversationStore['apply']>[0]);
      } catch {
        // Refused updates are listed by the lint of this client's traffic.
      }
    }
    // A reloaded page shows what this client saw; it does not answer old requests again.
    if (!(this.#replaying && msg !== undefined && typeof msg.method === 'string' && 'id' in msg))
      this.#peer.receive(row.msg);
  }

  /** Renders the conversation and this client's lint summary. */
  render(): void {
    this.#view.render(this.#store);
    const lint = this.#traffic.lint();
    if (this.#traffic.lintStale()) setTimeout(this.#onChange, 250);
    const failed = lint.results.filter((result) => result.status === 'fail').map((result) => result.id);
    this.#summary.textContent = `client ${this.conn}'s traffic: ${lint.messages} message(s), ${
      failed.length === 0 ? 'no rule broken so far' : `broken: ${failed.join(', ')}`
    }`;
    this.#summary.className = `client-lint ${failed.length === 0 ? 'lint-clean' : 'lint-failed'}`;
  }
}
