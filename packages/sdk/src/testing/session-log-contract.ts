import assert from 'node:assert/strict';
import type { SessionUpdate } from '@acp-kit/schema';
import { HistoryStoreError, type HistoryStoreErrorCode } from '../history/errors.js';
import type { LogEntry, NewLogEntry, SessionLog } from '../history/session-log.js';

/** The test functions the suite registers its cases with (vitest, jest and `node:test` all fit). */
export interface ContractTestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
}

/** Options the suite may pass when it asks for a log. */
export interface SessionLogContractOptions {
  /** Deterministic message ID generator, to prove issued IDs are never handed out twice. */
  readonly generateMessageId?: () => string;
}

/** How the suite gets instances of the implementation under test. */
export interface SessionLogContractHooks {
  /** A fresh, empty log. The suite closes it. */
  readonly makeLog: (options?: SessionLogContractOptions) => Promise<SessionLog> | SessionLog;
  /**
   * For persistent logs: closes `log` and opens the same storage again. When given, the suite also
   * checks that sessions, entries, claims and issued IDs survive a restart.
   */
  readonly reopen?: (log: SessionLog, options?: SessionLogContractOptions) => Promise<SessionLog>;
}

const chunk = (messageId: string, text: string): SessionUpdate =>
  ({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } }) as SessionUpdate;

const opens = (kind: 'user_message' | 'agent_message', messageId: string, text = ''): NewLogEntry => ({
  update: {
    sessionUpdate: kind,
    messageId,
    content: text ? [{ type: 'text', text }] : [],
  } as SessionUpdate,
  claim: { kind, messageId },
});

const state = (value: 'running' | 'idle'): SessionUpdate =>
  ({ sessionUpdate: 'state_update', state: value }) as SessionUpdate;

async function failsWith(promise: Promise<unknown>, code: HistoryStoreErrorCode): Promise<HistoryStoreError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof HistoryStoreError, `expected a HistoryStoreError, got ${String(error)}`);
    assert.equal(error.code, code);
    return error;
  }
  assert.fail(`expected the call to fail with ${code}`);
}

