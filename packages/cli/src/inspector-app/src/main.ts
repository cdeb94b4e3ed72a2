import type { ConversationStore } from '@acp-kit/sdk/client';
import { V1ConversationTranslator } from '@acp-kit/v1-compat/browser';
import { InspectorApi, type ServerEvent, takeToken } from './api.js';
import { type Ask, askCard } from './asks-view.js';
import { ConversationView } from './conversation-view.js';
import { renderDiagram, trafficDiagram } from './diagram-view.js';
import { byId, el, pretty } from './dom.js';
import { Peer, RpcError } from './peer.js';
import { SecondClient } from './second-client.js';
import { type ConfigChoice, commandsOf, configControls, Palette } from './session-controls.js';
import { agentRunning, canonicalCapabilities, createState, type InspectorState } from './state.js';
import type { Traffic, TrafficRow } from './traffic.js';
import { type TrafficFilter, TrafficView, visibleRows } from './traffic-view.js';
import { agentStatus, lintView, localHelp, promptBlocked, startPlan } from './views.js';
import type { App } from './app.js';
import { wireImport } from './import-transcript.js';
import { NesPanel } from './nes-panel.js';
import { wireSessionActions } from './session-actions.js';
import { wireTheme } from './theme.js';

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * Starts the inspector page in the current document: takes the session token, builds the page's
 * one {@link InspectorState}, wires the controls and follows the inspector's events. Importing
 * this module does none of that (boot.ts calls it), so its parts can be tested on their own.
 * Returns the state, or undefined when the page has no token (the status line says what to do).
 */
