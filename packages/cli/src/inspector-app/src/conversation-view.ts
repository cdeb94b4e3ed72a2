import type { ConversationSnapshot, ConversationStore, TerminalView } from '@acp-kit/sdk/client';
import { el, pretty } from './dom.js';
import { stateLine, stateTone } from './views.js';
import { type ListItem, VirtualList } from './virtual-list.js';

type Fields = Readonly<Record<string, unknown>>;

const record = (value: unknown): Fields | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

/** The text of a list of content blocks: text blocks as they are, others named by type. */
export function blocksText(blocks: readonly unknown[]): string {
  return blocks
    .map((block) => {
      const b = record(block) ?? {};
      if (b.type === 'text' && typeof b.text === 'string') return b.text;
      if (b.type === 'resource_link') return `[link ${str(b.uri)}]`;
      return `[${str(b.type)}]`;
    })
    .join('');
}

/** The most characters of one text shown; a hostile agent's 4 MB message must not stall the page. */
const TEXT_LIMIT = 100_000;

/** `text`, cut at {@link TEXT_LIMIT} with the number of characters left out. */
export function bounded(text: string): string {
  return text.length > TEXT_LIMIT
    ? `${text.slice(0, TEXT_LIMIT)}… (${text.length - TEXT_LIMIT} more characters)`
    : text;
}

/** One change of a `diff` tool call content: its operation and path, then the old and new text line by line. */
function diffChangeView(change: Fields): HTMLElement {
  const linesOf = (text: unknown): string[] => {
    if (typeof text !== 'string') return [];
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines;
  };
  return el(
    'div',
    { class: 'diff-change', 'data-operation': str(change.operation) },
    el('p', { class: 'diff-path' }, `${str(change.operation)} ${str(change.path)}`),
    el(
      'pre',
      { class: 'diff-text' },
      ...linesOf(change.oldText).map((line) => el('span', { class: 'del' }, `- ${line}\n`)),
      ...linesOf(change.newText).map((line) => el('span', { class: 'add' }, `+ ${line}\n`)),
    ),
  );
}

function terminalView(terminal: TerminalView | undefined, id: string): HTMLElement {
  if (terminal === undefined)
    return el('div', { class: 'terminal', 'data-terminal-id': id }, `terminal ${id} (not reported yet)`);
  const f = terminal.fields;
  const exit = record(f.exitStatus);
  return el(
    'div',
    { class: 'terminal', 'data-terminal-id': id },
    el('p', { class: 'terminal-command' }, `$ ${str(f.command)}${f.cwd ? `  (in ${str(f.cwd)})` : ''}`),
    el('pre', { class: 'terminal-output' }, terminal.output ?? ''),
    exit === undefined
      ? el('p', { class: 'terminal-exit running' }, 'running')
      : el(
          'p',
          { class: 'terminal-exit' },
          `exited${exit.exitCode === undefined || exit.exitCode === null ? '' : ` with code ${str(exit.exitCode)}`}${exit.signal ? ` (signal ${str(exit.signal)})` : ''}`,
        ),
  );
}

/** What a tool call produced: content blocks, diffs, and the terminals it names (their output inline). */
function toolContentView(content: unknown, terminals: Map<string, TerminalView>, shown: Set<string>): Node[] {
  return list(content).map((item) => {
    const c = record(item) ?? {};
    if (c.type === 'content') return el('div', { class: 'tool-content' }, blocksText([c.content]));
    if (c.type === 'diff')
      return el(
        'div',
        { class: 'diff' },
        ...list(c.changes).map((change) => diffChangeView(record(change) ?? {})),
      );
    if (c.type === 'terminal') {
      const id = str(c.terminalId);
      shown.add(id);
      return terminalView(terminals.get(id), id);
    }
    return el('pre', { class: 'tool-content unknown' }, pretty(c));
  });
}

function planView(update: Fields): HTMLElement[] {
  const plan = record(update.plan) ?? {};
  if (plan.type === 'items')
    return [
      el(
        'ul',
        {},
        ...list(plan.entries).map((entry) => {
          const e = record(entry) ?? {};
          return el('li', { 'data-status': str(e.status) }, `${str(e.status)}: ${str(e.content)}`);
        }),
      ),
    ];
  if (plan.type === 'markdown') return [el('pre', { class: 'plan-markdown' }, str(plan.content))];
  if (plan.type === 'file') return [el('p', {}, `plan file ${str(plan.uri)}`)];
  return [el('pre', {}, pretty(update))];
}

