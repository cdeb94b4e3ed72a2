import { ConversationStore } from '@acp-kit/sdk/client';
import { V1ConversationTranslator } from '@acp-kit/v1-compat/browser';
import { InspectorApi, type ServerEvent, takeToken } from './api.js';
import { type Ask, askCard } from './asks-view.js';
import { ConversationView } from './conversation-view.js';
import { byId, el, pretty } from './dom.js';
import { Peer, RpcError } from './peer.js';
import { compareReplay } from './replay-check.js';
import { SecondClient } from './second-client.js';
import { Traffic, type TrafficRow } from './traffic.js';
import { renderDiagram, trafficDiagram } from './diagram-view.js';
import { type TrafficFilter, TrafficView, visibleRows } from './traffic-view.js';
import { type ConfigChoice, commandsOf, configControls, Palette } from './session-controls.js';

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

const token = takeToken();
if (token === undefined) {
  byId('status').textContent =
    'No session token: open the URL acp-kit inspect printed (it ends in #token=…) in this tab.';
  throw new Error('no session token');
}
const api = new InspectorApi(token);
let traffic = new Traffic(() => schedule());
let store = freshStore();
/** While a replay check runs: the session it resumes, and the fresh store its replay fills instead of the live one. */
let replayCheck: { sessionId: string; store: ConversationStore } | undefined;
/** An imported transcript is shown: the inspector's live events are not applied (Back to live reloads). */
let offline = false;

function freshStore(): ConversationStore {
  // The inspector shows whatever the agent sends: its store holds the unstable update kinds too.
  const created = new ConversationStore({ unstable: true });
  created.subscribe(() => schedule());
  return created;
}
const sessions: string[] = [];
/**
 * The page initialized as a v1 client: the traffic is read into the v2 updates the store takes,
 * as the v1 → v2 bridge would send them (same converters, same derived message IDs).
 */
let v1Conversation = new V1ConversationTranslator();

/**
 * Folds one message of the traffic into the conversation: a v2 agent's session/update as it is,
 * the v1 traffic (both ways) through {@link v1Conversation}. A replay check's resume fills its own store.
 */
