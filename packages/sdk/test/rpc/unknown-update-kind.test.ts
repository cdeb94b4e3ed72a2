import { describe, expect, it } from 'vitest';
import { schemaValidator } from '../../src/codec/index.js';

describe('schemaValidator and open update kinds', () => {
  it('passes a session/update whose only fault is an update kind the schema does not know', () => {
    const params = {
      sessionId: 'sess_1',
      update: { sessionUpdate: 'available_commands_update', availableCommands: [] },
    };
    expect(schemaValidator.params('session/update', params)).toEqual({ ok: true, value: params });
  });

  it('still rejects a known update kind with a missing field', () => {
    const result = schemaValidator.params('session/update', {
      sessionId: 'sess_1',
      update: { sessionUpdate: 'user_message' },
    });
    expect(result).toMatchObject({ ok: false, issues: [{ pointer: '/update/messageId' }] });
  });

  it('still rejects an unknown update kind when other fields are wrong too', () => {
    const result = schemaValidator.params('session/update', {
      sessionId: 42,
      update: { sessionUpdate: 'whatever' },
    });
    expect(result?.ok).toBe(false);
  });

  it('still rejects an update kind that is not a string', () => {
    expect(
      schemaValidator.params('session/update', { sessionId: 's', update: { sessionUpdate: 7 } })?.ok,
    ).toBe(false);
  });
});
