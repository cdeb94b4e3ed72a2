import type { ServerEvent } from './api.js';
import type { App } from './app.js';
import { byId } from './dom.js';
import type { NesPanel } from './nes-panel.js';
import { record } from './record.js';
import { addStderr, catchUp, disconnectAll, noteInitialize, startRun, withdrawAsk } from './state-changes.js';

type Started = Extract<ServerEvent, { type: 'started' }>;
type Ended = Extract<ServerEvent, { type: 'ended' }>;
type Frame = Extract<ServerEvent, { type: 'frame' | 'sent' }>;

/**
 * Takes one event of the inspector's stream (the replayed log, then live ones): the agent's runs,
 * its stderr, and each frame of the page's connection (an extra client's go to that client). The
 * state changes in state-changes.ts; this draws what is not redrawn by a render, and asks for one.
 */
export function onServerEvent(app: App, nesPanel: NesPanel, event: ServerEvent): void {
  const { state, peer, schedule } = app;
  if (state.offline && (event.type === 'frame' || event.type === 'sent')) return;
  if (event.type === 'live') for (const client of state.seconds.values()) client.onEvent(event);
  if ('conn' in event && event.conn !== undefined && event.conn !== 1) {
    app.secondClient(event.conn).onEvent(event);
    schedule();
    return;
  }
  if (event.type === 'live') {
    for (const msg of catchUp(state)) peer.receive(msg);
  } else if (event.type === 'started') {
    onStarted(app, event);
  } else if (event.type === 'ended') {
    state.agent = { phase: 'ended', run: event.run, reason: event.reason, code: event.code };
    onEnded(app, nesPanel, event);
  } else if (event.type === 'stderr') {
    addStderr(state, event.text);
    byId('agent-stderr').textContent = state.stderr;
  } else {
    onFrame(app, event);
  }
  schedule();
}

function onStarted(app: App, event: Started): void {
  startRun(app.state, event);
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
  byId('agent-stderr').textContent = '';
  if (!app.state.replaying) app.say('agent started; Start session initializes it and opens a session');
}

function onEnded(app: App, nesPanel: NesPanel, event: Ended): void {
  // What a crashed agent wrote is the first thing to read: shown open.
  byId<HTMLDetailsElement>('agent-stderr').closest('details')!.open = event.stderr !== '';
  byId('agent-stderr').textContent = event.stderr;
  app.peer.abandon(event.reason);
  nesPanel.ended();
  disconnectAll(app.state, event.reason);
}

/** A frame of the page's connection: into the table and the conversation, and to the peer. */
function onFrame(app: App, event: Frame): void {
  const { state, peer } = app;
  const dir = event.type === 'sent' ? 'client->agent' : 'agent->client';
  const row = state.traffic.add(dir, event.t, event.text);
  const msg = record(row.msg);
  app.noteResponse(row);
  app.foldIntoStore(dir, msg);
  if (dir === 'client->agent') {
    peer.noteUsedId(msg?.id);
    noteInitialize(state, msg);
    // A response this tab (or an earlier one) already sent: that request is no longer waiting.
    if (msg !== undefined && !('method' in msg)) {
      state.asks.delete(JSON.stringify(msg.id));
      state.held.delete(JSON.stringify(msg.id));
    }
    return;
  }
  if (msg?.method === '$/cancel_request') {
    const requestId = record(msg.params)?.requestId;
    if (state.held.delete(JSON.stringify(requestId))) {
      // Withdrawn before this tab caught up: never shown.
    } else {
      const withdrawn = withdrawAsk(state, requestId);
      if (withdrawn !== undefined) {
        app.say(`the agent withdrew its ${withdrawn.method} request (id ${withdrawn.key})`);
        app.schedule();
      }
    }
  }
  if (state.replaying && msg !== undefined && typeof msg.method === 'string' && 'id' in msg)
    state.held.set(JSON.stringify(msg.id), row.msg);
  else peer.receive(row.msg);
}
