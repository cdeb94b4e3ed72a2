import type { App } from './app.js';
import { byId } from './dom.js';
import { record } from './record.js';
import { canonicalCapabilities } from './state.js';
import { startPlan } from './views.js';

/**
 * The Connect panel: Initialize (with the panel's protocol version and capabilities), New session,
 * and Start session, one click from a started agent to a session (initialize unless already done
 * with these settings, then session/new).
 */
export function wireConnect(app: App): void {
  const { state, peer, say, act, cwd } = app;

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

  byId('initialize').addEventListener('click', () => void act('initialize', initialize));

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

  byId('new-session').addEventListener('click', () => void act('session/new', newSession));
}
