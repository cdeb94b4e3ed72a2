import type { App } from './app.js';
import { byId } from './dom.js';
import { RpcError } from './peer.js';
import { record } from './record.js';
import { commandsOf } from './session-controls.js';
import { localHelp } from './views.js';

/**
 * The prompt box: Enter sends (Shift+Enter is a new line; the palette, listening first, takes
 * Enter while it is open); the prompt shows at once as pending and is resolved by the agent's
 * receipt, or rejected by its error. `/help` where the agent offers no such command lists the
 * session's commands here instead of sending it.
 */
export function wirePromptForm(app: App): void {
  const { state, peer, say, act, schedule } = app;
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
}
