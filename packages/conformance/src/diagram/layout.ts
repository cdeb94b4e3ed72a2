import type { ArrowKind, ArrowStep, DividerStep, NoteStep, SequenceDiagram } from './model.js';
import { estimateTextWidth } from './text.js';

/** Font sizes in px; the stylesheet uses the same numbers so that estimates hold. */
export const FONT = { participant: 15, label: 14, detail: 13, note: 14, legend: 13 } as const;

/** How far a lost message travels before it is crossed out; its text must fit over that part. */
export const LOST_FRACTION = 0.6;

/** Distance between the baselines of a note's lines. */
export const NOTE_LINE_HEIGHT = 19;
/** Space above a note's first line and below its last. */
export const NOTE_PADDING_Y = 7;

const MARGIN = 16;
const HEADER_HEIGHT = 34;
const MIN_COLUMN_GAP = 170;
const MIN_BOX_WIDTH = 96;
const ARROW_PADDING = 40;
const NOTE_PADDING_X = 12;
const ROW_GAP = 10;
const LEGEND_ROW_HEIGHT = 22;
const LEGEND_SAMPLE = 30;

/** A participant's column after layout. */
export interface PlacedColumn {
  readonly id: string;
  readonly label: string;
  /** x of the lifeline. */
  readonly x: number;
  readonly boxWidth: number;
}

/** An arrow with its coordinates resolved. */
export interface PlacedArrow {
  readonly step: ArrowStep;
  readonly x1: number;
  readonly x2: number;
  /** y of the line itself. */
  readonly y: number;
  /** Baseline of the label above the line. */
  readonly labelY: number;
  /** Baseline of the detail under the line. */
  readonly detailY: number;
}