function usageText(snapshot: ConversationSnapshot): string | undefined {
  const parts: string[] = [];
  const turn = snapshot.state.usage as Fields | null;
  if (turn) parts.push(`last turn: ${str(turn.inputTokens)} in, ${str(turn.outputTokens)} out tokens`);
  const context = snapshot.contextUsage;
  if (context) {
    parts.push(`context: ${str(context.used)} of ${str(context.size)} tokens`);
    const cost = record(context.cost);
    if (cost) parts.push(`cost ${str(cost.amount)} ${str(cost.currency)}`);
  }
  return parts.length === 0 ? undefined : parts.join(' · ');
}

const ORIGIN_LABEL: Record<string, string> = {
  'local-pending': 'pending: awaiting the receipt',
  'local-unknown': 'outcome unknown: the connection was lost',
  'local-failed': 'refused by the agent',
};

/** One message of the feed: who sent it (and, for the page's own, how its submission stands), its text and ID. */
function messageView(message: ConversationSnapshot['messages'][number]): HTMLElement {
  const kind = message.kind.replace('_', ' ');
  return el(
    'div',
    {
      class: `message ${message.kind} ${message.origin}`,
      'data-kind': message.kind,
      'data-origin': message.origin,
      'data-message-id': message.messageId ?? undefined,
    },
    el(
      'span',
      { class: 'who' },
      message.origin === 'agent' ? kind : `${kind} (${ORIGIN_LABEL[message.origin]})`,
    ),
    el('span', { class: 'text' }, bounded(blocksText(message.content))),
    message.messageId === null ? undefined : el('span', { class: 'id' }, message.messageId),
    message.origin === 'local-failed' && message.error instanceof Error
      ? el('span', { class: 'error' }, message.error.message)
      : undefined,
  );
}

/** One tool call of the feed, with its content (a terminal it names shown inside it). */
function toolCallView(
  call: ConversationSnapshot['toolCalls'][number],
  terminals: Map<string, ConversationSnapshot['terminals'][number]>,
): HTMLElement {
  const f = call.fields;
  return el(
    'div',
    { class: 'tool-call', 'data-status': str(f.status), 'data-tool-call-id': call.toolCallId },
    el('span', { class: 'who' }, `tool call${f.kind ? ` (${str(f.kind)})` : ''}`),
    el('span', { class: 'title' }, str(f.title ?? call.toolCallId)),
    el('span', { class: 'status' }, str(f.status ?? 'pending')),
    ...toolContentView(f.content, terminals, new Set()),
  );
}

/** The entries of a session's feed in feed order, each rendered on demand (see {@link VirtualList}). */
function feedItems(snapshot: ConversationSnapshot): ListItem[] {
  type Positioned = ListItem & { position: number };
  const items: Positioned[] = [];
  const pending: ListItem[] = [];
  const terminals = new Map(snapshot.terminals.map((terminal) => [terminal.terminalId, terminal]));
  /** Terminals a tool call names: shown inside it, not listed again on their own. */
  const inCalls = new Set<string>();
  for (const call of snapshot.toolCalls)
    for (const item of list(call.fields.content)) {
      const c = record(item);
      if (c?.type === 'terminal') inCalls.add(str(c.terminalId));
    }
  for (const message of snapshot.messages) {
    const item: ListItem = {
      key: message.key,
      deps: [message],
      render: () => messageView(message),
    };
    if (message.position === null) pending.push(item);
    else items.push({ ...item, position: message.position });
  }
  for (const call of snapshot.toolCalls) {
    const named = list(call.fields.content)
      .map((item) => record(item))
      .filter((c) => c?.type === 'terminal')
      .map((c) => terminals.get(str(c?.terminalId)));
    items.push({
      key: `tool:${call.toolCallId}`,
      deps: [call, ...named],
      position: call.position,
      render: () => toolCallView(call, terminals),
    });
  }
  for (const terminal of snapshot.terminals) {
    if (inCalls.has(terminal.terminalId)) continue;
    items.push({
      key: `terminal:${terminal.terminalId}`,
      deps: [terminal],
      position: terminal.position,
      render: () =>
        el(
          'div',
          { class: 'display-terminal' },
          el('span', { class: 'who' }, 'terminal'),
          terminalView(terminal, terminal.terminalId),
        ),
    });
  }
  for (const plan of snapshot.plans)
    items.push({
      key: `plan:${plan.planId}`,
      deps: [plan],
      position: plan.position,
      render: () =>
        el(
          'div',
          { class: 'plan', 'data-plan-id': plan.planId },
          el('span', { class: 'who' }, 'plan'),
          ...planView(plan.update),
        ),
    });
  snapshot.notices.forEach((notice, i) => {
    items.push({
      key: `notice:${i}`,
      deps: [notice],
      position: notice.position,
      render: () => {
        const n = notice.notice;
        return el(
          'div',
          { class: 'notice', 'data-severity': str(n.severity) },
          el('span', { class: 'who' }, `notice (${str(n.severity)})`),
          el('span', { class: 'title' }, str(n.title)),
          n.description ? el('span', { class: 'text' }, ` ${str(n.description)}`) : undefined,
        );
      },
    });
  });
  for (const compaction of snapshot.compactions)
    items.push({
      key: `compaction:${compaction.compactionId}`,
      deps: [compaction],
      position: compaction.position,
      render: () => {
        const f = compaction.fields;
        return el(
          'div',
          { class: 'compaction', 'data-status': str(f.status) },
          el('span', { class: 'who' }, `compaction ${compaction.compactionId}`),
          el('span', { class: 'status' }, str(f.status)),
          compaction.summary === null
            ? undefined
            : el('span', { class: 'text' }, blocksText(compaction.summary)),
          f.error ? el('span', { class: 'error' }, str(f.error)) : undefined,
        );
      },
    });
  for (const child of snapshot.subagents)
    items.push({
      key: `subagent:${child.sessionId}`,
      deps: [child],
      position: child.position,
      render: () =>
        el(
          'div',
          { class: 'subagent', 'data-child-session': child.sessionId },
          el('span', { class: 'who' }, 'subagent'),
          el(
            'span',
            { class: 'title' },
            `${str(child.fields.title ?? child.sessionId)} (session ${child.sessionId})`,
          ),
        ),
    });
  for (const other of snapshot.otherUpdates)
    items.push({
      key: `other:${other.sessionUpdate}`,
      deps: [other],
      position: other.position,
      render: () =>
        el(
          'div',
          { class: 'other-update' },
          el('span', { class: 'who' }, `${other.sessionUpdate} (a kind this client does not know)`),
          el('pre', {}, pretty(other.update)),
        ),
    });
  items.sort((a, b) => a.position - b.position);
  return [...items, ...pending];
}