function foldIntoStore(
  dir: 'client->agent' | 'agent->client',
  msg: Record<string, unknown> | undefined,
): void {
  let updates: unknown[] = [];
  if (traffic.version === 1) updates = v1Conversation.take(dir, msg);
  else if (dir === 'agent->client' && msg?.method === 'session/update') updates = [msg.params];
  for (const params of updates) {
    try {
      const target =
        replayCheck !== undefined && record(params)?.sessionId === replayCheck.sessionId
          ? replayCheck.store
          : store;
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
/** The agent's requests waiting for the user (permission, elicitation), by their JSON-RPC id as JSON. */
const asks = new Map<string, { ask: Ask; reject: (error: Error) => void }>();
/**
 * While the inspector replays its log (this tab just opened, or reconnected), the agent's requests
 * are held: one answered in the log (by an earlier tab) must not be answered twice. Those still
 * unanswered when the log is caught up are handled then.
 */
let replaying = true;
const held = new Map<string, unknown>();
let stderrLive = '';

/** Whether the agent's current run is alive (a frame for a dead agent is refused here, not sent). */
let agentRunning = false;

const peer = new Peer(
  (text) =>
    agentRunning ? api.send(text) : Promise.reject(new Error('the agent is not running; restart it')),
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
            asks.delete(key);
            resolve(result);
            schedule();
          },
        };
        asks.set(key, { ask, reject });
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
  conversationView.render(store);
  const filter: TrafficFilter = {
    session: byId<HTMLInputElement>('filter-session').value,
    method: byId<HTMLInputElement>('filter-method').value,
    kind: byId<HTMLSelectElement>('filter-kind').value,
  };
  const rows = visibleRows(traffic, filter);
  trafficView.render(traffic, rows);
  byId('traffic-count').textContent = `${rows.length} of ${traffic.rows.length} message(s) shown`;
  // A lint skipped to keep a flood responsive runs on a later render.
  if (traffic.lintStale()) setTimeout(schedule, 250);
  // Redrawn only when the messages or the filters changed.
  const diagramEnd = trafficView.lastVisible(byId('traffic-scroll'), byId('traffic-body'), rows.length);
  const diagramKey = JSON.stringify([traffic.rows.length, filter, traffic.version, diagramEnd]);
  const lintNow = traffic.version === 2 ? traffic.lint() : undefined;
  const diagramChanged = diagramKey !== diagramShown || traffic !== diagramTraffic || lintNow !== diagramLint;
  // During a flood the diagram (150 arrows laid out and parsed) is redrawn at most twice a second.
  if (diagramChanged && performance.now() - diagramAt < 500) setTimeout(schedule, 500);
  else if (diagramChanged) {
    diagramAt = performance.now();
    diagramShown = diagramKey;
    diagramTraffic = traffic;
    diagramLint = lintNow;
    const lintOn = traffic.version === 2;
    renderDiagram(
      trafficDiagram(rows, (row) => (lintOn ? traffic.findingsOf(row) : []), diagramEnd),
      byId('diagram'),
    );
  }
  renderAsks();
  renderWaiting();
  for (const client of seconds.values()) client.render();
  const select = byId<HTMLSelectElement>('session-select');
  const chosen = select.value;
  for (const id of store.sessionIds()) if (!sessions.includes(id)) sessions.push(id);
  // Rebuilt only when the list changed, so an open menu or a choice is never reset under the user.
  if (select.options.length !== sessions.length) {
    select.replaceChildren(...sessions.map((id) => el('option', { value: id, selected: id === chosen }, id)));
  }
  if (chosen === '' && sessions.length > 0) select.value = sessions.at(-1)!;
  renderSessionControls();
}

/** The cards on screen, by request id: kept, not rebuilt, so a click never lands on a replaced node. */
const askCards = new Map<string, HTMLElement>();

function renderAsks(): void {
  const container = byId('permissions');
  for (const [key, card] of askCards) {
    if (asks.has(key)) continue;
    card.remove();
    askCards.delete(key);
  }
  for (const [key, { ask }] of asks) {
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
  const waiting = asks.get(key);
  if (waiting === undefined) return;
  asks.delete(key);
  waiting.reject(new RpcError(-32800, 'Request cancelled', undefined));
  say(`the agent withdrew its ${waiting.ask.method} request (id ${key})`);
  schedule();
}

/** The session's config controls and the palette's commands, rebuilt only when they changed. */
let controlsShown = '';
function renderSessionControls(): void {
  const sessionId = byId<HTMLSelectElement>('session-select').value;
  const snapshot =
    sessionId !== '' && store.sessionIds().includes(sessionId) ? store.snapshot(sessionId) : undefined;
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
  if (!sessions.includes(id)) sessions.push(id);
  byId<HTMLSelectElement>('session-select').value = id;
  schedule();
}

/** The extra clients (a remote agent's extra connections), by connection number. */
const seconds = new Map<number, SecondClient>();
function secondClient(conn: number): SecondClient {
  let client = seconds.get(conn);
  if (client === undefined) {
    client = new SecondClient(conn, api, byId('second-clients'), schedule, replaying);
    seconds.set(conn, client);
  }
  return client;
}

function onEvent(event: ServerEvent): void {
  if (offline && (event.type === 'frame' || event.type === 'sent')) return;
  if (event.type === 'live') for (const client of seconds.values()) client.onEvent(event);
  if ('conn' in event && event.conn !== undefined && event.conn !== 1) {
    secondClient(event.conn).onEvent(event);
    schedule();
    return;
  }
  if (event.type === 'live') {
    replaying = false;
    for (const msg of held.values()) peer.receive(msg);
    held.clear();
  } else if (event.type === 'started') {
    byId('agent-status').textContent = `agent run ${event.run} started: ${event.description}`;
    const single = event.target === 'stdio';
    // A remote agent is not the inspector's to restart: the button opens a new connection to it.
    byId('restart').textContent = event.target === 'remote' ? 'Reconnect' : 'Restart agent';
    byId<HTMLButtonElement>('open-second-client').disabled = single;
    byId('second-client-hint').textContent = single
      ? 'A second client needs its own connection, and a stdio agent has one: run the agent on a listening transport (for the reference agent: acp-kit agent --listen) and inspect it with --url.'
      : '';
    byId('agent-status').className = 'running';
    // The working directory defaults to where `acp-kit inspect` was started, unless already edited.
    const cwdInput = byId<HTMLInputElement>('cwd');
    if (event.cwd !== undefined && cwdInput.value === cwdInput.defaultValue) {
      cwdInput.value = event.cwd;
      cwdInput.defaultValue = event.cwd;
    }
    agentRunning = true;
    stderrLive = '';
    byId('agent-stderr').textContent = '';
    // A new agent process: the v1 sessions of the last one are not continued.
    v1Conversation = new V1ConversationTranslator();
    if (!replaying) say('agent started; initialize it to begin');
  } else if (event.type === 'ended') {
    byId('agent-status').textContent =
      `agent run ${event.run} ended: ${event.reason}${event.code === null ? '' : ` (exit code ${event.code})`}`;
    byId('agent-status').className = 'ended';
    agentRunning = false;
    byId('agent-stderr').textContent = event.stderr;
    peer.abandon(event.reason);
    for (const id of store.sessionIds()) store.setConnection(id, 'disconnected');
    for (const [key, { reject }] of asks) {
      asks.delete(key);
      reject(new Error(event.reason));
    }
  } else if (event.type === 'stderr') {
    stderrLive = (stderrLive + event.text).slice(-16_384);
    byId('agent-stderr').textContent = stderrLive;
  } else {
    const dir = event.type === 'sent' ? 'client->agent' : 'agent->client';
    const row = traffic.add(dir, event.t, event.text);
    const msg = record(row.msg);
    noteResponse(row);
    foldIntoStore(dir, msg);
    if (dir === 'client->agent') {
      peer.noteUsedId(msg?.id);
      // A response this tab (or an earlier one) already sent: that request is no longer waiting.
      if (msg !== undefined && !('method' in msg)) {
        asks.delete(JSON.stringify(msg.id));
        held.delete(JSON.stringify(msg.id));
      }
    } else {
      if (msg?.method === '$/cancel_request') {
        const requestId = record(msg.params)?.requestId;
        if (held.delete(JSON.stringify(requestId))) {
          // Withdrawn before this tab caught up: never shown.
        } else withdraw(requestId);
      }
      if (replaying && msg !== undefined && typeof msg.method === 'string' && 'id' in msg)
        held.set(JSON.stringify(msg.id), row.msg);
      else peer.receive(row.msg);
    }
  }
  schedule();
}

// ---- Connect -------------------------------------------------------------------------------------

const cwd = (): string => byId<HTMLInputElement>('cwd').value;

function showAgent(result: unknown): void {
  const r = record(result) ?? {};
  const info = traffic.version === 2 ? r.info : r.agentInfo;
  const capabilities = traffic.version === 2 ? r.capabilities : r.agentCapabilities;
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
                    await peer.request(traffic.version === 2 ? 'auth/login' : 'authenticate', { methodId });
                    say(`logged in with ${String(methodId)}`);
                  }),
              },
              'Log in',
            ),
          ),
        )),
  );
}

