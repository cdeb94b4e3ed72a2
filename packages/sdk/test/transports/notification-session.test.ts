import { describe, expect, it } from 'vitest';
import { notificationSession } from '../../src/transports/notification-session.js';

describe('notificationSession', () => {
  it('reads the session of a notification written the way this SDK writes them', () => {
    const json = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_abc","update":{"sessionUpdate":"state_update","state":"idle"}}}`;
    expect(notificationSession(json)).toBe('sess_abc');
    expect(JSON.parse(json).params.sessionId).toBe('sess_abc');
  });

  it('leaves everything else to a parse: requests, answers, other param orders, escaped strings', () => {
    for (const json of [
      '{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"sess_a"}}',
      '{"jsonrpc":"2.0","id":3,"result":{"sessionId":"sess_a"}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"update":{},"sessionId":"sess_a"}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_\\"a","update":{}}}',
      '{"jsonrpc":"2.0","method":"x\\"y","params":{"sessionId":"sess_a"}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_a',
      '{ "jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_a"}}',
    ])
      expect(notificationSession(json), json).toBeUndefined();
  });
});
