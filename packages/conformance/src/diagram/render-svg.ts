import { describeDiagram } from './describe.js';
import {
  type DiagramLayout,
  FONT,
  LEGEND_SAMPLE_WIDTH,
  LOST_FRACTION,
  NOTE_LINE_HEIGHT,
  NOTE_PADDING_Y,
  type LegendEntryKind,
  layoutDiagram,
  PARTICIPANT_BOX_HEIGHT,
  type PlacedArrow,
} from './layout.js';
import type { SequenceDiagram } from './model.js';
import { escapeXml } from './text.js';

const HEAD_LENGTH = 9;
const HEAD_HALF_WIDTH = 4.5;

/** Rounds to one decimal so that the markup stays short and byte-for-byte stable. */
function n(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function line(x1: number, y1: number, x2: number, y2: number, cls: string): string {
  return `<line class="${cls}" x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}"/>`;
}

/** Text sized from {@link FONT} here rather than in CSS, so the layout's estimates and the drawing share one number. */
function text(x: number, y: number, cls: string, size: number, content: string, anchor = 'middle'): string {
  return `<text class="${cls}" x="${n(x)}" y="${n(y)}" font-size="${size}" text-anchor="${anchor}">${escapeXml(content)}</text>`;
}

/** A filled head for requests and notifications, an open one for responses (UML's reply). */
function arrowHead(tipX: number, y: number, direction: 1 | -1, filled: boolean, cls: string): string {
  const baseX = tipX - direction * HEAD_LENGTH;
  const points = `${n(baseX)},${n(y - HEAD_HALF_WIDTH)} ${n(tipX)},${n(y)} ${n(baseX)},${n(y + HEAD_HALF_WIDTH)}`;
  return filled
    ? `<polygon class="${cls} seq-head-filled" points="${points}"/>`
    : `<polyline class="${cls} seq-head-open" points="${points}"/>`;
}

function cross(x: number, y: number, cls: string): string {
  const s = 6;
  return `<path class="${cls}" d="M${n(x - s)} ${n(y - s)}L${n(x + s)} ${n(y + s)}M${n(x - s)} ${n(y + s)}L${n(x + s)} ${n(y - s)}"/>`;
}

function renderArrow(placed: PlacedArrow): string {
  const { step } = placed;
  const direction: 1 | -1 = placed.x2 > placed.x1 ? 1 : -1;
  // Stop short of the lifelines so pending bars and heads do not collide.
  const start = placed.x1 + direction * 5;
  const end = placed.x2 - direction * 5;
  const cls = `seq-arrow seq-${step.kind}`;
  const parts: string[] = [`<g class="${cls}${step.lost === true ? ' seq-lost' : ''}">`];
  // A lost message's text sits over the part of the line that was actually drawn, clear of the cross.
  let mid = (placed.x1 + placed.x2) / 2;
  if (step.lost === true) {
    const stop = start + (end - start) * LOST_FRACTION;
    parts.push(line(start, placed.y, stop, placed.y, 'seq-line'), cross(stop, placed.y, 'seq-cross'));
    mid = (start + stop) / 2;
  } else {
    parts.push(
      line(start, placed.y, end, placed.y, 'seq-line'),
      arrowHead(
        end,
        placed.y,
        direction,
        step.kind === 'request' || step.kind === 'notification',
        'seq-line',
      ),
    );
  }
  parts.push(text(mid, placed.labelY, 'seq-label', FONT.label, step.label));
  if (step.detail !== undefined)
    parts.push(text(mid, placed.detailY, 'seq-detail', FONT.detail, step.detail));
  parts.push('</g>');
  return parts.join('');
}

function legendSample(kind: LegendEntryKind, x: number, y: number): string {
  const end = x + LEGEND_SAMPLE_WIDTH;
  if (kind === 'pending') {
    return `<rect class="seq-pending" x="${n(end - LEGEND_SAMPLE_WIDTH / 2 - 4)}" y="${n(y - 8)}" width="8" height="16" rx="2"/>`;
  }
  if (kind === 'lost') {
    return `<g class="seq-arrow seq-response seq-lost">${line(x, y, end - 6, y, 'seq-line')}${cross(end - 6, y, 'seq-cross')}</g>`;
  }
  const filled = kind === 'request' || kind === 'notification';
  return `<g class="seq-arrow seq-${kind}">${line(x, y, end, y, 'seq-line')}${arrowHead(end, y, 1, filled, 'seq-line')}</g>`;
}

function renderLayout(layout: DiagramLayout): string[] {
  const out: string[] = [];
  for (const column of layout.columns) {
    out.push(line(column.x, layout.lifelineTop, column.x, layout.lifelineBottom, 'seq-lifeline'));
  }
  for (const span of layout.spans) {
    out.push(
      `<rect class="seq-pending" x="${n(span.x - 4)}" y="${n(span.y1)}" width="8" height="${n(span.y2 - span.y1)}" rx="2"/>`,
    );
  }
  for (const column of layout.columns) {
    const x = column.x - column.boxWidth / 2;
    out.push(
      `<rect class="seq-participant" x="${n(x)}" y="${n(layout.headerY)}" width="${n(column.boxWidth)}" height="${PARTICIPANT_BOX_HEIGHT}" rx="6"/>`,
      text(
        column.x,
        layout.headerY + PARTICIPANT_BOX_HEIGHT / 2 + FONT.participant * 0.35,
        'seq-participant-label',
        FONT.participant,
        column.label,
      ),
    );
  }
  for (const divider of layout.dividers) {
    const mid = layout.width / 2;
    out.push(
      line(16, divider.y, layout.width - 16, divider.y, 'seq-divider'),
      `<rect class="seq-divider-pill" x="${n(mid - divider.labelWidth / 2)}" y="${n(divider.y - 11)}" width="${n(divider.labelWidth)}" height="22" rx="11"/>`,
      text(mid, divider.y + FONT.note * 0.35, 'seq-divider-label', FONT.note, divider.step.label),
    );
  }
  for (const note of layout.notes) {
    const tone = note.step.tone === 'warning' ? ' seq-note-warning' : '';
    out.push(
      `<g class="seq-note${tone}"><rect x="${n(note.x)}" y="${n(note.y)}" width="${n(note.width)}" height="${n(note.height)}" rx="4"/>`,
    );
    note.step.lines.forEach((content, i) => {
      out.push(
        text(
          note.x + note.width / 2,
          note.y + NOTE_PADDING_Y + FONT.note + i * NOTE_LINE_HEIGHT,
          'seq-note-text',
          FONT.note,
          content,
        ),
      );
    });
    out.push('</g>');
  }
  for (const arrow of layout.arrows) out.push(renderArrow(arrow));
  for (const entry of layout.legend) {
    out.push(
      legendSample(entry.kind, entry.x, entry.y),
      text(
        entry.x + LEGEND_SAMPLE_WIDTH + 8,
        entry.y + FONT.legend * 0.35,
        'seq-legend',
        FONT.legend,
        entry.text,
        'start',
      ),
    );
  }
  return out;
}

/**
 * Renders a sequence diagram as a self-contained `<svg>` string. Colours come from CSS
 * (classes plus `currentColor`), so the same markup follows the site's light and dark themes.
 */
export function renderSequenceDiagram(diagram: SequenceDiagram): string {
  const layout = layoutDiagram(diagram);
  const titleId = `${diagram.id}-title`;
  const descId = `${diagram.id}-desc`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="seq" id="${escapeXml(diagram.id)}"`,
    ` viewBox="0 0 ${n(layout.width)} ${n(layout.height)}" width="${n(layout.width)}" height="${n(layout.height)}"`,
    ` role="img" aria-labelledby="${escapeXml(titleId)} ${escapeXml(descId)}">`,
    `<title id="${escapeXml(titleId)}">${escapeXml(diagram.title)}</title>`,
    `<desc id="${escapeXml(descId)}">${escapeXml(describeDiagram(diagram))}</desc>`,
    ...renderLayout(layout),
    '</svg>',
  ].join('');
}