/** The session's heading lines: title, state, session info, usage, background work, message count. */
function sessionHeader(snapshot: ConversationSnapshot): HTMLElement[] {
  const { state } = snapshot;
  const info = snapshot.sessionInfo;
  const usage = usageText(snapshot);
  const background = snapshot.background;
  return [
    el(
      'h3',
      {},
      info?.title ? `${str(info.title)} — session ${snapshot.sessionId}` : `session ${snapshot.sessionId}`,
    ),
    el('p', { class: 'state', 'data-tone': stateTone(state) }, stateLine(state)),
    el('p', { class: 'count' }, `${snapshot.messages.length} message(s)`),
    ...(info === null
      ? []
      : [
          el(
            'p',
            { class: 'session-info' },
            `session info: ${info.title ? `title "${str(info.title)}"` : 'no title'}${info.updatedAt ? `, updated ${str(info.updatedAt)}` : ''}`,
          ),
        ]),
    ...(usage === undefined ? [] : [el('p', { class: 'usage' }, usage)]),
    ...(background === null || background.length === 0
      ? []
      : [
          el(
            'p',
            { class: 'background' },
            `running in the background: ${background.map((work) => `${work.type} ${str(work.id)}`).join(', ')}`,
          ),
        ]),
  ];
}

interface SessionPane {
  section: HTMLElement;
  header: HTMLElement;
  list: VirtualList;
  snapshot: ConversationSnapshot | undefined;
}

/**
 * Every session of the store, each as the SDK's ConversationStore sees it: a heading and its feed
 * in a virtualized list. A session whose snapshot did not change is not touched.
 */
export class ConversationView {
  readonly #into: HTMLElement;
  readonly #panes = new Map<string, SessionPane>();

  constructor(into: HTMLElement) {
    this.#into = into;
  }

  render(store: ConversationStore): void {
    const ids = store.sessionIds();
    for (const [id, pane] of this.#panes)
      if (!ids.includes(id)) {
        pane.section.remove();
        this.#panes.delete(id);
      }
    if (ids.length === 0) {
      this.#into.replaceChildren(el('p', { class: 'empty' }, 'No session yet.'));
      return;
    }
    const sections: HTMLElement[] = [];
    for (const id of ids) {
      let pane = this.#panes.get(id);
      if (pane === undefined) {
        const header = el('div', { class: 'session-header' });
        const feed = el('div', { class: 'feed' });
        pane = {
          section: el('section', { class: 'session', 'data-session-id': id }, header, feed),
          header,
          list: new VirtualList(feed, feed, () => el('div', { class: 'spacer', 'aria-hidden': 'true' }), 60),
          snapshot: undefined,
        };
        this.#panes.set(id, pane);
      }
      sections.push(pane.section);
      const snapshot = store.snapshot(id);
      if (snapshot === pane.snapshot) continue;
      pane.snapshot = snapshot;
      pane.header.replaceChildren(...sessionHeader(snapshot));
      pane.list.update(feedItems(snapshot));
    }
    const children = this.#into.children;
    if (children.length !== sections.length || sections.some((section, i) => children[i] !== section))
      this.#into.replaceChildren(...sections);
  }
}
