import type { App } from './app.js';
import { askCard } from './asks-view.js';
import { ConversationView } from './conversation-view.js';
import { renderDiagram, trafficDiagram } from './diagram-view.js';
import { byId, el } from './dom.js';
import { type ConfigChoice, commandsOf, configControls, type Palette } from './session-controls.js';
import { agentRunning } from './state.js';
import type { Traffic } from './traffic.js';
import { type TrafficFilter, TrafficView, visibleRows } from './traffic-view.js';
import { agentStatus, lintView, promptBlocked } from './views.js';

/**
 * Draws the page from its state: the conversation, the traffic table and its diagram, the
 * agent's requests, the page's own waiting requests, the session list and controls, and what can
 * be done now. What the words and tones are is decided in views.ts; this only draws, and redraws
 * a part only when what it shows changed.
 */
export class PageRenderer {
  readonly #app: App;
  readonly #palette: Palette;
  readonly #conversation = new ConversationView(byId('conversation'));
  readonly #traffic = new TrafficView(byId('traffic-scroll'), byId('traffic-body'), byId('lint-summary'));
  #diagramShown = '';
  #diagramTraffic: Traffic | undefined;
  #diagramLint: unknown;
  #diagramAt = Number.NEGATIVE_INFINITY;
  /** The cards on screen, by request id: kept, not rebuilt, so a click never lands on a replaced node. */
  readonly #askCards = new Map<string, HTMLElement>();
  /** The session controls shown (session and options, as JSON): rebuilt only when they change. */
  #controlsShown = '';

  constructor(app: App, palette: Palette) {
    this.#app = app;
    this.#palette = palette;
  }