export function startInspector(): InspectorState | undefined {
  const token = takeToken();
  if (token === undefined) {
    byId('status').textContent =
      'No session token: open the URL acp-kit inspect printed (it ends in #token=…) in this tab.';
    byId('status').dataset.tone = 'bad';
    return undefined;
  }
  const api = new InspectorApi(token);
  const state = createState(() => schedule());

  /**
   * Folds one message of the traffic into the conversation: a v2 agent's session/update as it is,
   * the v1 traffic (both ways) through the v1 translator. A replay check's resume fills its own store.
   */
  function foldIntoStore(
    dir: 'client->agent' | 'agent->client',
    msg: Record<string, unknown> | undefined,
  ): void {
    let updates: unknown[] = [];
    if (state.traffic.version === 1) updates = state.v1Conversation.take(dir, msg);
    else if (dir === 'agent->client' && msg?.method === 'session/update') updates = [msg.params];
    for (const params of updates) {
      try {
        const target =
          state.replayCheck !== undefined && record(params)?.sessionId === state.replayCheck.sessionId
            ? state.replayCheck.store
            : state.store;
        target.apply(params as Parameters<ConversationStore['apply']>[0]);
      } catch (error) {
        say(
          `the conversation store refused an update: ${error instanceof Error ? error.message : String(error)}`,
          true,
        );
      }
    }
  }
  const palette = new Palette(byId<HTMLTextAreaElement>('prompt'), byId('palette'));

  const peer = new Peer(
    (text) =>
      agentRunning(state)
        ? api.send(text)
        : Promise.reject(new Error('the agent is not running; restart it')),
    (method, params, id) => {
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
              schedule();
            },
          };
          state.asks.set(key, { ask, reject });
          schedule();
        });
      }
      return Promise.reject(new RpcError(-32601, `the inspector does not answer ${method}`, undefined));
    },
  );

  /** How many of the page's messages the history keeps (oldest dropped first). */
  const LOG_KEPT = 200;

  /**
   * Shows a message in the header and appends it to the history below it: two messages close
   * together (a withdrawn request and the cancel that caused it) would otherwise replace each other
   * before anyone read the first.
   */
  function say(text: string, isError = false): void {
    const line = byId('log');
    line.textContent = text;
    line.className = isError ? 'error' : '';
    const history = byId('log-history');
    const entry = el('li', isError ? { class: 'failed' } : {}, `${new Date().toLocaleTimeString()} ${text}`);
    history.append(entry);
    while (history.childElementCount > LOG_KEPT) history.firstElementChild?.remove();
  }

  async function act(what: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      say(`${what} failed: ${error instanceof Error ? error.message : String(error)}`, true);
    }
  }

  let scheduled = false;
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // A timer, not requestAnimationFrame: a tab in the background must keep up with the traffic too.
    setTimeout(() => {
      scheduled = false;
      render();
    }, 16);
  }

  const conversationView = new ConversationView(byId('conversation'));
  const trafficView = new TrafficView(byId('traffic-scroll'), byId('traffic-body'), byId('lint-summary'));
  let diagramShown = '';
  let diagramTraffic: Traffic | undefined;
  let diagramLint: unknown;
  let diagramAt = Number.NEGATIVE_INFINITY;

  function render(): void {
    conversationView.render(state.store);
    const filter: TrafficFilter = {
      session: byId<HTMLInputElement>('filter-session').value,
      method: byId<HTMLInputElement>('filter-method').value,
      kind: byId<HTMLSelectElement>('filter-kind').value,
    };
    const rows = visibleRows(state.traffic, filter);
    // Live: the connection is open, so a turn not ended yet is not judged as never ending.
    const live = !state.offline && agentRunning(state);
    trafficView.render(state.traffic, rows, live, state.expanded, (index) => {
      if (!state.expanded.delete(index)) state.expanded.add(index);
      schedule();
    });
    byId('traffic-count').textContent = `${rows.length} of ${state.traffic.rows.length} message(s) shown`;
    // A lint skipped to keep a flood responsive runs on a later render.
    if (state.traffic.lintStale()) setTimeout(schedule, 250);
    // Redrawn only when the messages or the filters changed.
    const diagramEnd = trafficView.lastVisible(byId('traffic-scroll'), byId('traffic-body'), rows.length);
    const diagramKey = JSON.stringify([
      state.traffic.rows.length,
      filter,
      state.traffic.version,
      diagramEnd,
      live,
    ]);
    const lintNow = state.traffic.version === 2 ? state.traffic.lint() : undefined;
    const diagramChanged =
      diagramKey !== diagramShown || state.traffic !== diagramTraffic || lintNow !== diagramLint;
    // During a flood the diagram (150 arrows laid out and parsed) is redrawn at most twice a second.
    if (diagramChanged && performance.now() - diagramAt < 500) setTimeout(schedule, 500);
    else if (diagramChanged) {
      diagramAt = performance.now();
      diagramShown = diagramKey;
      diagramTraffic = state.traffic;
      diagramLint = lintNow;
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
    renderAsks();
    renderWaiting();
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
    renderSessionControls();
    renderReadiness();
  }

  /** The agent line, the Start session button and the prompt box: what can be done now, and why not. */
  function renderReadiness(): void {
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

  /** The cards on screen, by request id: kept, not rebuilt, so a click never lands on a replaced node. */
  const askCards = new Map<string, HTMLElement>();

  function renderAsks(): void {
    const container = byId('permissions');
    for (const [key, card] of askCards) {
      if (state.asks.has(key)) continue;
      card.remove();
      askCards.delete(key);
    }
    for (const [key, { ask }] of state.asks) {
      if (askCards.has(key)) continue;
      const card = askCard(ask);
      askCards.set(key, card);
      container.append(card);
    }
  }

  /**
   * The agent withdrew one of its requests (`$/cancel_request`): its card goes, and the request is
   * answered -32800 as JSON-RPC cancellation asks.
   */
  function withdraw(requestId: unknown): void {
    const key = JSON.stringify(requestId);
    const waiting = state.asks.get(key);
    if (waiting === undefined) return;
    state.asks.delete(key);
    waiting.reject(new RpcError(-32800, 'Request cancelled', undefined));
    say(`the agent withdrew its ${waiting.ask.method} request (id ${key})`);
    schedule();
  }

  /** The session's config controls and the palette's commands, rebuilt only when they changed. */
  let controlsShown = '';
  function renderSessionControls(): void {
    const sessionId = byId<HTMLSelectElement>('session-select').value;
    const snapshot =
      sessionId !== '' && state.store.sessionIds().includes(sessionId)
        ? state.store.snapshot(sessionId)
        : undefined;
    palette.setCommands(commandsOf(snapshot));
    const key = JSON.stringify([sessionId, snapshot?.configOptions ?? null]);
    if (key === controlsShown) return;
    controlsShown = key;
    byId('session-controls').replaceChildren(
      snapshot === undefined
        ? ''
        : configControls(snapshot, (configId, choice) => setConfig(sessionId, configId, choice)),
    );
  }

  function setConfig(sessionId: string, configId: string, choice: ConfigChoice): void {
    void act('session/set_config_option', async () => {
      // The answer's options reach the store through noteResponse, like every tab's.
      await peer.request('session/set_config_option', { sessionId, configId, ...choice });
      say(`${configId} set to ${String(choice.value)}`);
    });
  }

  /** The page's requests the agent has not answered, with their age. */
  function renderWaiting(): void {
    const waiting = peer.waiting();
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

  function addSession(id: string): void {
    if (!state.sessions.includes(id)) state.sessions.push(id);
    byId<HTMLSelectElement>('session-select').value = id;
    schedule();
  }

  function secondClient(conn: number): SecondClient {
    let client = state.seconds.get(conn);
    if (client === undefined) {
      client = new SecondClient(conn, api, byId('second-clients'), schedule, state.replaying);
      state.seconds.set(conn, client);
    }
    return client;
  }

  function onEvent(event: ServerEvent): void {
    if (state.offline && (event.type === 'frame' || event.type === 'sent')) return;
    if (event.type === 'live') for (const client of state.seconds.values()) client.onEvent(event);
    if ('conn' in event && event.conn !== undefined && event.conn !== 1) {
      secondClient(event.conn).onEvent(event);
      schedule();
      return;
    }
    if (event.type === 'live') {
      state.replaying = false;
      for (const msg of state.held.values()) peer.receive(msg);
      state.held.clear();
    } else if (event.type === 'started') {
      state.agent = {
        phase: 'running',
        run: event.run,
        description: event.description,
        target: event.target ?? 'stdio',
      };
      // A new process (or connection) is not initialized yet.
      state.initialized = undefined;
      state.initializing.clear();
      const single = event.target === 'stdio';
      // A remote agent is not the inspector's to restart: the button opens a new connection to it.
      byId('restart').textContent = event.target === 'remote' ? 'Reconnect' : 'Restart agent';
      byId<HTMLButtonElement>('open-second-client').disabled = single;
      byId('second-client-hint').textContent = single
        ? 'A second client needs its own connection, and a stdio agent has one: run the agent on a listening transport (for the reference agent: acp-kit agent --listen) and inspect it with --url.'
        : '';
      // The working directory defaults to where `acp-kit inspect` was started, unless already edited.
      const cwdInput = byId<HTMLInputElement>('cwd');
      if (event.cwd !== undefined && cwdInput.value === cwdInput.defaultValue) {
        cwdInput.value = event.cwd;
        cwdInput.defaultValue = event.cwd;
      }
      state.stderr = '';
      byId('agent-stderr').textContent = '';
      // A new agent process: the v1 sessions of the last one are not continued.
      state.v1Conversation = new V1ConversationTranslator();
      if (!state.replaying) say('agent started; Start session initializes it and opens a session');
    } else if (event.type === 'ended') {
      state.agent = { phase: 'ended', run: event.run, reason: event.reason, code: event.code };
      // What a crashed agent wrote is the first thing to read: shown open.
      byId<HTMLDetailsElement>('agent-stderr').closest('details')!.open = event.stderr !== '';
      byId('agent-stderr').textContent = event.stderr;
      peer.abandon(event.reason);
      nesPanel.ended();
      for (const id of state.store.sessionIds()) state.store.setConnection(id, 'disconnected');
      for (const [key, { reject }] of state.asks) {
        state.asks.delete(key);
        reject(new Error(event.reason));
      }
    } else if (event.type === 'stderr') {
      state.stderr = (state.stderr + event.text).slice(-16_384);
      byId('agent-stderr').textContent = state.stderr;
    } else {
      const dir = event.type === 'sent' ? 'client->agent' : 'agent->client';
      const row = state.traffic.add(dir, event.t, event.text);
      const msg = record(row.msg);
      noteResponse(row);
      foldIntoStore(dir, msg);
      if (dir === 'client->agent') {
        peer.noteUsedId(msg?.id);
        noteInitialize(msg);
        // A response this tab (or an earlier one) already sent: that request is no longer waiting.
        if (msg !== undefined && !('method' in msg)) {
          state.asks.delete(JSON.stringify(msg.id));
          state.held.delete(JSON.stringify(msg.id));
        }
      } else {
        if (msg?.method === '$/cancel_request') {
          const requestId = record(msg.params)?.requestId;
          if (state.held.delete(JSON.stringify(requestId))) {
            // Withdrawn before this tab caught up: never shown.
          } else withdraw(requestId);
        }
        if (state.replaying && msg !== undefined && typeof msg.method === 'string' && 'id' in msg)
          state.held.set(JSON.stringify(msg.id), row.msg);
        else peer.receive(row.msg);
      }
    }
    schedule();
  }

  // ---- Connect -------------------------------------------------------------------------------------

  const cwd = (): string => byId<HTMLInputElement>('cwd').value;
  /** What the wiring modules (session-actions.ts, import-transcript.ts) use of this page. */
  const app: App = { state, api, peer, say, act, schedule, cwd, secondClient, noteResponse, foldIntoStore };
  const nesPanel = new NesPanel(app);

  function showAgent(result: unknown): void {
    const r = record(result) ?? {};
    const info = state.traffic.version === 2 ? r.info : r.agentInfo;
    const capabilities = state.traffic.version === 2 ? r.capabilities : r.agentCapabilities;
    byId('agent-info').textContent = `protocol version ${String(r.protocolVersion)}\n${pretty(info ?? null)}`;
    byId('agent-capabilities').textContent = pretty(capabilities ?? null);
    const methods = Array.isArray(r.authMethods) ? (r.authMethods as Record<string, unknown>[]) : [];
    byId('auth-methods').replaceChildren(
      ...(methods.length === 0
        ? [el('li', {}, 'none')]
        : methods.map((method) =>
            el(
              'li',
              {},
              `${String(method.name ?? method.methodId ?? method.id)} (${String(method.methodId ?? method.id)}${method.type ? `, ${String(method.type)}` : ''}) `,
              el(
                'button',
                {
                  type: 'button',
                  'data-method-id': String(method.id ?? method.methodId),
                  onclick: () =>
                    void act('login', async () => {
                      const methodId = method.methodId ?? method.id;
                      await peer.request(state.traffic.version === 2 ? 'auth/login' : 'authenticate', {
                        methodId,
                      });
                      say(`logged in with ${String(methodId)}`);
                    }),
                },
                'Log in',
              ),
            ),
          )),
    );
  }

  /** The protocol version and capabilities the Connect panel shows (a bad JSON is an error, said as such). */
  function chosenSettings(): { version: 1 | 2; capabilities: unknown } {
    const version = byId<HTMLSelectElement>('protocol').value === '1' ? 1 : 2;
    try {
      return { version, capabilities: JSON.parse(byId<HTMLTextAreaElement>('capabilities').value || '{}') };
    } catch {
      throw new Error('client capabilities must be a JSON object');
    }
  }

  /** Initializes (again, when asked) with the panel's protocol version and capabilities. */
  async function initialize(): Promise<void> {
    const { version, capabilities } = chosenSettings();
    state.traffic.version = version;
    const clientInfo = { name: 'acp-kit-inspect', version: '0' };
    const result = await peer.request(
      'initialize',
      version === 2
        ? { protocolVersion: 2, info: clientInfo, capabilities }
        : { protocolVersion: 1, clientInfo, clientCapabilities: capabilities },
    );
    say(`initialized (protocol version ${String(record(result)?.protocolVersion)})`);
  }

  async function newSession(): Promise<void> {
    const result = await peer.request(
      'session/new',
      state.traffic.version === 2 ? { cwd: cwd() } : { cwd: cwd(), mcpServers: [] },
    );
    const sessionId = String(record(result)?.sessionId);
    byId<HTMLSelectElement>('session-select').value = sessionId;
    say(`session ${sessionId} created`);
  }

  /**
   * An initialize request seen on the wire (this tab's, or an earlier tab's in the replayed log):
   * its settings, so its answer tells which initialize is in force.
   */
  function noteInitialize(msg: Record<string, unknown> | undefined): void {
    if (msg?.method !== 'initialize' || !('id' in msg)) return;
    const params = record(msg.params) ?? {};
    state.initializing.set(JSON.stringify(msg.id), {
      version: params.protocolVersion === 1 ? 1 : 2,
      capabilities: canonicalCapabilities(
        params.protocolVersion === 1 ? params.clientCapabilities : params.capabilities,
      ),
    });
  }

  byId('initialize').addEventListener('click', () => void act('initialize', initialize));

  // One click from a started agent to a session: initialize unless already done with these settings, then session/new.
  byId('start-session').addEventListener(
    'click',
    () =>
      void act('start session', async () => {
        const { version, capabilities } = chosenSettings();
        const chosen = { version, capabilities: canonicalCapabilities(capabilities) };
        for (const step of startPlan(state.initialized, chosen))
          await (step === 'initialize' ? initialize() : newSession());
        byId('prompt').focus();
      }),
  );

  function trackSessionResponse(sessionId: string, result: unknown): void {
    const r = record(result);
    if (state.traffic.version === 2 && Array.isArray(r?.configOptions))
      state.store.setConfigOptions(sessionId, r.configOptions as never);
    if (state.traffic.version === 2 && Array.isArray(r?.availableCommands))
      state.store.setAvailableCommands(sessionId, r.availableCommands as never);
    state.store.setConnection(sessionId, 'connected');
    addSession(sessionId);
  }

  /**
   * What the page learns from an answer of the agent, whichever tab asked (this one, an earlier one
   * whose log a reload replays, or an imported transcript): the agent's info, a session's options
   * and commands, a deletion.
   */
  function noteResponse(row: TrafficRow): void {
    if (row.dir !== 'agent->client' || row.kind !== 'response') return;
    const result = record(record(row.msg)?.result);
    if (result === undefined) return;
    if (row.method === 'initialize') {
      showAgent(result);
      const key = JSON.stringify(record(row.msg)?.id);
      const asked = state.initializing.get(key);
      state.initializing.delete(key);
      state.initialized = {
        version: result.protocolVersion === 1 ? 1 : 2,
        capabilities: asked?.capabilities ?? canonicalCapabilities({}),
      };
      nesPanel.initialized(
        result,
        state.initialized.version,
        JSON.parse(state.initialized.capabilities) as unknown,
      );
    } else if (['session/new', 'session/resume', 'session/load', 'session/fork'].includes(row.method)) {
      const sessionId = row.sessionId || String(result.sessionId);
      trackSessionResponse(sessionId, result);
    } else if (row.method === 'session/set_config_option' && Array.isArray(result.configOptions)) {
      if (state.traffic.version === 2)
        state.store.setConfigOptions(row.sessionId, result.configOptions as never);
    } else if (row.method === 'session/delete' && row.sessionId !== '') {
      state.store.forget(row.sessionId);
      if (state.sessions.includes(row.sessionId))
        state.sessions.splice(state.sessions.indexOf(row.sessionId), 1);
      byId<HTMLSelectElement>('session-select').replaceChildren();
    }
  }

  byId('new-session').addEventListener('click', () => void act('session/new', newSession));

  wireSessionActions(app);

  // ---- Prompt --------------------------------------------------------------------------------------

  // Enter sends (Shift+Enter is a new line); the palette, listening first, takes Enter while it is open.
  byId('prompt').addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.shiftKey || event.defaultPrevented || event.isComposing) return;
    event.preventDefault();
    byId<HTMLFormElement>('prompt-form').requestSubmit();
  });

  byId('prompt-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId<HTMLTextAreaElement>('prompt');
    const sessionId = byId<HTMLSelectElement>('session-select').value;
    const text = input.value;
    if (sessionId === '' || text === '')
      return say('create or resume a session and write a prompt first', true);
    // "/help" where the agent offers no such command: the session's commands, listed here, not sent.
    const snapshot = state.store.sessionIds().includes(sessionId)
      ? state.store.snapshot(sessionId)
      : undefined;
    const help = localHelp(text, commandsOf(snapshot));
    if (help !== undefined) {
      input.value = '';
      return say(help);
    }
    input.value = '';
    const content = [{ type: 'text' as const, text }];
    const localId = state.traffic.version === 2 ? state.store.addPending(sessionId, content) : undefined;
    schedule();
    void act('session/prompt', async () => {
      try {
        const result = record(await peer.request('session/prompt', { sessionId, prompt: content }));
        if (localId !== undefined && typeof result?.messageId === 'string')
          state.store.resolvePending(localId, result.messageId);
      } catch (error) {
        if (localId !== undefined) {
          if (error instanceof RpcError) state.store.rejectPending(localId, error);
          else state.store.markOutcomeUnknown(localId);
        }
        throw error;
      } finally {
        schedule();
      }
    });
  });

  wireTheme();

  // ---- Traffic and export --------------------------------------------------------------------------

  // The diagram follows the traffic table as the reader scrolls it.
  byId('traffic-scroll').addEventListener('scroll', schedule, { passive: true });
  for (const id of ['filter-session', 'filter-method', 'filter-kind', 'session-select'])
    byId(id).addEventListener('input', schedule);

  byId('export').addEventListener('click', () => {
    const blob = new Blob([state.traffic.transcript()], { type: 'application/x-ndjson' });
    const link = el('a', { href: URL.createObjectURL(blob), download: 'transcript.ndjson' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  });

  // The ages of unanswered requests keep counting.
  setInterval(() => {
    if (peer.waiting().length > 0 || byId('waiting').childElementCount > 0) schedule();
  }, 1000);
  void api.follow(
    (event) => onEvent(event),
    (status) => {
      byId('status').textContent = status;
      if (status === 'connected to the inspector') state.replaying = true;
    },
  );
  schedule();

  wireImport(app);

  return state;
}