byId('initialize').addEventListener(
  'click',
  () =>
    void act('initialize', async () => {
      traffic.version = byId<HTMLSelectElement>('protocol').value === '1' ? 1 : 2;
      let capabilities: unknown;
      try {
        capabilities = JSON.parse(byId<HTMLTextAreaElement>('capabilities').value || '{}');
      } catch {
        throw new Error('client capabilities must be a JSON object');
      }
      const clientInfo = { name: 'acp-kit-inspect', version: '0' };
      const result = await peer.request(
        'initialize',
        traffic.version === 2
          ? { protocolVersion: 2, info: clientInfo, capabilities }
          : { protocolVersion: 1, clientInfo, clientCapabilities: capabilities },
      );
      say(`initialized (protocol version ${String(record(result)?.protocolVersion)})`);
    }),
);

function trackSessionResponse(sessionId: string, result: unknown): void {
  const r = record(result);
  if (traffic.version === 2 && Array.isArray(r?.configOptions))
    store.setConfigOptions(sessionId, r.configOptions as never);
  if (traffic.version === 2 && Array.isArray(r?.availableCommands))
    store.setAvailableCommands(sessionId, r.availableCommands as never);
  store.setConnection(sessionId, 'connected');
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
  if (row.method === 'initialize') showAgent(result);
  else if (['session/new', 'session/resume', 'session/load', 'session/fork'].includes(row.method)) {
    const sessionId = row.sessionId || String(result.sessionId);
    trackSessionResponse(sessionId, result);
  } else if (row.method === 'session/set_config_option' && Array.isArray(result.configOptions)) {
    if (traffic.version === 2) store.setConfigOptions(row.sessionId, result.configOptions as never);
  } else if (row.method === 'session/delete' && row.sessionId !== '') {
    store.forget(row.sessionId);
    if (sessions.includes(row.sessionId)) sessions.splice(sessions.indexOf(row.sessionId), 1);
    byId<HTMLSelectElement>('session-select').replaceChildren();
  }
}

