import type { ArrowStep, NoteStep, PendingSpan, SequenceDiagram, Step } from '@acp-kit/conformance/diagram';
import type { MessageRow, PromptTrace } from './analyze.ts';

/** Diagrams past this many messages get unreadable; the table still lists everything. */
export const DIAGRAM_MESSAGE_LIMIT = 120;

function wrap(text: string, width = 46): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/)) {
    if (current !== '' && current.length + word.length + 1 > width) {
      lines.push(current);
      current = word;
    } else {
      current = current === '' ? word : `${current} ${word}`;
    }
  }
  if (current !== '') lines.push(current);
  return lines;
}

/**
 * Draws a transcript as a sequence diagram with the docs' own renderer: one arrow per message,
 * each prompt's open request as a pending bar, its receipt and user message labelled with the
 * shared `messageId`, and a warning note under every message a rule flagged.
 */
export function transcriptDiagram(
  rows: readonly MessageRow[],
  prompts: readonly PromptTrace[],
): SequenceDiagram {
  const shown = rows.slice(0, DIAGRAM_MESSAGE_LIMIT);
  const promptByRequest = new Map(prompts.map((p) => [p.requestLine, p]));
  // When a reused messageId makes two prompts point at one user message, the first prompt keeps
  // it — the same choice the messages table makes (analyze.ts), so both show the same line.
  const promptByUserMessage = new Map<number, PromptTrace>();
  for (const p of prompts) {
    if (p.userMessageLine !== undefined && !promptByUserMessage.has(p.userMessageLine)) {
      promptByUserMessage.set(p.userMessageLine, p);
    }
  }
  const steps: Step[] = [];
  const pending: PendingSpan[] = [];
  for (const row of shown) {
    const to = row.from === 'client' ? 'agent' : 'client';
    const prompt = promptByRequest.get(row.line);
    const submitted = promptByUserMessage.get(row.line);
    let detail = row.detail;
    if (prompt?.messageId !== undefined) detail = `${detail} → ${prompt.messageId}`;
    if (submitted !== undefined) detail = `${detail} ← prompt line ${submitted.requestLine}`;
    const arrow: ArrowStep = {
      type: 'arrow',
      from: row.from,
      to,
      kind: row.kind === 'unknown' ? 'notification' : row.kind,
      label: `${row.line}: ${row.label}`,
      ...(detail === '' ? {} : { detail }),
      id: `line-${row.line}`,
    };
    steps.push(arrow);
    if (prompt !== undefined) {
      const answered = prompt.responseLine !== undefined && shown.some((r) => r.line === prompt.responseLine);
      pending.push({
        participant: 'client',
        from: `line-${row.line}`,
        ...(answered ? { to: `line-${prompt.responseLine}` } : {}),
      });
    }
    for (const finding of row.findings) {
      const note: NoteStep = {
        type: 'note',
        over: ['client', 'agent'],
        lines: [`⚠ ${finding.ruleId}`, ...wrap(finding.message)],
        tone: 'warning',
      };
      steps.push(note);
    }
  }
  if (rows.length > shown.length) {
    steps.push({ type: 'divider', label: `${rows.length - shown.length} more messages in the table` });
  }
  return {
    id: 'playground-transcript',
    title: 'The transcript as a sequence diagram',
    summary: `${rows.length} messages between the client and the agent, drawn in transcript order.`,
    participants: [
      { id: 'client', label: 'Client' },
      { id: 'agent', label: 'Agent' },
    ],
    steps,
    pending,
  };
}
