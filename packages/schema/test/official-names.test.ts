import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  CancelSessionNotification,
  ContentChunk,
  PermissionOutcome,
  RequestPermissionOutcome,
  SessionNotification,
  UpdateSessionNotification,
  UserMessageChunk,
} from '../src/generated/index.js';

const names = JSON.parse(
  readFileSync(new URL('../../../schema/parity/names.json', import.meta.url), 'utf8'),
) as {
  counterparts: Record<string, { ours: string | null }>;
};
const schema = JSON.parse(
  readFileSync(new URL('../../../schema/v2/schema.json', import.meta.url), 'utf8'),
) as {
  $defs: Record<string, unknown>;
};
const generated = readFileSync(new URL('../src/generated/official-names.ts', import.meta.url), 'utf8');

describe('official SDK names', () => {
  it('are the same types as ours', () => {
    expectTypeOf<UpdateSessionNotification>().toEqualTypeOf<SessionNotification>();
    expectTypeOf<RequestPermissionOutcome>().toEqualTypeOf<PermissionOutcome>();
    expectTypeOf<ContentChunk>().toEqualTypeOf<UserMessageChunk>();
    expectTypeOf<CancelSessionNotification>().not.toBeAny();
  });

  it('every official name with a counterpart of another name is exported, marked @deprecated', () => {
    const expected = Object.entries(names.counterparts).filter(
      ([official, { ours }]) => ours !== null && official !== ours && !(official in schema.$defs),
    );
    expect(expected.length).toBeGreaterThan(20);
    for (const [official, { ours }] of expected)
      expect(generated).toContain(
        `@deprecated Use {@link ${ours}}, acp-kit's name for it.\n */\nexport type ${official} = ${ours};`,
      );
  });
});
