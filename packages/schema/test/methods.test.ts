import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AgentNotificationMap,
  type AgentRequestMap,
  type ClientNotificationMap,
  type ClientRequestMap,
  type Definitions,
  METHODS,
  Method,
  type MessageMcpNotification,
  type MessageMcpRequest,
  type MessageMcpResponse,
  type PromptRequest,
  type PromptResponse,
  type ProxySuccessorNotification,
  type ProxySuccessorRequest,
  type ProxySuccessorResponse,
  type SessionNotification,
  validate,
  validateParams,
} from '../src/generated/index.js';
import { canonicalSchema } from './cases.js';

describe('methods', () => {
  it('lists exactly the methods of x-methods, in schema order', () => {
    expect(METHODS.map((m) => m.name)).toEqual(Object.keys(canonicalSchema()['x-methods'] as object));
  });

  it('marks params optional exactly where {} is valid params, and reads an omitted params as {} there only', () => {
    for (const m of METHODS) {
      const empty = validate(m.params, {});
      expect(m.paramsOptional, m.name).toBe(empty.ok);
      const omitted = validateParams(m.name, undefined);
      expect(omitted, m.name).toEqual(
        m.paramsOptional ? { ok: true, value: {} } : expect.objectContaining({ ok: false }),
      );
    }
    expect(METHODS.filter((m) => m.paramsOptional).map((m) => m.name)).toContain('session/list');
    expect(validateParams('session/list', null)).toMatchObject({ ok: false });
  });

  it('exposes wire names as constants', () => {
    expect(Method.SessionPrompt).toBe('session/prompt');
    expect(Method.CancelRequest).toBe('$/cancel_request');
  });

  it('names only definitions that exist', () => {
    const defs = Object.keys(canonicalSchema().$defs as object);
    for (const m of METHODS) {
      expect(defs).toContain(m.params);
      if (m.result !== undefined) expect(defs).toContain(m.result);
      if (m.notification !== undefined) expect(defs).toContain(m.notification.params);
    }
  });

  it('types the receiver-side maps', () => {
    expectTypeOf<AgentRequestMap['session/prompt']>().toEqualTypeOf<{
      params: PromptRequest;
      result: PromptResponse;
    }>();
    expectTypeOf<ClientNotificationMap['session/update']>().toEqualTypeOf<SessionNotification>();
    // mcp/message (unstable): a request the client handles, and its notification form the agent receives.
    // proxy/successor (unstable) goes both ways as a request and as a notification: a conductor (a
    // proxy's client) receives both forms from its proxies, a proxy both from its conductor.
    // nes/accept, nes/reject and document/* (unstable): next edit suggestion notifications.
    expectTypeOf<keyof AgentNotificationMap>().toEqualTypeOf<
      | 'session/cancel'
      | 'mcp/message'
      | 'proxy/successor'
      | '$/cancel_request'
      | 'nes/accept'
      | 'nes/reject'
      | 'document/didOpen'
      | 'document/didChange'
      | 'document/didClose'
      | 'document/didSave'
      | 'document/didFocus'
    >();
    expectTypeOf<keyof ClientRequestMap>().toEqualTypeOf<
      'session/request_permission' | 'elicitation/create' | 'mcp/message' | 'proxy/successor'
    >();
    expectTypeOf<AgentNotificationMap['mcp/message']>().toEqualTypeOf<MessageMcpNotification>();
    expectTypeOf<ClientRequestMap['mcp/message']>().toEqualTypeOf<{
      params: MessageMcpRequest;
      result: MessageMcpResponse;
    }>();
    expectTypeOf<AgentNotificationMap['proxy/successor']>().toEqualTypeOf<ProxySuccessorNotification>();
    expectTypeOf<ClientNotificationMap['proxy/successor']>().toEqualTypeOf<ProxySuccessorNotification>();
    expectTypeOf<AgentRequestMap['proxy/successor']>().toEqualTypeOf<{
      params: ProxySuccessorRequest;
      result: ProxySuccessorResponse;
    }>();
    expectTypeOf<ClientRequestMap['proxy/successor']>().toEqualTypeOf<AgentRequestMap['proxy/successor']>();
    expectTypeOf<Definitions['PromptResponse']>().toEqualTypeOf<PromptResponse>();
  });
});
