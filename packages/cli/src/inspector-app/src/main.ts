import { InspectorApi, takeToken } from './api.js';
import type { App } from './app.js';
import { wireConnect } from './connect.js';
import { byId } from './dom.js';
import { wireImport } from './import-transcript.js';
import { NesPanel } from './nes-panel.js';
import { act, say } from './page-log.js';
import { Peer } from './peer.js';
import { wirePromptForm } from './prompt-form.js';
import { PageRenderer } from './render.js';
import { noteResponse } from './responses.js';
import { SecondClient } from './second-client.js';
import { onServerEvent } from './server-events.js';
import { wireSessionActions } from './session-actions.js';
import { Palette } from './session-controls.js';
import { agentRunning, createState, type InspectorState } from './state.js';
import { foldIntoStore, takeAgentRequest } from './state-changes.js';
import { wireTheme } from './theme.js';
import { wireTrafficControls } from './traffic-controls.js';

/**
 * Starts the inspector page in the current document: takes the session token, builds the page's
 * one {@link InspectorState}, wires the controls and follows the inspector's events. Importing
 * this module does none of that (boot.ts calls it), so its parts can be tested on their own: the
 * state changes in state-changes.ts, the decisions in views.ts, the drawing in render.ts.
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
  let renderer: PageRenderer | undefined;
  let scheduled = false;
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    // A timer, not requestAnimationFrame: a tab in the background must keep up with the traffic too.
    setTimeout(() => {
      scheduled = false;
      renderer?.render();
    }, 16);
  };
  const state = createState(schedule);
  // The palette listens on the prompt box before the form does, so it takes Enter while open.
  const palette = new Palette(byId<HTMLTextAreaElement>('prompt'), byId('palette'));
  const peer = new Peer(
    (text) =>
      agentRunning(state)
        ? api.send(text)
        : Promise.reject(new Error('the agent is not running; restart it')),
    takeAgentRequest(state, schedule),
  );
  const secondClient = (conn: number): SecondClient => {
    let client = state.seconds.get(conn);
    if (client === undefined) {
      client = new SecondClient(conn, api, byId('second-clients'), schedule, state.replaying);
      state.seconds.set(conn, client);
    }
    return client;
  };
  /** What the wiring modules (session-actions.ts, import-transcript.ts…) use of this page. */
  const app: App = {
    state,
    api,
    peer,
    say,
    act,
    schedule,
    cwd: () => byId<HTMLInputElement>('cwd').value,
    secondClient,
    noteResponse: (row) => noteResponse(app, nesPanel, row),
    foldIntoStore: (dir, msg) => {
      for (const refusal of foldIntoStore(state, dir, msg))
        say(`the conversation store refused an update: ${refusal}`, true);
    },
  };
  renderer = new PageRenderer(app, palette);
  const nesPanel = new NesPanel(app);
  wireConnect(app);
  wireSessionActions(app);
  wirePromptForm(app);
  wireTheme();
  wireTrafficControls(app);
  // The ages of unanswered requests keep counting.
  setInterval(() => {
    if (peer.waiting().length > 0 || byId('waiting').childElementCount > 0) schedule();
  }, 1000);
  void api.follow(
    (event) => onServerEvent(app, nesPanel, event),
    (status) => {
      byId('status').textContent = status;
      if (status === 'connected to the inspector') state.replaying = true;
    },
  );
  schedule();
  wireImport(app);
  return state;
}
