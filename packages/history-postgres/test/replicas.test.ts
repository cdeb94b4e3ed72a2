import { afterEach, describe, expect, it } from 'vitest';
import { PostgresHistoryStore } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

const text = (value: string) => ({ type: 'text', text: value }) as const;

describe('PostgresHistoryStore shared by several processes (one pool each, like agent replicas)', () => {
  const open: PostgresHistoryStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });
  const replicas = async (count: number, options: { generateMessageId?: () => string }[] = []) => {
    const schema = freshSchema('rep');
    for (let i = 0; i < count; i++) {
      open.push(await PostgresHistoryStore.open(postgresUrl(), { schema, maxConnections: 4, ...options[i] }));
    }
    return open.slice(-count);
  };

  it('numbers concurrent appends from three replicas 1..N without gaps or repeats', async () => {
    const stores = await replicas(3);
    await stores[0]!.createSession({ sessionId: 's', cwd: '/w' });
    const perReplica = 40;
    const results = await Promise.all(
      stores.map((store, r) =>
        Promise.all(
          Array.from({ length: perReplica }, (_, i) =>
            store.appendMessage('s', {
              kind: 'agent_message',
              messageId: `r${r}-${i}`,
              content: [text(`${r}/${i}`)],
            }),
          ),
        ),
      ),
    );
    const seqs = results.flat().map((message) => message.seq);
    expect(seqs.sort((a, b) => a - b)).toEqual(Array.from({ length: 3 * perReplica }, (_, i) => i + 1));
    const page = await stores[2]!.readMessages('s', { limit: 4096 });
    expect(page.messages.map((m) => m.seq)).toEqual(seqs);
    for (const message of page.messages) {
      const [, r, i] = /^r(\d)-(\d+)$/.exec(message.messageId)!;
      expect(message.content).toEqual([text(`${r}/${i}`)]);
    }
  });

  it('lets exactly one replica retain a given message ID, however many try at once', async () => {
    const stores = await replicas(3);
    await stores[0]!.createSession({ sessionId: 's', cwd: '/w' });
    const attempts = await Promise.allSettled(
      stores.flatMap((store) =>
        [1, 2, 3].map(() =>
          store.appendMessage('s', { kind: 'user_message', messageId: 'same', content: [text('x')] }),
        ),
      ),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect(attempt.reason).toMatchObject({ code: 'duplicate_message' });
    }
    expect((await stores[1]!.readMessages('s')).messages).toHaveLength(1);
  });

  it('never issues the same message ID on two replicas, even when their generators collide', async () => {
    // Every replica's generator proposes the same sequence: only the database can keep them apart.
    const colliding = () => {
      let i = 0;
      return () => `msg_${i++}`;
    };
    const stores = await replicas(3, [
      { generateMessageId: colliding() },
      { generateMessageId: colliding() },
      { generateMessageId: colliding() },
    ]);
    await stores[0]!.createSession({ sessionId: 's', cwd: '/w' });
    const ids = (
      await Promise.all(
        stores.map((store) => Promise.all(Array.from({ length: 10 }, () => store.nextMessageId('s')))),
      )
    ).flat();
    expect(new Set(ids).size).toBe(30);
  });

  it('keeps chunks streamed from two replicas into one message in arrival order', async () => {
    const [a, b] = await replicas(2);
    await a!.createSession({ sessionId: 's', cwd: '/w' });
    await a!.appendMessage('s', { kind: 'agent_message', messageId: 'm', content: [] });
    for (let i = 0; i < 20; i++) await (i % 2 === 0 ? a! : b!).appendChunk('s', 'm', text(String(i)));
    const [message] = (await b!.readMessages('s')).messages;
    expect(message?.content).toEqual(Array.from({ length: 20 }, (_, i) => text(String(i))));
  });
});
