/**
 * The subagent guard is a growth seam: every client-to-agent method of the canonical schema whose
 * params name a session is classified as a mutation a child refuses (`CHILD_MUTATIONS`) or as one
 * it takes like any session (`CHILD_UNGUARDED`). A method added to the schema fails here until it
 * is put in one of them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHILD_MUTATIONS, CHILD_UNGUARDED } from '../../src/agent/sessions/subagents.js';

interface Schema {
  'x-methods': Record<string, { direction: string; params?: string }>;
  $defs: Record<string, { properties?: Record<string, unknown> }>;
}
const schema = JSON.parse(
  readFileSync(new URL('../../../../schema/v2/schema.json', import.meta.url), 'utf8'),
) as Schema;

describe('the subagent guard’s method lists', () => {
  it('classify every client-to-agent method that names a session, and nothing twice', () => {
    const naming = Object.entries(schema['x-methods'])
      .filter(([, m]) => m.direction === 'client_to_agent' && m.params !== undefined)
      .filter(([, m]) => schema.$defs[m.params!]?.properties?.sessionId !== undefined)
      .map(([name]) => name);
    expect(naming.length).toBeGreaterThan(8);
    const unclassified = naming.filter((name) => !CHILD_MUTATIONS.has(name) && !CHILD_UNGUARDED.has(name));
    expect(unclassified).toEqual([]);
    expect([...CHILD_MUTATIONS].filter((name) => CHILD_UNGUARDED.has(name))).toEqual([]);
    // Every listed name is a method of the schema.
    const stale = [...CHILD_MUTATIONS, ...CHILD_UNGUARDED].filter(
      (name) => schema['x-methods'][name] === undefined,
    );
    expect(stale).toEqual([]);
  });
});