/** A note box with its coordinates resolved. */
export interface PlacedNote {
  readonly step: NoteStep;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** A divider with its coordinates resolved. */
export interface PlacedDivider {
  readonly step: DividerStep;
  readonly y: number;
  readonly labelWidth: number;
}

/** A pending-request bar on a lifeline. */
export interface PlacedSpan {
  readonly x: number;
  readonly y1: number;
  readonly y2: number;
}

/** What the legend explains: one entry per line style that the diagram actually uses. */
export type LegendEntryKind = ArrowKind | 'lost' | 'pending';

/** A legend entry with its coordinates resolved. */
export interface PlacedLegendEntry {
  readonly kind: LegendEntryKind;
  readonly text: string;
  readonly x: number;
  readonly y: number;
}

/** Everything the SVG writer needs, in diagram pixels. */
export interface DiagramLayout {
  readonly width: number;
  readonly height: number;
  readonly columns: readonly PlacedColumn[];
  readonly headerY: number;
  readonly lifelineTop: number;
  readonly lifelineBottom: number;
  readonly arrows: readonly PlacedArrow[];
  readonly notes: readonly PlacedNote[];
  readonly dividers: readonly PlacedDivider[];
  readonly spans: readonly PlacedSpan[];
  readonly legend: readonly PlacedLegendEntry[];
}

const LEGEND_TEXT: Record<LegendEntryKind, string> = {
  request: 'request',
  response: 'success response',
  error: 'error response',
  notification: 'notification',
  lost: 'never arrives',
  pending: 'request pending',
};

/** Thrown when a diagram refers to something it does not define; the build fails loudly. */
export class DiagramError extends Error {
  constructor(diagramId: string, problem: string) {
    super(`diagram "${diagramId}": ${problem}`);
    this.name = 'DiagramError';
  }
}

function noteWidth(step: NoteStep): number {
  const widest = Math.max(...step.lines.map((line) => estimateTextWidth(line, FONT.note, 'sans')));
  return widest + 2 * NOTE_PADDING_X;
}

function arrowTextWidth(step: ArrowStep): number {
  const label = estimateTextWidth(step.label, FONT.label, 'mono');
  const detail = step.detail === undefined ? 0 : estimateTextWidth(step.detail, FONT.detail, 'mono');
  return Math.max(label, detail);
}

/**
 * Places participants, rows, spans and the legend. Column spacing is uniform and wide
 * enough for the longest label divided over the columns its arrow crosses, which keeps
 * the diagrams calm to read and the arithmetic easy to test.
 */
export function layoutDiagram(diagram: SequenceDiagram): DiagramLayout {
  const index = new Map<string, number>();
  diagram.participants.forEach((p, i) => {
    if (index.has(p.id)) throw new DiagramError(diagram.id, `participant "${p.id}" is defined twice`);
    index.set(p.id, i);
  });
  if (diagram.participants.length === 0) throw new DiagramError(diagram.id, 'it has no participants');
  const column = (id: string): number => {
    const i = index.get(id);
    if (i === undefined) throw new DiagramError(diagram.id, `unknown participant "${id}"`);
    return i;
  };

  const boxWidths = diagram.participants.map((p) =>
    Math.max(MIN_BOX_WIDTH, estimateTextWidth(p.label, FONT.participant, 'sans') + 24),
  );
  let gap = MIN_COLUMN_GAP;
  for (let i = 0; i + 1 < boxWidths.length; i++) {
    gap = Math.max(gap, ((boxWidths[i] ?? 0) + (boxWidths[i + 1] ?? 0)) / 2 + 24);
  }
  // Room a lone note or box needs beyond the outer lifelines.
  let leftOverhang = (boxWidths[0] ?? 0) / 2;
  let rightOverhang = (boxWidths.at(-1) ?? 0) / 2;
  const last = diagram.participants.length - 1;

  for (const step of diagram.steps) {
    if (step.type === 'arrow') {
      const span = Math.abs(column(step.from) - column(step.to));
      if (span === 0)
        throw new DiagramError(diagram.id, `arrow "${step.label}" starts and ends on one lifeline`);
      const share = step.lost === true ? LOST_FRACTION : 1;
      gap = Math.max(gap, Math.ceil((arrowTextWidth(step) + ARROW_PADDING) / share / span));
    } else if (step.type === 'note') {
      if (step.over.length === 0) throw new DiagramError(diagram.id, 'a note is over no participant');
      const cols = step.over.map(column);
      const lo = Math.min(...cols);
      const hi = Math.max(...cols);
      const width = noteWidth(step);
      if (lo === hi) {
        if (lo === 0) leftOverhang = Math.max(leftOverhang, width / 2);
        if (hi === last) rightOverhang = Math.max(rightOverhang, width / 2);
      } else {
        gap = Math.max(gap, Math.ceil((width - 2 * NOTE_PADDING_X) / (hi - lo)));
      }
    }
  }

  const firstX = MARGIN + Math.ceil(leftOverhang);
  const columns: PlacedColumn[] = diagram.participants.map((p, i) => ({
    id: p.id,
    label: p.label,
    x: firstX + i * gap,
    boxWidth: boxWidths[i] ?? MIN_BOX_WIDTH,
  }));
  const xOf = (id: string): number => columns[column(id)]?.x ?? 0;
  const contentRight = firstX + last * gap + Math.ceil(rightOverhang);
  const width = contentRight + MARGIN;

  const headerY = MARGIN;
  const lifelineTop = headerY + HEADER_HEIGHT;
  let y = lifelineTop + 14;
  const arrows: PlacedArrow[] = [];
  const notes: PlacedNote[] = [];
  const dividers: PlacedDivider[] = [];
  const arrowY = new Map<string, number>();

  for (const step of diagram.steps) {
    if (step.type === 'arrow') {
      const lineY = y + FONT.label + 8;
      arrows.push({
        step,
        x1: xOf(step.from),
        x2: xOf(step.to),
        y: lineY,
        labelY: lineY - 6,
        detailY: lineY + FONT.detail + 4,
      });
      if (step.id !== undefined) arrowY.set(step.id, lineY);
      y = lineY + (step.detail === undefined ? 8 : FONT.detail + 10) + ROW_GAP;
    } else if (step.type === 'note') {
      const xs = step.over.map(xOf);
      const lo = Math.min(...xs);
      const hi = Math.max(...xs);
      const width = Math.max(noteWidth(step), hi - lo + 2 * NOTE_PADDING_X);
      const height = (step.lines.length - 1) * NOTE_LINE_HEIGHT + FONT.note + 2 * NOTE_PADDING_Y + 4;
      notes.push({ step, x: (lo + hi) / 2 - width / 2, y: y + 2, width, height });
      y += height + 4 + ROW_GAP;
    } else {
      const labelWidth = estimateTextWidth(step.label, FONT.note, 'sans') + 20;
      dividers.push({ step, y: y + 14, labelWidth });
      y += 28 + ROW_GAP;
    }
  }
  const lifelineBottom = y + 4;

  const spans: PlacedSpan[] = (diagram.pending ?? []).map((span) => {
    const y1 = arrowY.get(span.from);
    if (y1 === undefined)
      throw new DiagramError(diagram.id, `pending span starts at unknown arrow "${span.from}"`);
    const y2 = span.to === undefined ? lifelineBottom : arrowY.get(span.to);
    if (y2 === undefined)
      throw new DiagramError(diagram.id, `pending span ends at unknown arrow "${span.to}"`);
    return { x: xOf(span.participant), y1, y2 };
  });

  const used = new Set<LegendEntryKind>();
  for (const placed of arrows) used.add(placed.step.lost === true ? 'lost' : placed.step.kind);
  if (spans.length > 0) used.add('pending');
  const order: readonly LegendEntryKind[] = [
    'request',
    'response',
    'error',
    'notification',
    'lost',
    'pending',
  ];
  const legend: PlacedLegendEntry[] = [];
  let legendX = MARGIN;
  let legendY = lifelineBottom + 24;
  for (const kind of order) {
    if (!used.has(kind)) continue;
    const text = LEGEND_TEXT[kind];
    const entryWidth = LEGEND_SAMPLE + 8 + estimateTextWidth(text, FONT.legend, 'sans') + 20;
    if (legendX > MARGIN && legendX + entryWidth > width - MARGIN) {
      legendX = MARGIN;
      legendY += LEGEND_ROW_HEIGHT;
    }
    legend.push({ kind, text, x: legendX, y: legendY });
    legendX += entryWidth;
  }
  const height = legend.length === 0 ? lifelineBottom + MARGIN : legendY + LEGEND_ROW_HEIGHT / 2 + MARGIN;

  return {
    width,
    height,
    columns,
    headerY,
    lifelineTop,
    lifelineBottom,
    arrows,
    notes,
    dividers,
    spans,
    legend,
  };
}

/** Width of the sample line drawn in front of each legend entry. */
export const LEGEND_SAMPLE_WIDTH = LEGEND_SAMPLE;
/** Height of the participant header boxes. */
export const PARTICIPANT_BOX_HEIGHT = HEADER_HEIGHT;
