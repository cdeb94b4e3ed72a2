import type { Finding } from '@acp-kit/conformance/lint';
import {
  type ArrowStep,
  type PendingSpan,
  renderSequenceDiagram,
  type SequenceDiagram,
  type Step,
} from '@acp-kit/conformance/diagram';
import { el } from './dom.js';
import type { TrafficRow } from './traffic.js';

/** The most messages drawn: the latest ones (a diagram of thousands is unreadable; the table has them all). */
export const DIAGRAM_LIMIT = 150;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** The second line under an arrow: the request id, and what a prompt or an update is about. */
function detailOf(row: TrafficRow): string {
  const msg = record(row.msg) ?? {};
  const parts: string[] = [];
  if ('id' in msg) parts.push(`id ${JSON.stringify(msg.id)}`);
  const update = record(record(msg.params)?.update);
  if (typeof update?.sessionUpdate === 'string') parts.push(update.sessionUpdate);
  const messageId = update?.messageId ?? record(msg.result)?.messageId;
  if (typeof messageId === 'string') parts.push(messageId);
  return parts.join(' · ');
}

function wrap(text: string, width = 60): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/)) {
    if (current !== '' && current.length + word.length + 1 > width) {
      lines.push(current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  if (current !== '') lines.push(current);
  return lines.slice(0, 4);
}

/**
 * The traffic as a sequence diagram, drawn by the docs' renderer (`@acp-kit/conformance/diagram`),
 * ending at `end` (exclusive) so that it scrolls with the traffic table:
 * one arrow per message, a pending bar from each request of the page to its answer (open while
 * unanswered), a warning note under a message that fails its schema or a lint rule, and a parse
 * error as a note where it stood.
 */
export function trafficDiagram(
  rows: readonly TrafficRow[],
  findingsOf: (row: TrafficRow) => readonly Finding[],
  end = rows.length,
): SequenceDiagram {
  // The messages up to `end` (the last one the traffic table shows), at most DIAGRAM_LIMIT of them.
  const earlier = Math.max(0, end - DIAGRAM_LIMIT);
  const shown = rows.slice(earlier, end);
  const steps: Step[] = [];
  const pending: PendingSpan[] = [];
  if (earlier > 0) steps.push({ type: 'divider', label: `${earlier} earlier messages in the traffic table` });
  const open = new Map<string, { participant: string; from: string }>();
  for (const row of shown) {
    const from = row.dir === 'client->agent' ? 'client' : 'agent';
    const to = from === 'client' ? 'agent' : 'client';
    if (row.kind === 'garbage') {
      steps.push({
        type: 'note',
        over: [from],
        lines: [`#${row.index + 1} parse error`, ...wrap(row.text.slice(0, 120))],
        tone: 'warning',
      });
      continue;
    }
    const msg = record(row.msg) ?? {};
    const id = `msg-${row.index}`;
    const arrow: ArrowStep = {
      type: 'arrow',
      from,
      to,
      kind:
        row.kind === 'request' || row.kind === 'notification' || row.kind === 'error' ? row.kind : 'response',
      label: `#${row.index + 1} ${row.method || (row.kind === 'error' ? 'error' : 'result')}`,
      id,
      ...(detailOf(row) === '' ? {} : { detail: detailOf(row) }),
    };
    steps.push(arrow);
    const key = `${row.kind === 'request' ? from : to}:${JSON.stringify(msg.id)}`;
    if (row.kind === 'request') open.set(key, { participant: from, from: id });
    else if (row.kind === 'response' || row.kind === 'error') {
      const started = open.get(key);
      if (started) {
        pending.push({ ...started, to: id });
        open.delete(key);
      }
    }
    const problems = [
      ...(row.validity === 'invalid'
        ? row.issues.map((issue) => `schema: ${issue.pointer || '/'} ${issue.message}`)
        : []),
      ...findingsOf(row).map((finding) => `${finding.ruleId}: ${finding.message}`),
    ];
    if (problems.length > 0)
      steps.push({
        type: 'note',
        over: ['client', 'agent'],
        lines: problems.flatMap((problem, i) => wrap(`${i === 0 ? '⚠ ' : ''}${problem}`)).slice(0, 6),
        tone: 'warning',
      });
  }
  for (const span of open.values()) pending.push(span);
  if (end < rows.length)
    steps.push({ type: 'divider', label: `${rows.length - end} later messages in the traffic table` });
  return {
    id: 'inspector-traffic',
    title: 'The traffic so far as a sequence diagram',
    summary: `${rows.length} messages between the inspector (the client) and the agent, drawn in the order they crossed the wire.`,
    participants: [
      { id: 'client', label: 'Client (inspector)' },
      { id: 'agent', label: 'Agent' },
    ],
    steps,
    pending,
  };
}

/**
 * Draws the diagram into `into`, parsed as XML (the renderer escapes every string an agent wrote),
 * and keeps it scrolled to the latest message while the reader is already at the bottom.
 */
export function renderDiagram(diagram: SequenceDiagram, into: HTMLElement): void {
  // Its last arrow is the last message the traffic table shows: keep that in view.
  const atBottom = true;
  if (diagram.steps.length === 0) {
    into.replaceChildren(el('p', { class: 'empty' }, 'No message yet.'));
    return;
  }
  let svg: Node;
  try {
    const parsed = new DOMParser().parseFromString(renderSequenceDiagram(diagram), 'image/svg+xml');
    svg = document.importNode(parsed.documentElement, true);
  } catch (error) {
    svg = el(
      'p',
      { class: 'error' },
      `the diagram could not be drawn: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  into.replaceChildren(svg);
  if (atBottom) into.scrollTop = into.scrollHeight;
}
