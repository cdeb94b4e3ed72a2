/**
 * `session/fork` is in v1's unstable schema too (`sessionCapabilities.fork`), so the mapping carries
 * it both ways: the capability, the request (its systemPrompt, unstable in both, carried) and the answer (its
 * options become v1 modes and configOptions, as for session/new). The real end to end — acp-factory
 * forking a session of `acp-kit agent --unstable` through the in-process codec — is
 * packages/cli/test/interop/acp-factory-fork.test.ts.
 */
import { validate as validateV2 } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { validate as validateV1 } from '../src/generated/v1/validate.js';
import {
  METHOD_MAPPING,
  v1ToV2AgentCapabilities,
  v2ToV1AgentCapabilities,
  v2ToV1ForkSessionRequest,
  v2ToV1ForkSessionResponse,
} from '../src/generated/compat/converters.js';

describe('session/fork across v1 and v2 (unstable in both)', () => {
  it('maps the capability both ways, and only when it is there', () => {
    const v1 = v2ToV1AgentCapabilities({ session: { fork: {} } });
    expect(v1.sessionCapabilities?.fork).toEqual({});
    expect(validateV1('AgentCapabilities', v1).ok).toBe(true);
    expect(v2ToV1AgentCapabilities({ session: {} }).sessionCapabilities?.fork).toBeUndefined();
    expect(v1ToV2AgentCapabilities({ sessionCapabilities: { fork: {} } }).session?.fork).toEqual({});
    expect(v1ToV2AgentCapabilities({ sessionCapabilities: { fork: null } }).session?.fork).toBeUndefined();
  });

  it('routes the method with its params and result conversions', () => {
    expect(METHOD_MAPPING.find((row) => row.v2 === 'session/fork')).toMatchObject({
      v1: 'session/fork',
      params: 'ForkSessionRequest',
      result: 'ForkSessionResponse',
    });
  });

  it('carries the systemPrompt (unstable in both), and turns a mode option into v1 modes', () => {
    const systemPrompt = { mode: 'append', content: [{ type: 'text' as const, text: 'Be brief.' }] };
    const request = v2ToV1ForkSessionRequest({ sessionId: 'sess_1', cwd: '/repo', systemPrompt });
    expect(request).toEqual({ sessionId: 'sess_1', cwd: '/repo', systemPrompt });
    expect(validateV1('ForkSessionRequest', request).ok).toBe(true);
    const response = v2ToV1ForkSessionResponse({
      sessionId: 'sess_2',
      configOptions: [
        {
          type: 'select',
          configId: 'mode',
          name: 'Mode',
          category: 'mode',
          currentValue: 'code',
          options: [{ value: 'code', name: 'Code' }],
        },
      ],
      availableCommands: [],
    });
    expect(response).toMatchObject({ sessionId: 'sess_2', modes: { currentModeId: 'code' } });
    expect(validateV1('ForkSessionResponse', response).ok).toBe(true);
    expect(validateV2('ForkSessionResponse', { sessionId: 'sess_2' }).ok).toBe(true);
  });

  it('refuses a v1 fork request without cwd', () => {
    expect(validateV1('ForkSessionRequest', { sessionId: 'sess_1' }).ok).toBe(false);
  });
});
