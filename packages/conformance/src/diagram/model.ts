/**
 * The data a sequence diagram is made of. Diagrams are plain typed values so that
 * guides can define them next to the prose and the build can render them to SVG
 * without a browser, a remote service or a diagram language parser.
 */

/** One column of the diagram: a program taking part in the exchange. */
export interface Participant {
  /** Referenced by arrows and notes; never shown. */
  readonly id: string;
  /** Shown in the header box, e.g. `Client A`. */
  readonly label: string;
}

/**
 * What an arrow stands for on the wire; each kind has its own line style so that
 * the difference between a response and a notification stays visible.
 */
export type ArrowKind = 'request' | 'response' | 'error' | 'notification';

/** A JSON-RPC message travelling from one participant to another. */
export interface ArrowStep {
  readonly type: 'arrow';
  readonly from: string;
  readonly to: string;
  readonly kind: ArrowKind;
  /** First line above the arrow, usually the method or `result`. */
  readonly label: string;
  /** Optional second line under the arrow, e.g. `id: "req_1"`. */
  readonly detail?: string;
  /** The message never arrives: drawn as a line that stops at a cross. */
  readonly lost?: boolean;
  /** Lets a {@link PendingSpan} start or end at this arrow. */
  readonly id?: string;
}

/** A remark attached to one or more lifelines, such as what the agent does internally. */
export interface NoteStep {
  readonly type: 'note';
  /** Participant ids; the note spans from the leftmost to the rightmost of them. */
  readonly over: readonly string[];
  /** One entry per line; lines are not wrapped automatically. */
  readonly lines: readonly string[];
  /** `warning` marks the places where a reader could draw a wrong conclusion. */
  readonly tone?: 'info' | 'warning';
}

/** A horizontal break across all lifelines: time passes, a process restarts, a connection drops. */
export interface DividerStep {
  readonly type: 'divider';
  readonly label: string;
}

/** One row of the diagram, top to bottom in time order. */
export type Step = ArrowStep | NoteStep | DividerStep;

/** A bar on a lifeline showing that a request is outstanding between two arrows. */
export interface PendingSpan {
  readonly participant: string;
  /** Id of the arrow where the span starts (usually the request). */
  readonly from: string;
  /** Id of the arrow where the span ends (usually the response); omitted means "still open". */
  readonly to?: string;
}

/** A complete sequence diagram, ready to be laid out and rendered. */
export interface SequenceDiagram {
  /** Stable id used for the SVG element ids; unique on a page. */
  readonly id: string;
  /** Short title, used as the SVG `<title>`. */
  readonly title: string;
  /** One or two sentences saying what the diagram shows; starts the SVG `<desc>`. */
  readonly summary: string;
  readonly participants: readonly Participant[];
  readonly steps: readonly Step[];
  readonly pending?: readonly PendingSpan[];
}
