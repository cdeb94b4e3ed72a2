/**
 * @acp-kit/conformance/diagram — the sequence-diagram renderer the docs site draws its protocol
 * diagrams with, and the inspector (`acp-kit inspect`) its live traffic: typed diagram data
 * ({@link SequenceDiagram}), a layout, and self-contained SVG markup with classes only (the page
 * styles them) and a `<desc>` narrating the diagram for screen readers. Pure functions, no DOM and
 * no Node APIs, so a browser bundle can carry it.
 */
export { describeDiagram } from './diagram/describe.js';
export {
  type DiagramLayout,
  DiagramError,
  FONT,
  type LegendEntryKind,
  layoutDiagram,
  type PlacedArrow,
  type PlacedColumn,
  type PlacedDivider,
  type PlacedLegendEntry,
  type PlacedNote,
  type PlacedSpan,
} from './diagram/layout.js';
export type {
  ArrowKind,
  ArrowStep,
  DividerStep,
  NoteStep,
  Participant,
  PendingSpan,
  SequenceDiagram,
  Step,
} from './diagram/model.js';
export { renderSequenceDiagram } from './diagram/render-svg.js';
export { escapeXml, estimateTextWidth, type FontKind } from './diagram/text.js';
