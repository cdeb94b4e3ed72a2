import type { ConversationSnapshot, ConversationStore } from '@acp-kit/sdk/client';
import { el, pretty } from './dom.js';

/** The text of a list of content blocks: text blocks as they are, others named by type. */
function blocksText(blocks: readonly unknown[]): string {
  return blocks
    .map((block) => {
      const b = block as { type?: unknown; text?: unknown };
      return b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)}]`;
    })
    .join('');
}

function sessionView(snapshot: ConversationSnapshot): HTMLElement {
  type Item = { position: number; node: HTMLElement };
  const items: Item[] = [];
  const pending: HTMLElement[] = [];
  for (const message of snapshot.messages) {
    const node = el(
      'div',
      { class: `message ${message.kind}`, 'data-kind': message.kind, 'data-origin': message.origin },
      el(
        'span',
        { class: 'who' },
        `${message.kind.replace('_', ' ')}${message.origin === 'agent' ? '' : ` (${message.origin})`}`,
      ),
      el('span', { class: 'text' }, blocksText(message.content)),
      message.messageId === null ? undefined : el('span', { class: 'id' }, message.messageId),
    );
    if (message.position === null) pending.push(node);
    else items.push({ position: message.position, node });
  }
  for (const call of snapshot.toolCalls) {
    const f = call.fields as { title?: unknown; status?: unknown; kind?: unknown };
    items.push({
      position: call.position,
      node: el(
        'div',
        { class: 'tool-call', 'data-status': String(f.status ?? '') },
        el('span', { class: 'who' }, `tool call ${String(f.kind ?? '')}`),
        el(
          'span',
          { class: 'text' },
          `${String(f.title ?? call.toolCallId)} — ${String(f.status ?? 'pending')}`,
        ),
      ),
    });
  }
  for (const plan of snapshot.plans) {
    const entries = (plan.update as { entries?: { content?: unknown; status?: unknown }[] }).entries ?? [];
    items.push({
      position: plan.position,
      node: el(
        'div',
        { class: 'plan' },
        el('span', { class: 'who' }, 'plan'),
        el(
          'ul',
          {},
          ...entries.map((entry) => el('li', {}, `${String(entry.status)}: ${String(entry.content)}`)),
        ),
      ),
    });
  }
  for (const notice of snapshot.notices) {
    items.push({
      position: notice.position,
      node: el(
        'div',
        { class: 'notice' },
        el('span', { class: 'who' }, 'notice'),
        el('pre', {}, pretty(notice.notice)),
      ),
    });
  }
  items.sort((a, b) => a.position - b.position);
  const { state } = snapshot;
  return el(
    'section',
    { class: 'session', 'data-session-id': snapshot.sessionId },
    el('h3', {}, `session ${snapshot.sessionId}`),
    el(
      'p',
      { class: 'state' },
      `state: ${state.state}${state.stopReason ? ` (${state.stopReason})` : ''}, turns: ${state.completedTurns}, ${state.connection}`,
    ),
    ...items.map((item) => item.node),
    ...pending,
  );
}

/** Renders every session of the store, each as the SDK's ConversationStore sees it. */
export function renderConversation(store: ConversationStore, into: HTMLElement): void {
  const ids = store.sessionIds();
  into.replaceChildren(
    ...(ids.length === 0
      ? [el('p', { class: 'empty' }, 'No session yet.')]
      : ids.map((id) => sessionView(store.snapshot(id)))),
  );
}
