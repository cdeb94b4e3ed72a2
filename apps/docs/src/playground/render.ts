import type { Finding } from '@acp-kit/conformance/lint';
import { renderSequenceDiagram } from '@acp-kit/conformance/diagram';
import { analyzeTranscript, type MessageRow, type TranscriptAnalysis } from './analyze.ts';
import { type ConversationMessage, type ReconciledConversation, reconcile } from './conversation.ts';
import { transcriptDiagram } from './diagram.ts';

type Child = Node | string | null | undefined | false;

/** A tiny element builder; text always goes in as text nodes, never as markup. */
function h(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

function lineLink(line: number, label = `line ${line}`): HTMLElement {
  return h('a', { href: `#msg-${line}`, class: 'pg-line-link' }, label);
}

/** The rule's row in the published catalog (/reference/conformance-rules/). */
export function ruleHref(ruleId: string): string {
  return `/reference/conformance-rules/#rule-${ruleId}`;
}

function ruleLink(ruleId: string): HTMLElement {
  return h('a', { href: ruleHref(ruleId), class: 'pg-rule-link' }, h('code', {}, ruleId));
}

function findingItem(finding: Finding): HTMLElement {
  return h(
    'li',
    { class: 'pg-finding', 'data-rule': finding.ruleId },
    finding.line === undefined ? null : lineLink(finding.line),
    finding.line === undefined ? null : ' ',
    ruleLink(finding.ruleId),
    ` ${/[.!?]$/.test(finding.message) ? finding.message : `${finding.message}.`}`,
    finding.expected === undefined
      ? null
      : h('span', { class: 'pg-expected' }, ` Expected: ${finding.expected}.`),
    finding.actual === undefined ? null : h('span', { class: 'pg-actual' }, ` Actual: ${finding.actual}.`),
  );
}

function summary(analysis: TranscriptAnalysis): HTMLElement {
  const { lint } = analysis;
  const failedRules = lint.results.filter((r) => r.status === 'fail');
  const passed = lint.results.filter((r) => r.status === 'pass').length;
  const status = lint.failed ? 'fail' : failedRules.length > 0 ? 'warn' : 'pass';
  const verdict =
    status === 'fail'
      ? 'Breaks the prompt lifecycle rules.'
      : status === 'warn'
        ? 'Passes every mandatory rule, with advisory findings.'
        : 'Every message validates and no rule is broken.';
  return h(
    'div',
    { class: `pg-summary pg-${status}`, 'data-status': status, role: 'status' },
    h('strong', {}, verdict),
    ` ${lint.messages} messages · ${passed} rules passed · ${failedRules.length} failed · ${
      lint.results.length - passed - failedRules.length
    } not applicable`,
  );
}

function messagesTable(rows: readonly MessageRow[]): HTMLElement {
  const body = h('tbody');
  for (const row of rows) {
    const arrow = row.from === 'client' ? 'client → agent' : 'agent → client';
    body.append(
      h(
        'tr',
        {
          id: `msg-${row.line}`,
          class: row.findings.length > 0 ? 'pg-flagged' : '',
          'data-line': String(row.line),
          'data-flagged': String(row.findings.length > 0),
        },
        h('td', {}, String(row.line)),
        h('td', {}, arrow, row.t === undefined ? null : h('div', { class: 'pg-time' }, `${row.t} ms`)),
        h(
          'td',
          {},
          h('code', {}, row.label),
          row.detail === '' ? null : h('div', { class: 'pg-detail' }, row.detail),
          row.links.length === 0
            ? null
            : h(
                'div',
                { class: 'pg-links' },
                ...row.links.flatMap((link, i) => [
                  i === 0 ? null : ' · ',
                  `${link.label}: `,
                  lineLink(link.line),
                ]),
              ),
          h('details', {}, h('summary', {}, 'JSON'), h('pre', {}, h('code', {}, row.json))),
        ),
        h(
          'td',
          {},
          row.findings.length === 0
            ? h('span', { class: 'pg-ok' }, '✓ valid')
            : h('ul', { class: 'pg-row-findings' }, ...row.findings.map(findingItem)),
        ),
      ),
    );
  }
  return h(
    'table',
    { class: 'pg-messages' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', {}, 'Line'),
        h('th', {}, 'Direction'),
        h('th', {}, 'Message'),
        h('th', {}, 'Checks'),
      ),
    ),
    body,
  );
}

