/**
 * The order a session's writes reach its log: a write is handed to the log's writer at once when
 * the session follows its log and no client is behind, and otherwise waits — and a write made
 * while an earlier one waits queues behind it, so the log has them in call order either way.
 */
import type { SessionUpdate } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { SessionDelivery } from '../../src/agent/delivery/session-delivery.js';
import { SessionAppender } from '../../src/agent/writing/session-appender.js';
import { MemorySessionLog } from '../../src/history/index.js';

const SESSION = 'sess_order';
const chunk = (text: string): SessionUpdate =>
  ({
    sessionUpdate: 'agent_message_chunk',
    messageId: 'msg_1',
    content: { type: 'text', text },
  }) as SessionUpdate;

async function makeAppender(): Promise<{
  log: MemorySessionLog;
  appender: SessionAppender;
  follow: () => void;
}> {
  const log = new MemorySessionLog();
  await log.createSession({ sessionId: SESSION, cwd: '/tmp' });
  let ready = false;
  let follow!: () => void;
  const followed = new Promise<void>((resolve) => {
    follow = () => {
      ready = true;
      resolve();
    };
  });
  const appender = new SessionAppender(
    SESSION,
    log,
    new SessionDelivery(SESSION, 100),
    { following: () => followed, ready: () => ready },
    undefined,
  );
  return { log, appender, follow };
}

const texts = async (log: MemorySessionLog): Promise<string[]> =>
  (await log.read(SESSION, {})).entries.map(
    (entry) => (entry.update as { content: { text: string } }).content.text,
  );

describe('the order of a session’s writes', () => {
  it('keeps call order when a write made once the session follows its log finds an earlier one still waiting', async () => {
    const { log, appender, follow } = await makeAppender();
    // Before the session follows its log: this write waits for it.
    const first = appender.write([{ update: chunk('first') }], true);
    // The session now follows: a write could go straight to the log, but one is still waiting.
    follow();
    const second = appender.write([{ update: chunk('second') }], true);
    const third = appender.write([{ update: chunk('third') }], true);
    await Promise.all([first, second, third]);
    expect(await texts(log)).toEqual(['first', 'second', 'third']);
  });

  it('hands a write to the log within the call once the session follows its log', async () => {
    const { log, appender, follow } = await makeAppender();
    follow();
    await appender.write([{ update: chunk('warm') }], true);
    void appender.write([{ update: chunk('now') }], true);
    // No await in between: the memory log appended it synchronously inside the call.
    expect((await log.getSession(SESSION))?.lastSeq).toBe(2);
    expect(await texts(log)).toEqual(['warm', 'now']);
  });

  it('refuses an update too large for the attached clients with -32602, as a rejected promise, not a throw', async () => {
    const { appender, follow } = await makeAppender();
    follow();
    const huge = chunk('x'.repeat(9 * 1024 * 1024));
    let thrown: unknown;
    let written: Promise<unknown> | undefined;
    try {
      written = appender.write([{ update: huge }], true);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeUndefined();
    await expect(written).rejects.toMatchObject({ code: -32602 });
  });
});
