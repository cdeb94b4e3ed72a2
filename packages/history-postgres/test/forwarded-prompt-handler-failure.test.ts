/**
 * A prompt forwarded to the session's owner whose `onPrompt` fails after inserting: the owner ends
 * the turn with idle/error -32603, and clients of both replicas see it. Two SDK agents with
 * ownership on the test server.
 */
import { afterEach, describe, expect, it } from 'vitest';
// The SDK's agent and client from its sources (the package alias maps @acp-kit/sdk to its history API).
import { Agent } from '../../sdk/src/index.js';
import { PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';
import { connectClient } from './in-process-client.js';

type Update = {
  sessionUpdate: string;
  state?: string;
  stopReason?: string;
  error?: { code: number; message: string };
};

describe('a forwarded prompt whose handler fails on the owner after inserting', () => {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  const replica = async (schema: string, name: string, seen: unknown[]) => {
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 });
    const ownership = await PostgresSessionOwnership.open(log, postgresUrl(), {
      replica: name,
      leaseMs: 60_000,
      checkEveryMs: 100,
    });
    const agent = new Agent({
      info: { name, version: '0' },
      history: ownership.log,
      ownership,
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        throw new Error(`handler on ${name} failed with secret sk-9876`);
      },
      onHandlerError: (error) => seen.push(error),
    });
    open.push(async () => {
      await ownership.close();
      await log.close();
    });
    return agent;
  };

  const connect = (agent: Agent) => connectClient<Update>(agent, open);

  const waitFor = async (predicate: () => boolean): Promise<void> => {
    while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it('ends the turn once with idle/error -32603 for every client, and the owner reports the error', async () => {
    const schema = freshSchema('fwdfail');
    const seenA: unknown[] = [];
    const seenB: unknown[] = [];
    const a = await replica(schema, 'a', seenA);
    const b = await replica(schema, 'b', seenB);
    const onA = await connect(a);
    const onB = await connect(b);
    const sessionId = await onA.client.newSession('/w');
    await onB.client.resume(sessionId, { cwd: '/w' });
    // Sent to B, run by A (the owner).
    await onB.client.prompt(sessionId, [{ type: 'text', text: 'work' }]);
    const idles = (received: Update[]) =>
      received.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason);
    await waitFor(() => idles(onA.received).length > 0 && idles(onB.received).length > 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const received of [onA.received, onB.received]) {
      expect(idles(received)).toEqual([
        expect.objectContaining({
          stopReason: 'error',
          error: { code: -32603, message: expect.stringMatching(/prompt handler failed/) },
        }),
      ]);
      expect(JSON.stringify(received)).not.toContain('sk-9876');
    }
    expect(seenA).toHaveLength(1);
    expect(seenB).toEqual([]);
  });
});
