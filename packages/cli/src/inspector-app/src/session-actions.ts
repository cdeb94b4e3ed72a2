import { ConversationStore } from '@acp-kit/sdk/client';
import type { App } from './app.js';
import { byId, el } from './dom.js';
import { compareReplay } from './replay-check.js';
import { freshStore } from './state.js';

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * The session buttons: list, resume, delete, replay check, second client, cancel, close, and the
 * agent's restart (or reconnect). Each sends its request through the page's peer and says what came
 * of it; what the agent answers reaches the state through the traffic, like every tab's.
 */
export function wireSessionActions(app: App): void {
  const { state, api, peer, say, act, schedule, cwd, secondClient } = app;
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
        if (replay) state.store.forget(sessionId);
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
        if (state.replayCheck !== undefined) throw new Error('a replay check is already running');
        const check = { sessionId, store: new ConversationStore({ unstable: true }) };
        state.replayCheck = check;
        try {
          await peer.request('session/resume', { sessionId, cwd: cwd(), replayFrom: { type: 'start' } });
        } finally {
          state.replayCheck = undefined;
        }
        const result = compareReplay(state.store.snapshot(sessionId), check.store.snapshot(sessionId));
        const same = result.differences.length === 0;
        byId('replay-result').replaceChildren(
          el(
            'p',
            { class: same ? 'replay-same' : 'replay-differs' },
            same
              ? `The replay of ${sessionId} matches the live store: ${result.messages} message(s), ${result.toolCalls} tool call(s), the same IDs, no duplicated content.`
              : `The replay of ${sessionId} differs from the live store in ${result.differences.length} place(s):`,
          ),
          ...(same
            ? []
            : [el('ul', {}, ...result.differences.map((difference) => el('li', {}, difference)))]),
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
        state.store = freshStore(schedule);
        state.sessions.length = 0;
        byId<HTMLSelectElement>('session-select').replaceChildren();
        schedule();
      }),
  );
}
