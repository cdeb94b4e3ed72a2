import { describe, expect, it } from 'vitest';
import { isSessionNotification, validate, validateParams, validateResult } from '../src/generated/index.js';
import { INVALID } from './cases.js';

const promptResponseCases = INVALID.filter((c) => c.definition === 'PromptResponse');

describe('validation issues', () => {
  it('has PromptResponse invalid cases', () => {
    expect(promptResponseCases.length).toBeGreaterThan(0);
  });

  it.each(promptResponseCases.map((c) => [c.label, c] as const))(
    'names messageId when rejecting %s',
    (_l, c) => {
      const result = validate('PromptResponse', c.value);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.issues.some((i) => i.pointer === '/messageId' || i.message.includes('messageId'))).toBe(
        true,
      );
    },
  );

  it('rejects a prompt response whose messageId is null, expecting a string', () => {
    const result = validate('PromptResponse', { messageId: null });
    expect(result).toEqual({
      ok: false,
      issues: [expect.objectContaining({ pointer: '/messageId', keyword: 'type', expected: 'string' })],
    });
  });

  it('points a missing required property at the property itself', () => {
    const result = validateResult('session/prompt', {});
    expect(result).toEqual({
      ok: false,
      issues: [
        expect.objectContaining({
          pointer: '/messageId',
          keyword: 'required',
          expected: 'required property messageId',
        }),
      ],
    });
  });

  it('keeps a session update whose tag it does not know (v2: unknown values are not errors)', () => {
    const params = { sessionId: 's', update: { sessionUpdate: 'teleport' } };
    expect(validateParams('session/update', params)).toEqual({ ok: true, value: params });
  });

  it('points a non-string session update tag at the tag', () => {
    const result = validateParams('session/update', { sessionId: 's', update: { sessionUpdate: 7 } });
    expect(result?.ok).toBe(false);
    if (result === undefined || result.ok) return;
    expect(result.issues[0]?.pointer).toBe('/update/sessionUpdate');
  });

  it('accepts an underscore-prefixed session update tag with unknown fields', () => {
    expect(
      isSessionNotification({ sessionId: 's', update: { sessionUpdate: '_vendor/ping', extra: { a: 1 } } }),
    ).toBe(true);
  });

  it('accepts underscore-prefixed and later-version stop reasons, and names the pointer of a non-string one', () => {
    for (const stopReason of ['_paused', 'bored']) {
      const ok = { sessionId: 's', update: { sessionUpdate: 'state_update', state: 'idle', stopReason } };
      expect(isSessionNotification(ok)).toBe(true);
    }
    const bad = {
      sessionId: 's',
      update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 42 },
    };
    const result = validateParams('session/update', bad);
    if (result === undefined || result.ok) throw new Error('expected a failure');
    expect(result.issues[0]?.pointer).toBe('/update/stopReason');
  });

  it('points into a union variant when the tag is known but a field is wrong', () => {
    const bad = {
      sessionId: 's',
      update: { sessionUpdate: 'agent_message_chunk', messageId: 7, content: { type: 'text', text: '' } },
    };
    const result = validateParams('session/update', bad);
    if (result === undefined || result.ok) throw new Error('expected a failure');
    expect(result.issues[0]).toMatchObject({ pointer: '/update/messageId', expected: 'string' });
  });

  it('returns undefined for methods the schema does not define', () => {
    expect(validateParams('_vendor/method', {})).toBeUndefined();
    expect(validateResult('session/update', {})).toBeUndefined();
    expect(validateParams('constructor', {})).toBeUndefined();
  });
});
