import { describe, expect, it } from 'vitest';
import { notificationHead } from '../../src/rpc/notification-head.js';
import { rawPeer } from './helpers.js';

describe('notifications sent with serialized params', () => {
  it('start with the same text JSON.stringify makes, for session/update and any other method', () => {
    for (const method of ['session/update', 'nes/accept', '_vendor/"quoted"\\method']) {
      const params = { a: [1, 'two'] };
      const line = `${notificationHead(method)}${JSON.stringify(params)}}`;
      expect(line).toBe(JSON.stringify({ jsonrpc: '2.0', method, params }));
    }
  });

  it('go on the wire as one line whether or not anyone listens to outgoing messages', async () => {
    const peer = rawPeer();
    const params = { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', n: 1 } };
    await peer.connection.sendSerializedNotification('session/update', params, JSON.stringify(params));
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'session/update', params });

    const seen: unknown[] = [];
    peer.connection.onMessage((direction, message) => {
      if (direction === 'out') seen.push(message);
    });
    const second = { ...params, update: { ...params.update, n: 2 } };
    await peer.connection.sendSerializedNotification('session/update', second, JSON.stringify(second));
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'session/update', params: second });
    // A listener is shown the message it was sent as (the params object, not its text).
    expect(seen).toEqual([{ jsonrpc: '2.0', method: 'session/update', params: second }]);
    expect((seen[0] as { params: unknown }).params).toBe(second);
  });
});
