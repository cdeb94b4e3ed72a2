// Regression tests for #24 item 6 against the real `acp-kit agent --require-login`: a connection
// that did not log in (or logged out) cannot cancel another client's turn with session/cancel, and
// the dropped notification is logged on stderr.
import { spawnTransport } from '@acp-kit/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  clientOver,
  clientOverWebSocket,
  idleCount,
  isState,
  listeningAgent,
  requireBuild,
  type TestClient,
} from '../harness.js';

beforeAll(requireBuild);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** The owner logs in and starts `/write`, which waits on its permission answer; resolves once asked. */
async function ownerAsked(connect: (options: object) => Promise<TestClient>) {
  let answer!: (optionId: string) => void;
  let asked!: () => void;
  const wasAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const owner = await connect({
    onPermission: () => {
      asked();
      return new Promise(
        (resolve) => (answer = (optionId) => resolve({ outcome: { outcome: 'selected', optionId } })),
      );
    },
  });
  await owner.client.login('reference');
  const sessionId = await owner.client.newSession('/tmp');
  void owner.client.prompt(sessionId, [{ type: 'text', text: '/write secret.txt' }]);
  await wasAsked;
  return { owner, sessionId, answer: (optionId: string) => answer(optionId) };
}

const stopReason = (t: TestClient): unknown =>
  (t.updates().find((u) => isState(u, 'idle') && 'stopReason' in u) as { stopReason?: unknown } | undefined)
    ?.stopReason;

describe('acp-kit agent --require-login', () => {
  it('over --listen, drops session/cancel from a client that only ran initialize, logs it, and the turn goes on', async () => {
    const agent = await listeningAgent(['--require-login']);
    cleanups.push(() => agent.stop());
    const { owner, sessionId, answer } = await ownerAsked((options) =>
      clientOverWebSocket(agent.url, options),
    );
    cleanups.push(() => owner.connection.close());
    const stranger = await clientOverWebSocket(agent.url);
    cleanups.push(() => stranger.connection.close());
    stranger.connection.sendNotification('session/cancel', { sessionId });
    // Handled in order: once this is answered, the notification before it was handled.
    await expect(stranger.client.listSessions()).rejects.toMatchObject({ code: -32000 });
    answer('allow');
    await idleCount(owner, 1);
    expect(stopReason(owner)).toBe('end_turn');
    await expect
      .poll(() => agent.stderr())
      .toMatch(/dropped session\/cancel from \S+: Authentication required.*\(-32000\)/);
  });

  it('over stdio, drops session/cancel after auth/logout', async () => {
    let stderr = '';
    const transport = spawnTransport(process.execPath, [BIN, 'agent', '--require-login'], {
      onStderr: (text) => {
        stderr += text;
      },
    });
    cleanups.push(() => transport.shutdown());
    const { owner, sessionId, answer } = await ownerAsked((options) => clientOver(transport, options));
    await owner.client.logout();
    owner.connection.sendNotification('session/cancel', { sessionId });
    await expect(owner.client.listSessions()).rejects.toMatchObject({ code: -32000 });
    answer('allow');
    // Logged out, the client no longer follows the session: log in again and resume to see the end.
    await owner.client.login('reference');
    await owner.client.resume(sessionId, { cwd: '/tmp', replay: true });
    await owner.until(() =>
      isState(owner.updates().findLast((u) => u.sessionUpdate === 'state_update')!, 'idle'),
    );
    expect(JSON.stringify(owner.updates())).toContain('Permission granted: done.');
    await expect.poll(() => stderr).toMatch(/dropped session\/cancel from stdio: Authentication required/);
  });
});