function contentText(content: readonly unknown[]): string {
  return content
    .map((block) => {
      const b = block as { type?: unknown; text?: unknown };
      return b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)}]`;
    })
    .join('');
}

/** Why a feed entry is not (yet) the agent's own report, in words. */
function originText(message: ConversationMessage): string {
  switch (message.origin) {
    case 'local-pending':
      return message.messageId === null
        ? 'sent, no receipt yet'
        : 'receipt only: the agent never reported this message';
    case 'local-unknown':
      return 'outcome unknown: no usable receipt';
    case 'local-failed':
      return 'rejected: nothing was inserted';
    default:
      return message.origin;
  }
}

function conversationView(conversation: ReconciledConversation): HTMLElement {
  const root = h('div', { class: 'pg-conversation' });
  if (conversation.sessions.length === 0) root.append(h('p', {}, 'No session activity to reconcile.'));
  for (const session of conversation.sessions) {
    const list = h('ol', { class: 'pg-feed' });
    for (const message of session.messages) {
      list.append(
        h(
          'li',
          {
            class: `pg-msg pg-${message.kind}`,
            'data-origin': message.origin,
            'data-message-id': message.messageId ?? '',
          },
          h('span', { class: 'pg-msg-kind' }, message.kind.replace('_message', '').replace('_', ' ')),
          h('code', {}, message.messageId ?? '(no messageId)'),
          message.origin === 'agent' ? null : h('span', { class: 'pg-origin' }, originText(message)),
          h('span', { class: 'pg-msg-text' }, contentText(message.content)),
        ),
      );
    }
    const state = session.state;
    root.append(
      h('h3', {}, `Session `, h('code', {}, session.sessionId)),
      h(
        'p',
        { class: 'pg-state' },
        `State: ${state.state}`,
        state.stopReason === null ? '' : ` (${state.stopReason})`,
      ),
      list,
    );
  }
  if (conversation.diagnostics.length > 0) {
    root.append(
      h('p', {}, 'The conversation store reported:'),
      h(
        'ul',
        {},
        ...conversation.diagnostics.map((d) =>
          h('li', {}, lineLink(d.line), ' ', h('code', {}, d.code), ` ${d.message}`),
        ),
      ),
    );
  }
  return root;
}

function rulesTable(analysis: TranscriptAnalysis): HTMLElement {
  return h(
    'table',
    { class: 'pg-rules' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Rule'), h('th', {}, 'Tier'), h('th', {}, 'Verdict'))),
    h(
      'tbody',
      {},
      ...analysis.lint.results.map((rule) =>
        h(
          'tr',
          { 'data-rule': rule.id, 'data-status': rule.status },
          h('td', {}, ruleLink(rule.id), h('div', { class: 'pg-detail' }, rule.statement)),
          h('td', {}, rule.tier),
          h(
            'td',
            {},
            rule.status === 'skip' ? `not applicable${rule.reason ? `: ${rule.reason}` : ''}` : rule.status,
          ),
        ),
      ),
    ),
  );
}

/** The containers of the playground page, one per section, that the script fills in. */
export interface PlaygroundOutput {
  readonly summary: HTMLElement;
  readonly findings: HTMLElement;
  readonly messages: HTMLElement;
  readonly conversation: HTMLElement;
  readonly diagram: HTMLElement;
  readonly rules: HTMLElement;
}

/** Elements of the playground page the script reads and fills. */
export interface PlaygroundElements {
  readonly input: HTMLTextAreaElement;
  readonly file: HTMLInputElement;
  readonly samples: readonly HTMLButtonElement[];
  readonly output: PlaygroundOutput;
}

/** Lints and renders one transcript into the page's sections. */
export function renderTranscript(text: string, output: PlaygroundOutput): void {
  for (const element of Object.values(output)) element.replaceChildren();
  // The result sections (headings included) stay hidden until there is something to show.
  output.findings.closest('.pg-results')?.toggleAttribute('hidden', text.trim() === '');
  if (text.trim() === '') {
    output.summary.append(
      h('p', { class: 'pg-empty' }, 'Paste a transcript above, open a file or load a sample.'),
    );
    return;
  }
  const analysis = analyzeTranscript(text);
  const figure = h('figure', { class: 'sequence-diagram not-content pg-diagram' });
  figure.innerHTML = renderSequenceDiagram(transcriptDiagram(analysis.rows, analysis.prompts));
  output.summary.append(summary(analysis));
  output.findings.append(
    analysis.lint.findings.length === 0
      ? h('p', {}, 'None.')
      : h('ul', { class: 'pg-findings' }, ...analysis.lint.findings.map(findingItem)),
  );
  output.messages.append(messagesTable(analysis.rows));
  output.conversation.append(conversationView(reconcile(analysis.entries)));
  output.diagram.append(figure);
  output.rules.append(rulesTable(analysis));
}
/** Wires the page: typing, opening a file and loading a sample all re-check the transcript. */
export function mountPlayground(elements: PlaygroundElements, sampleUrl: (name: string) => string): void {
  const { input, file, samples, output } = elements;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => renderTranscript(input.value, output);
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(run, 250);
  });
  file.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    if (chosen === undefined) return;
    input.value = await chosen.text();
    run();
  });
  for (const button of samples) {
    button.addEventListener('click', async () => {
      const name = button.dataset.sample ?? '';
      const response = await fetch(sampleUrl(name));
      input.value = response.ok ? await response.text() : '';
      run();
    });
  }
  run();
}
