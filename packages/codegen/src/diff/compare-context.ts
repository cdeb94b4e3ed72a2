import { escapePointerToken } from '../json.js';
import type { Effect, Finding } from './change.js';
import type { SchemaView } from './schema-view.js';

/** Where the comparison is, and where findings go. */
export interface CompareContext {
  readonly old: SchemaView;
  readonly new: SchemaView;
  readonly subject: string;
  readonly findings: Finding[];
  /** Pairs of referenced definitions already compared inline (`Old→New`), against cycles. */
  readonly visited: Set<string>;
  /** Set when the subject is a union's unknown branch: its tag's `not` lists the known tags and follows them. */
  readonly unknownTag?: string;
}

export interface NodeOptions {
  /** The node is a branch of a union that keeps unknown values: added or removed values still interoperate. */
  readonly open?: boolean;
  /** The node is the root of a definition with our `x-discriminator`. */
  readonly union?: { readonly old?: string; readonly new?: string };
}

/** Records a finding about the subject at `pointer`. */
export function add(
  ctx: CompareContext,
  pointer: string,
  rule: string,
  effect: Effect,
  reason: string,
): void {
  ctx.findings.push({ subject: ctx.subject, subjectKind: 'definition', pointer, rule, effect, reason });
}

/** The pointer to a keyword or member below `pointer`. */
export function child(pointer: string, ...tokens: (string | number)[]): string {
  return pointer + tokens.map((t) => `/${escapePointerToken(String(t))}`).join('');
}