/** Collects a subscription's entries; `until(n)` resolves once `n` have arrived. */
function collector(log: SessionLog, sessionId: string, afterSeq: number) {
  const seen: LogEntry[] = [];
  let failure: unknown;
  const waiters: { n: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  const settle = () => {
    for (const w of [...waiters]) {
      if (failure !== undefined) w.reject(failure);
      else if (seen.length >= w.n) w.resolve();
      else continue;
      waiters.splice(waiters.indexOf(w), 1);
    }
  };
  const subscription = log.subscribe(sessionId, afterSeq, {
    entries(batch) {
      seen.push(...batch);
      settle();
    },
    error(error) {
      failure = error;
      settle();
    },
  });
  return {
    seen,
    subscription,
    get failure() {
      return failure;
    },
    until(n: number, ms = 5000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out with ${seen.length} of ${n} entries`)),
          ms,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        settle();
      });
    },
    failed(ms = 5000): Promise<unknown> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the subscription did not fail')), ms);
        waiters.push({
          n: Number.POSITIVE_INFINITY,
          resolve: () => undefined,
          reject: (e) => {
            clearTimeout(timer);
            resolve(e);
          },
        });
        settle();
      });
    },
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * Registers the {@link SessionLog} contract tests (see the contract in `session-log.ts`) for one
 * implementation. Every implementation — memory, SQLite, PostgreSQL, yours — runs the same suite:
 *
 * ```ts
 * import { describe, it } from 'vitest';
 * import { describeSessionLogContract } from '@acp-kit/sdk/testing';
 * describeSessionLogContract('MyLog', { makeLog: () => new MyLog() }, { describe, it });
 * ```
 */
export function describeSessionLogContract(
  name: string,
  hooks: SessionLogContractHooks,
  { describe, it }: ContractTestApi,
): void {
  const withLog = (
    title: string,
    body: (log: SessionLog) => Promise<void>,
    options?: SessionLogContractOptions,
  ): void => {
    it(title, async () => {
      const log = await hooks.makeLog(options);
      try {
        await body(log);
      } finally {
        await log.close();
      }
    });
  };

  describe(`${name} — SessionLog contract`, () => {
    describe('directory', () => {
      withLog('creates, reads, updates and deletes session records', async (log) => {
        const created = await log.createSession({ sessionId: 's1', cwd: '/repo', title: 'First' });
        assert.equal(created.sessionId, 's1');
        assert.equal(created.cwd, '/repo');
        assert.equal(created.title, 'First');
        assert.equal(created.config, null);
        assert.equal(created.lastSeq, 0);
        assert.equal(created.updatedAt, created.createdAt);
        assert.ok(!Number.isNaN(Date.parse(created.createdAt)));
        await failsWith(log.createSession({ sessionId: 's1', cwd: '/x' }), 'session_exists');

        const updated = await log.updateSession('s1', { title: 'Renamed', config: { mode: 'ask' } });
        assert.equal(updated.title, 'Renamed');
        assert.deepEqual(updated.config, { mode: 'ask' });
        assert.equal(updated.cwd, '/repo');
        assert.ok(updated.updatedAt >= created.updatedAt);
        assert.deepEqual(await log.getSession('s1'), updated);
        await failsWith(log.updateSession('nope', { title: 't' }), 'session_not_found');

        const generated = await log.createSession({ cwd: '/other' });
        assert.match(generated.sessionId, /^sess_/);
        assert.equal(await log.deleteSession('s1'), true);
        assert.equal(await log.deleteSession('s1'), false);
        assert.equal(await log.getSession('s1'), undefined);
        await failsWith(log.read('s1'), 'session_not_found');
      });

      withLog('lists sessions in creation order, page by page', async (log) => {
        for (let i = 0; i < 7; i++) await log.createSession({ sessionId: `s${i}`, cwd: '/' });
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await log.listSessions({ cursor, limit: 3 });
          assert.ok(page.sessions.length <= 3);
          ids.push(...page.sessions.map((s) => s.sessionId));
          cursor = page.nextCursor;
        } while (cursor !== null);
        assert.deepEqual(ids, ['s0', 's1', 's2', 's3', 's4', 's5', 's6']);
      });

      withLog(
        'accepts as a list cursor only the exact text it issued: a look-alike is invalid_argument at /cursor',
        async (log) => {
          for (let i = 0; i < 12; i++) await log.createSession({ sessionId: `s${i}`, cwd: '/' });
          const issued = (await log.listSessions({ limit: 7 })).nextCursor;
          assert.ok(issued !== null);
          assert.deepEqual(
            (await log.listSessions({ cursor: issued, limit: 1 })).sessions.map((s) => s.sessionId),
            ['s7'],
          );
          // Each of these reads as a number near an issued cursor, but none is the text one was issued as.
          const forged = [
            '',
            '0',
            '-0',
            '+3',
            '007',
            ' 7 ',
            '7 ',
            '0x10',
            '1e1',
            '1e300',
            '3.0',
            'Infinity',
            '\u0667',
            '9007199254740993',
            `${issued}\u0000`,
          ];
          for (const cursor of forged) {
            assert.equal(
              (await failsWith(log.listSessions({ cursor }), 'invalid_argument')).pointer,
              '/cursor',
              `cursor ${JSON.stringify(cursor)}`,
            );
          }
        },
      );

      withLog(
        'refuses a U+0000 or an unpaired surrogate in any string it would store, with invalid_argument at its pointer, and stores nothing of it',
        async (log) => {
          const bad = ['a\u0000b', 'lone \ud800 high', 'lone \udc00 low', 'reversed \udc00\ud800'];
          await log.createSession({ sessionId: 's', cwd: '/ok', title: 'kept' });
          for (const text of bad) {
            const what = JSON.stringify(text);
            const pointer = async (call: Promise<unknown>) =>
              (await failsWith(call, 'invalid_argument')).pointer;
            assert.equal(await pointer(log.createSession({ cwd: `/w/${text}` })), '/cwd', `cwd ${what}`);
            assert.equal(
              await pointer(log.createSession({ cwd: '/w', title: text })),
              '/title',
              `title ${what}`,
            );
            assert.equal(
              await pointer(log.createSession({ cwd: '/w', config: { mode: { [text]: 1 } } })),
              '/config/mode',
              `config key ${what}`,
            );
            assert.equal(
              await pointer(log.updateSession('s', { cwd: `/${text}` })),
              '/cwd',
              `new cwd ${what}`,
            );
            assert.equal(
              await pointer(log.updateSession('s', { title: text })),
              '/title',
              `new title ${what}`,
            );
            assert.equal(
              await pointer(log.updateSession('s', { config: { mode: 'ask', list: ['ok', text] } })),
              '/config/list/1',
              `config value ${what}`,
            );
            assert.equal(
              await pointer(
                log.append('s', [opens('user_message', 'u0', 'fine'), opens('user_message', 'u1', text)]),
              ),
              '/entries/1/update/content/0/text',
              `message text ${what}`,
            );
            assert.equal(
              await pointer(
                log.append('s', [{ update: { ...state('idle'), _meta: { note: text } } as SessionUpdate }]),
              ),
              '/entries/0/update/_meta/note',
              `meta ${what}`,
            );
          }
          // Nothing of a refused call was stored; paired surrogates (an emoji) and other controls are kept.
          const kept = '\ud83d\ude00 tab\t del\u007f \ufffe';
          const page = await log.listSessions();
          assert.deepEqual(
            page.sessions.map((r) => [r.sessionId, r.cwd, r.title]),
            [['s', '/ok', 'kept']],
          );
          assert.equal((await log.getSession('s'))?.lastSeq, 0);
          await log.updateSession('s', { cwd: `/${kept}`, title: kept, config: { [kept]: kept } });
          await log.append('s', [opens('user_message', 'u2', kept)]);
          const record = await log.getSession('s');
          assert.deepEqual(
            [record?.cwd, record?.title, record?.config],
            [`/${kept}`, kept, { [kept]: kept }],
          );
          assert.deepEqual(
            (await log.read('s')).entries.map((e) => e.update),
            [opens('user_message', 'u2', kept).update],
          );
        },
      );

      withLog('rejects bad arguments with invalid_argument and a pointer', async (log) => {
        assert.equal((await failsWith(log.createSession({ cwd: '' }), 'invalid_argument')).pointer, '/cwd');
        await log.createSession({ sessionId: 's', cwd: '/' });
        assert.equal((await failsWith(log.append('s', []), 'invalid_argument')).pointer, '/entries');
        assert.equal(
          (await failsWith(log.append('s', [{ update: {} as SessionUpdate }]), 'invalid_argument')).pointer,
          '/entries/0/update',
        );
        assert.equal(
          (
            await failsWith(
              log.append('s', [
                { update: state('idle'), claim: { kind: 'nope' as 'user_message', messageId: 'm' } },
              ]),
              'invalid_argument',
            )
          ).pointer,
          '/entries/0/claim/kind',
        );
        assert.equal(
          (await failsWith(log.read('s', { afterSeq: -1 }), 'invalid_argument')).pointer,
          '/afterSeq',
        );
        assert.equal((await failsWith(log.read('s', { limit: 0 }), 'invalid_argument')).pointer, '/limit');
        for (const cursor of ['garbage', '-1', '2.5']) {
          assert.equal(
            (await failsWith(log.listSessions({ cursor }), 'invalid_argument')).pointer,
            '/cursor',
            `cursor ${JSON.stringify(cursor)}`,
          );
        }
        assert.equal((await log.getSession('s'))?.lastSeq, 0);
      });
    });

    describe('append and read', () => {
      withLog('numbers entries from 1, consecutively, per session', async (log) => {
        await log.createSession({ sessionId: 'a', cwd: '/' });
        await log.createSession({ sessionId: 'b', cwd: '/' });
        assert.deepEqual(await log.append('a', [opens('user_message', 'u1', 'hi')]), { first: 1, last: 1 });
        assert.deepEqual(
          await log.append('a', [{ update: state('running') }, opens('agent_message', 'r1')]),
          {
            first: 2,
            last: 3,
          },
        );
        assert.deepEqual(await log.append('b', [{ update: state('running') }]), { first: 1, last: 1 });
        const page = await log.read('a');
        assert.deepEqual(
          page.entries.map((e) => [e.seq, e.update.sessionUpdate, e.retain]),
          [
            [1, 'user_message', true],
            [2, 'state_update', true],
            [3, 'agent_message', true],
          ],
        );
        assert.equal(page.lastSeq, 3);
        assert.equal((await log.getSession('a'))?.lastSeq, 3);
        assert.deepEqual(page.entries[0]!.update, opens('user_message', 'u1', 'hi').update);
      });

      withLog('keeps concurrent appends contiguous and in one order', async (log) => {
        await log.createSession({ sessionId: 's', cwd: '/' });
        const ranges = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            log.append('s', [{ update: chunk('m', `${i}a`) }, { update: chunk('m', `${i}b`) }]),
          ),
        );
        const entries = (await log.read('s', { limit: 100 })).entries;
        assert.deepEqual(
          entries.map((e) => e.seq),
          Array.from({ length: 40 }, (_, i) => i + 1),
        );
        for (const [i, range] of ranges.entries()) {
          assert.equal(range.last, range.first + 1);
          const a = entries[range.first - 1]!.update as { content: { text: string } };
          const b = entries[range.last - 1]!.update as { content: { text: string } };
          assert.equal(a.content.text, `${i}a`);
          assert.equal(b.content.text, `${i}b`);
        }
      });

      withLog('pages from any position and caps the page size', async (log) => {
        await log.createSession({ sessionId: 's', cwd: '/' });
        const batch = Array.from({ length: 500 }, (_, i) => ({ update: chunk('m', String(i)) }));
        for (let i = 0; i < 10; i++) await log.append('s', batch);
        const seqs: number[] = [];
        let after = 0;
        for (;;) {
          const page = await log.read('s', { afterSeq: after, limit: 777 });
          if (page.entries.length === 0) break;
          seqs.push(...page.entries.map((e) => e.seq));
          after = page.entries.at(-1)!.seq;
        }
        assert.deepEqual(
          seqs,
          Array.from({ length: 5000 }, (_, i) => i + 1),
        );
        const capped = await log.read('s', { limit: 1_000_000 });
        assert.ok(capped.entries.length <= 4096 && capped.entries.length > 0);
        assert.equal((await log.read('s', { afterSeq: 5000 })).entries.length, 0);
        assert.equal((await log.read('s', { afterSeq: 9000 })).entries.length, 0);
      });

      withLog('skips live-only entries when asked for retained ones', async (log) => {
        await log.createSession({ sessionId: 's', cwd: '/' });
        await log.append('s', [
          opens('user_message', 'u1', 'kept'),
          { ...opens('user_message', 'u2', '/status'), retain: false },
          { update: chunk('r', 'live'), retain: false },
          { update: state('idle') },
        ]);
        const all = await log.read('s');
        assert.deepEqual(
          all.entries.map((e) => e.retain),
          [true, false, false, true],
        );
        const retained = await log.read('s', { retainedOnly: true });
        assert.deepEqual(
          retained.entries.map((e) => e.seq),
          [1, 4],
        );
        assert.deepEqual(
          (await log.read('s', { retainedOnly: true, afterSeq: 1, limit: 1 })).entries.map((e) => e.seq),
          [4],
        );
      });
    });

    describe('message IDs', () => {
      withLog('refuses a second claim of a message, and appends nothing of that call', async (log) => {
        await log.createSession({ sessionId: 's', cwd: '/' });
        await log.append('s', [opens('user_message', 'm1', 'a')]);
        const error = await failsWith(
          log.append('s', [{ update: state('running') }, opens('user_message', 'm1', 'b')]),
          'duplicate_message',
        );
        assert.equal(error.messageId, 'm1');
        await failsWith(
          log.append('s', [opens('agent_message', 'x'), opens('agent_message', 'x')]),
          'duplicate_message',
        );
        assert.equal((await log.read('s')).lastSeq, 1);
        assert.equal(await log.isClaimed('s', { kind: 'agent_message', messageId: 'x' }), false);
        // Claims are per kind; live-only entries claim too.
        await log.append('s', [{ ...opens('agent_message', 'm1'), retain: false }]);
        assert.equal(await log.isClaimed('s', { kind: 'agent_message', messageId: 'm1' }), true);
        await failsWith(log.append('s', [opens('agent_message', 'm1')]), 'duplicate_message');
      });

      withLog('lets only one of two racing appends claim a message', async (log) => {
        await log.createSession({ sessionId: 's', cwd: '/' });
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, () => log.append('s', [opens('user_message', 'same', 'x')])),
        );
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        assert.equal((await log.read('s')).lastSeq, 1);
      });

      withLog(
        'never issues an ID twice, nor one that was claimed; an issued ID may be claimed once',
        async (log) => {
          await log.createSession({ sessionId: 's', cwd: '/' });
          await log.append('s', [opens('user_message', 'id-1')]);
          const issued = await log.nextMessageId('s');
          assert.equal(issued, 'id-2');
          await log.append('s', [opens('user_message', issued)]);
          await failsWith(log.append('s', [opens('user_message', issued)]), 'duplicate_message');
          assert.equal(await log.nextMessageId('s'), 'id-3');
          await failsWith(log.nextMessageId('missing'), 'session_not_found');
        },
        {
          generateMessageId: (() => {
            const ids = ['id-1', 'id-1', 'id-2', 'id-2', 'id-1', 'id-3'];
            let i = 0;
            return () => ids[Math.min(i++, ids.length - 1)]!;
          })(),
        },
      );
    });

    describe('subscriptions', () => {
      withLog('delivers the backlog, then new appends, each entry once and in order', async (log) => {
        await log.createSession({ sessionId: 's', cwd: '/' });
        await log.append('s', [opens('user_message', 'u', 'hi'), { update: state('running') }]);
        const all = collector(log, 's', 0);
        const tail = collector(log, 's', 1);
        assert.equal(all.seen.length, 0, 'nothing is delivered synchronously');
        await log.append('s', [opens('agent_message', 'r')]);
        const appends = Array.from({ length: 50 }, (_, i) =>
          log.append('s', [{ update: chunk('r', String(i)) }]),
        );
        await Promise.all(appends);
        await log.append('s', [{ update: state('idle') }]);
        await all.until(54);
        await tail.until(53);
        assert.deepEqual(
          all.seen.map((e) => e.seq),
          Array.from({ length: 54 }, (_, i) => i + 1),
        );
        assert.deepEqual(
          tail.seen.map((e) => e.seq),
          Array.from({ length: 53 }, (_, i) => i + 2),
        );
        await tick();
        assert.equal(all.seen.length, 54);
        all.subscription.close();
        tail.subscription.close();
        await log.append('s', [{ update: state('running') }]);
        await tick();
        assert.equal(all.seen.length, 54, 'nothing arrives after close()');
      });

      withLog('follows appends made while it is still reading its backlog', async (log) => {
        await log.createSession({ sessionId: 's', cwd: '/' });
        const big = Array.from({ length: 1000 }, (_, i) => ({ update: chunk('m', String(i)) }));
        for (let i = 0; i < 5; i++) await log.append('s', big);
        const follower = collector(log, 's', 0);
        const racing = (async () => {
          for (let i = 0; i < 200; i++) await log.append('s', [{ update: chunk('m', `late${i}`) }]);
        })();
        await racing;
        await follower.until(5200);
        assert.deepEqual(
          follower.seen.map((e) => e.seq),
          Array.from({ length: 5200 }, (_, i) => i + 1),
        );
        follower.subscription.close();
      });

      withLog('delivers live-only entries to followers', async (log) => {
        await log.createSession({ sessionId: 's', cwd: '/' });
        const follower = collector(log, 's', 0);
        await log.append('s', [{ update: chunk('r', 'live'), retain: false }]);
        await follower.until(1);
        assert.equal(follower.seen[0]!.retain, false);
        follower.subscription.close();
      });

      withLog('ends with an error for a missing or deleted session, and when the log closes', async (log) => {
        const missing = collector(log, 'nope', 0);
        assert.equal(((await missing.failed()) as HistoryStoreError).code, 'session_not_found');
        await log.createSession({ sessionId: 's', cwd: '/' });
        const deleted = collector(log, 's', 0);
        await tick();
        await log.deleteSession('s');
        assert.ok((await deleted.failed()) instanceof HistoryStoreError);
        await log.createSession({ sessionId: 't', cwd: '/' });
        const closing = collector(log, 't', 0);
        await tick();
        await log.close();
        assert.equal(((await closing.failed()) as HistoryStoreError).code, 'closed');
        await failsWith(log.read('t'), 'closed');
      });
    });

    if (hooks.reopen) {
      const reopen = hooks.reopen;
      describe('durability', () => {
        it('keeps records, entries, claims and issued IDs across a restart', async () => {
          let n = 0;
          const options = { generateMessageId: () => `gen-${(n++ % 3) + 1}` };
          let log = await hooks.makeLog(options);
          try {
            await log.createSession({ sessionId: 's', cwd: '/repo', title: 'kept' });
            await log.append('s', [
              opens('user_message', 'u1', 'hello'),
              { update: chunk('r', 'x'), retain: false },
            ]);
            const issued = await log.nextMessageId('s');
            await log.updateSession('s', { config: { mode: 'code' } });
            const before = await log.read('s');
            const record = await log.getSession('s');
            n = 0; // the generator starts over: the reopened log must remember what it issued
            log = await reopen(log, options);
            assert.deepEqual(await log.getSession('s'), record);
            const after = await log.read('s');
            assert.deepEqual(
              after.entries.map((e) => [e.seq, e.retain, e.update]),
              before.entries.map((e) => [e.seq, e.retain, e.update]),
            );
            await failsWith(log.append('s', [opens('user_message', 'u1')]), 'duplicate_message');
            const next = await log.nextMessageId('s');
            assert.notEqual(next, issued);
            assert.deepEqual(await log.append('s', [{ update: state('idle') }]), { first: 3, last: 3 });
          } finally {
            await log.close();
          }
        });
      });
    }
  });
}
