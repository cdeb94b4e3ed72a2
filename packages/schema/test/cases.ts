import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CaseFile, listCases } from '@acp-kit/codegen';

/** The canonical v2 schema folder at the repository root. */
export const SCHEMA_DIR = fileURLToPath(new URL('../../../schema/v2/', import.meta.url));
export const SCHEMA_FILE = `${SCHEMA_DIR}schema.json`;

/** A case file with its parsed contents and a short label for test names. */
export interface LoadedCase extends CaseFile {
  readonly label: string;
  readonly text: string;
  readonly value: unknown;
}

function load(kind: 'examples' | 'invalid'): LoadedCase[] {
  return listCases(`${SCHEMA_DIR}${kind}`).map((c) => {
    const text = readFileSync(c.path, 'utf8');
    return { ...c, label: c.path.slice(SCHEMA_DIR.length), text, value: JSON.parse(text) as unknown };
  });
}

/** Every `schema/v2/examples/<Definition>/<case>.json`. */
export const EXAMPLES = load('examples');
/** Every `schema/v2/invalid/<Definition>/<case>.json`. */
export const INVALID = load('invalid');

/** The canonical schema, parsed. */
export function canonicalSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
}
