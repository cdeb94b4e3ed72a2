import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSchema } from '../src/check-schema.js';
import { miniSchema, writeTempSchema } from './helpers.js';

function fixtureWithCases(cases: Record<string, unknown>): {
  schemaPath: string;
  examplesDir: string;
  invalidDir: string;
} {
  const schemaPath = writeTempSchema(miniSchema());
  const root = dirname(schemaPath);
  for (const [path, value] of Object.entries(cases)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), JSON.stringify(value));
  }
  return { schemaPath, examplesDir: join(root, 'examples'), invalidDir: join(root, 'invalid') };
}

describe('check-schema', () => {
  it('passes when examples validate and invalid cases are rejected', () => {
    const result = checkSchema(
      fixtureWithCases({
        'examples/PromptResponse/ok.json': { messageId: 'm1' },
        'invalid/PromptResponse/null.json': { messageId: null },
      }),
    );
    expect(result).toEqual({ problems: [], examplesChecked: 1, invalidChecked: 1 });
  });

  it('locates a failing example at the offending value, naming the failing variant only', () => {
    const result = checkSchema(
      fixtureWithCases({
        'examples/SessionNotification/idle.json': {
          sessionId: 's',
          update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'bored' },
        },
      }),
    );
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ pointer: '/update/stopReason' });
    expect(result.problems[0]?.file).toMatch(/examples\/SessionNotification\/idle\.json$/);
    expect(result.problems[0]?.message).toMatch(/"end_turn".*\^_.*null/);
  });

  it('locates a missing required property at the property', () => {
    const result = checkSchema(fixtureWithCases({ 'examples/PromptResponse/empty.json': {} }));
    expect(result.problems).toEqual([expect.objectContaining({ pointer: '/messageId' })]);
  });

  it('reports an invalid case that the schema accepts', () => {
    const result = checkSchema(fixtureWithCases({ 'invalid/PromptResponse/fine.json': { messageId: 'm' } }));
    expect(result.problems).toEqual([
      expect.objectContaining({ pointer: '', message: expect.stringMatching(/accepted/) }),
    ]);
  });

  it('reports a case folder that names no definition', () => {
    const result = checkSchema(fixtureWithCases({ 'examples/Nope/x.json': {} }));
    expect(result.problems[0]?.message).toMatch(/names no definition/);
  });
});
