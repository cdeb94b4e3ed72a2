import { ConversationStore } from '@acp-kit/sdk/client';
import { InspectorApi, type ServerEvent, takeToken } from './api.js';
import { renderConversation } from './conversation-view.js';
import { byId, el, pretty } from './dom.js';
import { Peer, RpcError } from './peer.js';
import { Traffic } from './traffic.js';
import { renderTraffic } from './traffic-view.js';

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
const traffic = new Traffic();
let store = new ConversationStore({ unstable: true });
const sessions: string[] = [];
/** Permission requests the agent is waiting on, by their JSON-RPC id. */
const permissions = new Map<string, { params: Record<string, unknown>; answer: (result: unknown) => void }>();
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
    if (method === 'session/request_permission') {
      return new Promise((answer) => {
        permissions.set(JSON.stringify(id), { params: record(params) ?? {}, answer });
        schedule();
      });
    }
    return Promise.reject(new RpcError(-32601, `the inspector does not answer ${method} yet`, undefined));
  },
);

function say(text: string, isError = false): void {
  const line = byId('log');
  line.textContent = text;
  line.className = isError ? 'error' : '';
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

function render(): void {
  renderConversation(store, byId('conversation'));
  renderTraffic(
    traffic,
    {
      session: byId<HTMLInputElement>('filter-session').value,
      method: byId<HTMLInputElement>('filter-method').value,
      kind: byId<HTMLSelectElement>('filter-kind').value,
    },
    byId('traffic-body'),
    byId('lint-summary'),
  );
  renderPermissions();
  const select = byId<HTMLSelectElement>('session-select');
  const chosen = select.value;
  for (const id of store.sessionIds()) if (!sessions.includes(id)) sessions.push(id);
  // Rebuilt only when the list changed, so an open menu or a choice is never reset under the user.
  if (select.options.length !== sessions.length) {
    select.replaceChildren(...sessions.map((id) => el('option', { value: id, selected: id === chosen }, id)));
  }
  if (chosen === '' && sessions.length > 0) select.value = sessions.at(-1)!;
}

/** The permission cards on screen, by request id: kept, not rebuilt, so a click never lands on a replaced node. */
const permissionCards = new Map<string, HTMLElement>();

function renderPermissions(): void {
  const container = byId('permissions');
  for (const [id, card] of permissionCards) {
    if (permissions.has(id)) continue;
    card.remove();
    permissionCards.delete(id);
  }
  for (const [id, { params, answer }] of permissions) {
    if (permissionCards.has(id)) continue;
    const options = Array.isArray(params.options) ? (params.options as Record<string, unknown>[]) : [];
    const done = (result: unknown): void => {
      permissions.delete(id);
      answer(result);
      schedule();
    };
    const card = el(
      'div',
      { class: 'permission', 'data-request-id': id },
      el('p', {}, `${String(params.title ?? 'permission')} (session ${String(params.sessionId)})`),
      ...options.map((option) =>
        el(
          'button',
          {
            type: 'button',
            'data-option-id': String(option.optionId),
            onclick: () => done({ outcome: { outcome: 'selected', optionId: option.optionId } }),
          },
          String(option.name ?? option.optionId),
        ),
      ),
      el(
        'button',
        { type: 'button', class: 'cancel', onclick: () => done({ outcome: { outcome: 'cancelled' } }) },
        'Cancel',
      ),
    );
    permissionCards.set(id, card);
    container.append(card);
  }
}

function addSession(id: string): void {
  if (!sessions.includes(id)) sessions.push(id);
  byId<HTMLSelectElement>('session-select').value = id;
  schedule();
}

function onEvent(event: ServerEvent): void {
  if (event.type === 'live') {
    replaying = false;
    for (const msg of held.values()) peer.receive(msg);
    held.clear();
  } else if (event.type === 'started') {
    byId('agent-status').textContent = `agent run ${event.run} started: ${event.description}`;
    byId('agent-status').className = 'running';
    agentRunning = true;
    stderrLive = '';
    byId('agent-stderr').textContent = '';
    if (!replaying) say('agent started; initialize it to begin');
  } else if (event.type === 'ended') {
    byId('agent-status').textContent =
      `agent run ${event.run} ended: ${event.reason}${event.code === null ? '' : ` (exit code ${event.code})`}`;
    byId('agent-status').className = 'ended';
    agentRunning = false;
    byId('agent-stderr').textContent = event.stderr;
    peer.abandon(event.reason);
    for (const id of store.sessionIds()) store.setConnection(id, 'disconnected');
    for (const [id, { answer }] of permissions) {
      permissions.delete(id);
      answer({ outcome: { outcome: 'cancelled' } });
    }
  } else if (event.type === 'stderr') {
    stderrLive = (stderrLive + event.text).slice(-16_384);
    byId('agent-stderr').textContent = stderrLive;
  } else {
    const dir = event.type === 'sent' ? 'client->agent' : 'agent->client';
    const row = traffic.add(dir, event.t, event.text);
    const msg = record(row.msg);
    if (dir === 'client->agent') {
      peer.noteUsedId(msg?.id);
      // A response this tab (or an earlier one) already sent: that request is no longer waiting.
      if (msg !== undefined && !('method' in msg)) {
        permissions.delete(JSON.stringify(msg.id));
        held.delete(JSON.stringify(msg.id));
      }
    } else {
      if (msg !== undefined && msg.method === 'session/update' && traffic.version === 2) {
        try {
          store.apply(msg.params as Parameters<ConversationStore['apply']>[0]);
        } catch (error) {
          say(
            `the conversation store refused an update: ${error instanceof Error ? error.message : String(error)}`,
            true,
          );
        }
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
            `${String(method.name ?? method.id)} (${String(method.id)}) `,
            el(
              'button',
              {
                type: 'button',
                onclick: () =>
                  void act('login', () =>
                    peer.request(traffic.version === 2 ? 'auth/login' : 'authenticate', {
                      methodId: method.id,
                    }),
                  ),
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
      showAgent(result);
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

byId('new-session').addEventListener(
  'click',
  () =>
    void act('session/new', async () => {
      const result = await peer.request(
        'session/new',
        traffic.version === 2 ? { cwd: cwd() } : { cwd: cwd(), mcpServers: [] },
      );
      const id = String(record(result)?.sessionId);
      trackSessionResponse(id, result);
      say(`session ${id} created`);
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
      const result = await peer.request('session/resume', {
        sessionId,
        cwd: cwd(),
        ...(replay ? { replayFrom: { type: 'start' } } : {}),
      });
      trackSessionResponse(sessionId, result);
      say(`session ${sessionId} resumed${replay ? ' with replay' : ''}`);
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
      store = new ConversationStore({ unstable: true });
      sessions.length = 0;
      schedule();
    }),
);

// ---- Prompt --------------------------------------------------------------------------------------

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

// ---- Traffic and export --------------------------------------------------------------------------

for (const id of ['filter-session', 'filter-method', 'filter-kind'])
  byId(id).addEventListener('input', schedule);

byId('export').addEventListener('click', () => {
  const blob = new Blob([traffic.transcript()], { type: 'application/x-ndjson' });
  const link = el('a', { href: URL.createObjectURL(blob), download: 'transcript.ndjson' });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
});

store.subscribe(schedule);
void api.follow(
  (event) => onEvent(event),
  (status) => {
    byId('status').textContent = status;
    if (status === 'connected to the inspector') replaying = true;
  },
);
schedule();