byId('new-session').addEventListener(
  'click',
  () =>
    void act('session/new', async () => {
      const result = await peer.request(
        'session/new',
        traffic.version === 2 ? { cwd: cwd() } : { cwd: cwd(), mcpServers: [] },
      );
      say(`session ${String(record(result)?.sessionId)} created`);
    }),
);

byId('list-sessions').addEventListener(
  'click',
  () =>
    void act('session/list', async () => {
      const result = record(await peer.request('session/list', {}));
      const list = Array.isArray(result?.sessions) ? (result.sessions as Record<string, unknown>[]) : [];
      byId('session-list').replaceChildren(
        ...(list.length === 0
          ? [el('li', {}, 'no sessions')]
          : list.map((session) =>
              el(
                'li',
                {},
                `${String(session.sessionId)}${session.title ? ` — ${String(session.title)}` : ''} `,
                el(
                  'button',
                  {
                    type: 'button',
                    onclick: () => {
                      byId<HTMLInputElement>('resume-id').value = String(session.sessionId);
                    },
                  },
                  'Pick',
                ),
              ),
            )),
      );
    }),
);

byId('resume').addEventListener(
  'click',
  () =>
    void act('session/resume', async () => {
      const sessionId = byId<HTMLInputElement>('resume-id').value.trim();
      const replay = byId<HTMLInputElement>('replay').checked;
      // A replay rebuilds the session from what the agent sends, into a fresh view of it.
      if (replay) store.forget(sessionId);
      await peer.request('session/resume', {
        sessionId,
        cwd: cwd(),
        ...(replay ? { replayFrom: { type: 'start' } } : {}),
      });
      say(`session ${sessionId} resumed${replay ? ' with replay' : ''}`);
    }),
);

byId('delete-session').addEventListener(
  'click',
  () =>
    void act('session/delete', async () => {
      const sessionId = byId<HTMLSelectElement>('session-select').value;
      if (sessionId === '') throw new Error('no session chosen');
      await peer.request('session/delete', { sessionId });
      say(`session ${sessionId} deleted`);
      schedule();
    }),
);

byId('replay-check').addEventListener(
  'click',
  () =>
    void act('replay check', async () => {
      const sessionId = byId<HTMLSelectElement>('session-select').value;
      if (sessionId === '') throw new Error('no session chosen');
      if (replayCheck !== undefined) throw new Error('a replay check is already running');
      const check = { sessionId, store: new ConversationStore({ unstable: true }) };
      replayCheck = check;
      try {
        await peer.request('session/resume', { sessionId, cwd: cwd(), replayFrom: { type: 'start' } });
      } finally {
        replayCheck = undefined;
      }
      const result = compareReplay(store.snapshot(sessionId), check.store.snapshot(sessionId));
      const same = result.differences.length === 0;
      byId('replay-result').replaceChildren(
        el(
          'p',
          { class: same ? 'replay-same' : 'replay-differs' },
          same
            ? `The replay of ${sessionId} matches the live store: ${result.messages} message(s), ${result.toolCalls} tool call(s), the same IDs, no duplicated content.`
            : `The replay of ${sessionId} differs from the live store in ${result.differences.length} place(s):`,
        ),
        ...(same ? [] : [el('ul', {}, ...result.differences.map((difference) => el('li', {}, difference)))]),
      );
    }),
);

byId('open-second-client').addEventListener(
  'click',
  () =>
    void act('second client', async () => {
      const sessionId = byId<HTMLSelectElement>('session-select').value;
      if (sessionId === '') throw new Error('create or resume a session first');
      const client = secondClient(await api.connect());
      await client.ready;
      await client.attach(sessionId, cwd());
      say(`client ${client.conn} attached to ${sessionId}`);
    }),
);

