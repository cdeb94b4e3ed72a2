// The test page: a minimal chat UI on acp-kit's browser-safe client. Bundled by the test with
// esbuild; the test drives it through window.acp and reads what it shows.
import { connectHttp, connectWebSocket } from '@acp-kit/sdk/browser';
import { Client } from '@acp-kit/sdk/client';
import { Connection } from '@acp-kit/sdk/rpc';

const conversation = document.getElementById('conversation');
const permission = document.getElementById('permission');

/** Shows the session's messages as the store holds them, one list item per message. */
function render(store, sessionId) {
  const items = store.snapshot(sessionId).messages.map((message) => {
    const item = document.createElement('li');
    item.dataset.kind = message.kind;
    const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    item.textContent = `${message.kind}: ${text}`;
    return item;
  });
  conversation.replaceChildren(...items);
}

/** Asks the person on the page: one button per option; resolves with the one clicked. */
function ask(request) {
  return new Promise((resolve) => {
    const title = document.createElement('p');
    title.textContent = request.title ?? 'Permission requested';
    const buttons = request.options.map((option) => {
      const button = document.createElement('button');
      button.dataset.optionId = option.optionId;
      button.textContent = option.name;
      button.addEventListener('click', () => {
        permission.replaceChildren();
        resolve({ outcome: { outcome: 'selected', optionId: option.optionId } });
      });
      return button;
    });
    permission.replaceChildren(title, ...buttons);
  });
}

const transportFor = (profile, url, token) =>
  profile === 'http' ? connectHttp(url, { token }) : connectWebSocket(url, { token });

const clientOver = (transport) =>
  new Client(new Connection(transport), {
    info: { name: 'browser-page', version: '0.0.0' },
    onPermission: ask,
  });

window.acp = {
  /** initialize, session/new, one prompt to its end (answering its permission request here). */
  async converse({ profile, url, token, text }) {
    const client = clientOver(await transportFor(profile, url, token));
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    client.store.subscribe(() => render(client.store, sessionId));
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text }]);
    render(client.store, sessionId);
    client.close();
    return { messageId: end.messageId, stopReason: end.stopReason };
  },
  /** Tries to connect and initialize; reports how it went, as the page saw it. */
  async attempt({ profile, url, token }) {
    try {
      const client = clientOver(await transportFor(profile, url, token));
      await client.initialize();
      client.close();
      return { ok: true };
    } catch (error) {
      return {
        ok: false,
        name: error?.name,
        code: error?.code,
        status: error?.status ?? error?.cause?.status,
        cause: error?.cause?.name,
        message: String(error?.message),
      };
    }
  },
};
