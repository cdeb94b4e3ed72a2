/**
 * #43, next edit suggestions over the remote transport: the official SDK's `experimental/nes`
 * client, on the official SDK's Streamable HTTP (`…/experimental/http-client`) and WebSocket
 * (`…/experimental/ws-client`) streams, drives a real `acp-kit agent --unstable --listen` process
 * through the same NES session as over stdio: a start, document events in each sync kind,
 * suggestions of each kind, accept, reject, a stale version refused, and close.
 */
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { WebSocket } from 'ws';
import { type ListeningAgent, listeningAgent, requireBuild } from '../harness.js';
import { expectOfficialNesOutcome, runOfficialNesSession } from './official-nes-session.js';

let agent: ListeningAgent;
let httpUrl: string;
beforeAll(async () => {
  requireBuild();
  agent = await listeningAgent(['--unstable']);
  httpUrl = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/.exec(agent.stderr())![1]!;
});
afterAll(async () => {
  await agent?.stop();
});

describe('the official NES client against acp-kit agent --unstable --listen', () => {
  it('over Streamable HTTP: starts, syncs a document, gets every kind of suggestion, accepts, rejects and closes', async () => {
    const stream = createHttpStream(httpUrl, { headers: { Authorization: `Bearer ${agent.token}` } });
    expectOfficialNesOutcome(await runOfficialNesSession(stream, 'interop-official-nes-http'));
  });

  it('over WebSocket: starts, syncs a document, gets every kind of suggestion, accepts, rejects and closes', async () => {
    const stream = createWebSocketStream(httpUrl.replace(/^http/, 'ws'), {
      headers: { Authorization: `Bearer ${agent.token}` },
      WebSocket: WebSocket as never,
    });
    expectOfficialNesOutcome(await runOfficialNesSession(stream, 'interop-official-nes-ws'));
  });
});
