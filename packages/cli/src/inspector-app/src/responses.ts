import type { App } from './app.js';
import { byId, el, pretty } from './dom.js';
import type { NesPanel } from './nes-panel.js';
import { record } from './record.js';
import { initializeAnswered, sessionAnswered, sessionDeleted } from './state-changes.js';
import type { TrafficRow } from './traffic.js';

/**
 * What the page learns from an answer of the agent, whichever tab asked (this one, an earlier one
 * whose log a reload replays, or an imported transcript): the agent's info, a session's options
 * and commands, a deletion.
 */
export function noteResponse(app: App, nesPanel: NesPanel, row: TrafficRow): void {
  if (row.dir !== 'agent->client' || row.kind !== 'response') return;
  const { state } = app;
  const result = record(record(row.msg)?.result);
  if (result === undefined) return;
  if (row.method === 'initialize') {
    showAgent(app, result);
    const initialized = initializeAnswered(state, row, result);
    nesPanel.initialized(result, initialized.version, JSON.parse(initialized.capabilities) as unknown);
  } else if (['session/new', 'session/resume', 'session/load', 'session/fork'].includes(row.method)) {
    const sessionId = row.sessionId || String(result.sessionId);
    sessionAnswered(state, sessionId, result);
    byId<HTMLSelectElement>('session-select').value = sessionId;
    app.schedule();
  } else if (row.method === 'session/set_config_option' && Array.isArray(result.configOptions)) {
    if (state.traffic.version === 2)
      state.store.setConfigOptions(row.sessionId, result.configOptions as never);
  } else if (row.method === 'session/delete' && row.sessionId !== '') {
    sessionDeleted(state, row.sessionId);
    byId<HTMLSelectElement>('session-select').replaceChildren();
  }
}

/** The agent's info, capabilities and ways to log in, from its initialize answer. */
function showAgent(app: App, result: unknown): void {
  const { state, peer, act, say } = app;
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
