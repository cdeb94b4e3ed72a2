import { describe, expect, it } from 'vitest';
import { LogFollower } from '../../src/agent/delivery/log-follower.js';
import { HistoryStoreError } from '../../src/history/errors.js';
import { MemorySessionLog } from '../../src/history/memory-session-log.js';
import type { LogEntry, LogListener, LogSubscription, SessionLog } from '../../src/history/session-log.js';

const SESSION = 'sess_follow_again';

const chunk = (text: string) =>
  ({
    update: { sessionUpdate: 'agent_message_chunk', messageId: 'msg_a', content: { type: 'text', text } },
  }) as unknown as { update: LogEntry['update'] };

/** A memory log whose live subscriptions the test can fail (as a broken store would). */
function breakableLog() {
  const log = new MemorySessionLog();
  const live: { listener: LogListener; subscription: LogSubscription }[] = [];
  const breakable = new Proxy(log, {
    get(target, key) {
      if (key === 'subscribe') {
        return (sessionId: string, afterSeq: number, listener: LogListener): LogSubscription => {
          const subscription = target.subscribe(sessionId, afterSeq, listener);
          live.push({ listener, subscription });
          return subscription;
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as SessionLog;
  return {
    log: breakable,
    raw: log,
    /** Ends the latest subscription with an error, as a failing store does. */
    fail(): void {
      const { listener, subscription } = live.at(-1)!;
      subscription.close();
      listener.error?.(new HistoryStoreError('corrupt', 'the store broke for a moment'));
    },
  };
}

describe('LogFollower (an agent session following its log)', () => {
  it('follows again from where it stopped after its subscription was lost: no entry appended meanwhile is skipped', async () => {
    const { log, raw, fail } = breakableLog();
    await raw.createSession({ sessionId: SESSION, cwd: '/w' });
    await raw.append(SESSION, [chunk('before')]);
    const handed: string[] = [];
    const follower = new LogFollower(log, SESSION, new AbortController().signal, {
      started: () => undefined,
      entry: (e) => handed.push((e.update as { content: { text: string } }).content.text),
      moved: () => undefined,
    });
    await follower.following();
    expect(follower.position).toBe(1);
    await raw.append(SESSION, [chunk('one')]);
    await follower.reached(2);
    expect(handed).toEqual(['one']);

    fail();
    expect(follower.lost).toBe(true);
    // Appended while nothing follows.
    await raw.append(SESSION, [chunk('two'), chunk('three')]);
    await follower.following();
    expect(follower.lost).toBe(false);
    await raw.append(SESSION, [chunk('four')]);
    await follower.reached(5);
    expect(handed).toEqual(['one', 'two', 'three', 'four']);
    expect(follower.position).toBe(5);
    follower.close();
  });
});