byId('cancel-turn').addEventListener(
  'click',
  () =>
    void act('session/cancel', async () => {
      const sessionId = byId<HTMLSelectElement>('session-select').value;
      if (sessionId === '') throw new Error('no session chosen');
      await peer.notify('session/cancel', { sessionId });
      say(`session/cancel sent for ${sessionId}`);
    }),
);

byId('close-session').addEventListener(
  'click',
  () =>
    void act('session/close', async () => {
      const sessionId = byId<HTMLSelectElement>('session-select').value;
      await peer.request('session/close', { sessionId });
      say(`session ${sessionId} closed`);
    }),
);

byId('restart').addEventListener(
  'click',
  () =>
    void act('restart', async () => {
      await api.restart();
      store = freshStore();
      sessions.length = 0;
      schedule();
    }),
);

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
  input.value = '';
  const content = [{ type: 'text' as const, text }];
  const localId = traffic.version === 2 ? store.addPending(sessionId, content) : undefined;
  schedule();
  void act('session/prompt', async () => {
    try {
      const result = record(await peer.request('session/prompt', { sessionId, prompt: content }));
      if (localId !== undefined && typeof result?.messageId === 'string')
        store.resolvePending(localId, result.messageId);
    } catch (error) {
      if (localId !== undefined) {
        if (error instanceof RpcError) store.rejectPending(localId, error);
        else store.markOutcomeUnknown(localId);
      }
      throw error;
    } finally {
      schedule();
    }
  });
});

// ---- Theme ---------------------------------------------------------------------------------------

const THEME_KEY = 'acp-kit-inspect-theme';
const themeSelect = byId<HTMLSelectElement>('theme');
function applyTheme(theme: string): void {
  if (theme === '') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.setAttribute('data-theme', theme);
  themeSelect.value = theme;
}
applyTheme(localStorage.getItem(THEME_KEY) ?? '');
themeSelect.addEventListener('change', () => {
  localStorage.setItem(THEME_KEY, themeSelect.value);
  applyTheme(themeSelect.value);
});

// ---- Traffic and export --------------------------------------------------------------------------

// The diagram follows the traffic table as the reader scrolls it.
byId('traffic-scroll').addEventListener('scroll', schedule, { passive: true });
for (const id of ['filter-session', 'filter-method', 'filter-kind', 'session-select'])
  byId(id).addEventListener('input', schedule);

byId('export').addEventListener('click', () => {
  const blob = new Blob([traffic.transcript()], { type: 'application/x-ndjson' });
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
    if (status === 'connected to the inspector') replaying = true;
  },
);
schedule();

// ---- Import --------------------------------------------------------------------------------------

/**
 * Shows a transcript (the export's ndjson) offline: its messages in the traffic, validated and
 * linted, and its session updates in a fresh store. A line that is not a transcript entry is listed
 * as garbage where it stood. Back to live reloads the page, which replays the inspector's log.
 */
function importTranscript(name: string, text: string): void {
  offline = true;
  traffic.dispose();
  traffic = new Traffic(() => schedule());
  store = freshStore();
  v1Conversation = new V1ConversationTranslator();
  sessions.length = 0;
  byId<HTMLSelectElement>('session-select').replaceChildren();
  let entries = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let entry: Record<string, unknown> | undefined;
    try {
      entry = record(JSON.parse(line));
    } catch {
      entry = undefined;
    }
    const dir = entry?.dir === 'client->agent' || entry?.dir === 'agent->client' ? entry.dir : undefined;
    if (entry === undefined || dir === undefined || !('msg' in entry)) {
      traffic.add('agent->client', 0, line);
      continue;
    }
    entries += 1;
    const row = traffic.add(dir, typeof entry.t === 'number' ? entry.t : 0, JSON.stringify(entry.msg));
    const msg = record(row.msg);
    noteResponse(row);
    foldIntoStore(dir, msg);
  }
  byId('status').textContent = `offline: ${name} (${entries} message(s)); the live traffic is not shown`;
  byId('back-to-live').hidden = false;
  schedule();
}

byId<HTMLInputElement>('import').addEventListener('change', (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file === undefined) return;
  void act('import', async () => importTranscript(file.name, await file.text()));
});
byId('back-to-live').addEventListener('click', () => location.reload());