  /** Draws the whole page (each part only if it changed). */
  render(): void {
    const { state, schedule } = this.#app;
    this.#conversation.render(state.store);
    const filter: TrafficFilter = {
      session: byId<HTMLInputElement>('filter-session').value,
      method: byId<HTMLInputElement>('filter-method').value,
      kind: byId<HTMLSelectElement>('filter-kind').value,
    };
    const rows = visibleRows(state.traffic, filter);
    // Live: the connection is open, so a turn not ended yet is not judged as never ending.
    const live = !state.offline && agentRunning(state);
    this.#traffic.render(state.traffic, rows, live, state.expanded, (index) => {
      if (!state.expanded.delete(index)) state.expanded.add(index);
      schedule();
    });
    byId('traffic-count').textContent = `${rows.length} of ${state.traffic.rows.length} message(s) shown`;
    // A lint skipped to keep a flood responsive runs on a later render.
    if (state.traffic.lintStale()) setTimeout(schedule, 250);
    this.#renderDiagram(filter, rows, live);
    this.#renderAsks();
    this.#renderWaiting();
    for (const client of state.seconds.values()) client.render();
    const select = byId<HTMLSelectElement>('session-select');
    const chosen = select.value;
    for (const id of state.store.sessionIds()) if (!state.sessions.includes(id)) state.sessions.push(id);
    // Rebuilt only when the list changed, so an open menu or a choice is never reset under the user.
    if (select.options.length !== state.sessions.length) {
      select.replaceChildren(
        ...state.sessions.map((id) => el('option', { value: id, selected: id === chosen }, id)),
      );
    }
    if (chosen === '' && state.sessions.length > 0) select.value = state.sessions.at(-1)!;
    this.#renderSessionControls();
    this.#renderReadiness();
  }

  /** The sequence diagram of the rows in view: redrawn only when the messages or the filters changed. */
  #renderDiagram(filter: TrafficFilter, rows: ReturnType<typeof visibleRows>, live: boolean): void {
    const { state, schedule } = this.#app;
    const diagramEnd = this.#traffic.lastVisible(byId('traffic-scroll'), byId('traffic-body'), rows.length);
    const diagramKey = JSON.stringify([
      state.traffic.rows.length,
      filter,
      state.traffic.version,
      diagramEnd,
      live,
    ]);
    const lintNow = state.traffic.version === 2 ? state.traffic.lint() : undefined;
    const diagramChanged =
      diagramKey !== this.#diagramShown ||
      state.traffic !== this.#diagramTraffic ||
      lintNow !== this.#diagramLint;
    // During a flood the diagram (150 arrows laid out and parsed) is redrawn at most twice a second.
    if (diagramChanged && performance.now() - this.#diagramAt < 500) setTimeout(schedule, 500);
    else if (diagramChanged) {
      this.#diagramAt = performance.now();
      this.#diagramShown = diagramKey;
      this.#diagramTraffic = state.traffic;
      this.#diagramLint = lintNow;
      const verdict = lintNow === undefined ? undefined : lintView(lintNow, live);
      renderDiagram(
        trafficDiagram(
          rows,
          (row) => (verdict === undefined ? [] : state.traffic.findingsOf(row).filter(verdict.shows)),
          diagramEnd,
        ),
        byId('diagram'),
      );
    }
  }

  /** The agent line, the Start session button and the prompt box: what can be done now, and why not. */
  #renderReadiness(): void {
    const { state } = this.#app;
    const status = agentStatus(state.agent);
    const line = byId('agent-status');
    line.textContent = status.text;
    line.dataset.state = status.state;
    line.dataset.tone = status.tone;
    const sessionId = byId<HTMLSelectElement>('session-select').value;
    const known = sessionId !== '' && state.store.sessionIds().includes(sessionId);
    const blocked = promptBlocked({
      offline: state.offline,
      agentRunning: agentRunning(state),
      sessionId: known ? sessionId : '',
      sessionConnected: known && state.store.snapshot(sessionId).state.connection === 'connected',
    });
    const input = byId<HTMLTextAreaElement>('prompt');
    input.disabled = blocked !== undefined;
    byId<HTMLButtonElement>('send').disabled = blocked !== undefined;
    byId<HTMLButtonElement>('cancel-turn').disabled = blocked !== undefined;
    byId('prompt-hint').textContent = blocked ?? '';
    byId<HTMLButtonElement>('start-session').disabled = state.offline || !agentRunning(state);
    byId('start-session').dataset.primary = String(state.sessions.length === 0);
    document.body.dataset.phase = state.offline ? 'offline' : known ? 'session' : 'connect';
  }

  /** The agent's requests waiting for the user, one card each. */
  #renderAsks(): void {
    const { state } = this.#app;
    const container = byId('permissions');
    for (const [key, card] of this.#askCards) {
      if (state.asks.has(key)) continue;
      card.remove();
      this.#askCards.delete(key);
    }
    for (const [key, { ask }] of state.asks) {
      if (this.#askCards.has(key)) continue;
      const card = askCard(ask);
      this.#askCards.set(key, card);
      container.append(card);
    }
  }

  /** The session's config controls and the palette's commands, rebuilt only when they changed. */
  #renderSessionControls(): void {
    const { state } = this.#app;
    const sessionId = byId<HTMLSelectElement>('session-select').value;
    const snapshot =
      sessionId !== '' && state.store.sessionIds().includes(sessionId)
        ? state.store.snapshot(sessionId)
        : undefined;
    this.#palette.setCommands(commandsOf(snapshot));
    const key = JSON.stringify([sessionId, snapshot?.configOptions ?? null]);
    if (key === this.#controlsShown) return;
    this.#controlsShown = key;
    byId('session-controls').replaceChildren(
      snapshot === undefined
        ? ''
        : configControls(snapshot, (configId, choice) => this.#setConfig(sessionId, configId, choice)),
    );
  }

  #setConfig(sessionId: string, configId: string, choice: ConfigChoice): void {
    const { peer, act, say } = this.#app;
    void act('session/set_config_option', async () => {
      // The answer's options reach the store through noteResponse, like every tab's.
      await peer.request('session/set_config_option', { sessionId, configId, ...choice });
      say(`${configId} set to ${String(choice.value)}`);
    });
  }

  /** The page's requests the agent has not answered, with their age. */
  #renderWaiting(): void {
    const waiting = this.#app.peer.waiting();
    byId('waiting').replaceChildren(
      ...waiting.map((request) =>
        el(
          'li',
          { 'data-request-id': request.id, class: request.age > 10_000 ? 'late' : undefined },
          `${request.method} (id ${request.id}) waiting ${(request.age / 1000).toFixed(request.age < 10_000 ? 1 : 0)} s`,
        ),
      ),
    );
  }
}
