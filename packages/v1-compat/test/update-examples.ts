/**
 * One v2 update per example file of every kind the generated v2 update table lists
 * (`schema/v2/examples/<definition>/*.json`), so a kind the schema gains is covered as soon as it
 * has examples. Message IDs get a per-example suffix so no two examples touch the same message.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UPDATE_KIND_TABLE, UPDATE_KINDS, type SessionUpdate, type UpdateKind } from '@acp-kit/schema';

const EXAMPLES = fileURLToPath(new URL('../../../schema/v2/examples/', import.meta.url));

/** One example update of one kind. */
export interface UpdateExample {
  readonly kind: UpdateKind;
  /** `<definition>/<file>`. */
  readonly name: string;
  readonly update: SessionUpdate;
}

function read(kind: UpdateKind, index: number): UpdateExample[] {
  const definition = UPDATE_KIND_TABLE[kind].definition;
  const files = readdirSync(`${EXAMPLES}${definition}`).filter((f) => f.endsWith('.json'));
  if (files.length === 0) throw new Error(`no example of the v2 update kind ${kind} (${definition})`);
  return files.sort().map((file, i) => {
    const update = JSON.parse(readFileSync(`${EXAMPLES}${definition}/${file}`, 'utf8')) as SessionUpdate;
    const withId = update as { messageId?: string };
    if (typeof withId.messageId === 'string') withId.messageId = `${withId.messageId}-${index}-${i}`;
    return { kind, name: `${definition}/${file}`, update };
  });
}

/** Every example, kinds in schema order. */
export function updateExamples(): UpdateExample[] {
  return UPDATE_KINDS.flatMap((kind, index) => read(kind, index));
}
