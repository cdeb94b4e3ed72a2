/** A party of the protocol. */
export type Party = 'client' | 'agent';

/**
 * What a change does to the set of instances a definition accepts:
 * - `widen`: the new schema accepts an instance the old one rejects (old receivers break);
 * - `narrow`: the new schema rejects an instance the old one accepts (old senders break);
 * - `both`: each of the above;
 * - `api`: the wire is unaffected but generated code loses a name (code using it breaks);
 * - `additive`: old and new interoperate (an optional field, an open enum's new value, …);
 * - `editorial`: descriptions, titles, examples.
 */
export type Effect = 'widen' | 'narrow' | 'both' | 'api' | 'additive' | 'editorial';

/** The verdict of one change. */
export type Verdict = 'breaking' | 'additive' | 'editorial';

/** One rule's finding before the parties are known. */
export interface Finding {
  /** The definition (`$defs` key) or method (`x-methods` key) the change belongs to. */
  readonly subject: string;
  readonly subjectKind: 'definition' | 'method' | 'schema';
  /** RFC 6901 pointer into the new schema (the old one for what was removed). */
  readonly pointer: string;
  /** Short rule identifier, e.g. `enum-value-added`. */
  readonly rule: string;
  readonly effect: Effect;
  /** One line, saying what changed and why it has this effect. */
  readonly reason: string;
}

/** One change with its verdict and the parties it breaks. */
export interface Change extends Finding {
  readonly verdict: Verdict;
  /** Parties whose old implementation rejects what a new peer sends (they receive this message). */
  readonly breaksReceivers: readonly Party[];
  /** Parties whose old implementation sends what a new peer rejects (they send this message). */
  readonly breaksSenders: readonly Party[];
  /** Whether generated code that names the subject stops compiling. */
  readonly breaksCode: boolean;
  /** Who sends the subject's instances, e.g. `agent → client`, or `unknown` when no method reaches it. */
  readonly flow: string;
}

/** Which of our conventions a schema follows, so the report can say what it relied on. */
export interface SchemaConventions {
  /** Methods came from `x-methods` (ours) or from `x-method`/`x-side` on definitions (the official schema's), or none. */
  readonly methods: 'x-methods' | 'x-method' | 'none';
  readonly discriminators: boolean;
  readonly openEnums: boolean;
  readonly capabilities: boolean;
}

/** The whole comparison of two schemas. */
export interface DiffReport {
  readonly old: string;
  readonly new: string;
  readonly conventions: { readonly old: SchemaConventions; readonly new: SchemaConventions };
  /** Every change, breaking first, then additive, then editorial; within a verdict by pointer. */
  readonly changes: readonly Change[];
  readonly summary: { readonly breaking: number; readonly additive: number; readonly editorial: number };
}
