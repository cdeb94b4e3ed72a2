/**
 * Subagents (upstream's unstable surface): `session.subagent()` creates a child session,
 * announces it on the parent with `subagent_update` before anything bears the child's ID, and the
 * parent's clients then follow the child with no resume of their own; the child's state is mirrored
 * on the parent; a resume of the parent replays the child's history after its own; a client may
 * not prompt or close a child, and may cancel it only when the announcement says so.
 */
import type { SessionNotification } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import type { AgentOptions, AgentSession } from '../../src/agent/index.js';
import { refusal, updates, waitFor, wire } from './harness.js';

/** The child sessions started, by the task they were given. */
function subagentAgent(children: Map<string, AgentSession>, refused: string[] = []): AgentOptions {
  return {
    info: { name: 'subagent-agent', version: '0.0.0' },
    unstable: true,
    onRefusedNotification: ({ method, error }) => refused.push(`${method}: ${error.message}`),
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const task = prompt.content.map((b) => (b as { text?: string }).text ?? '').join('');
      const child = await session.subagent({
        title: `Worker: ${task}`,
        description: 'does one task',
        cancellable: task.includes('cancellable'),
      });
      children.set(task, child);
      await child.running();
      const reply = await child.agentMessage();
      await reply.chunk({ type: 'text', text: `working on ${task}` });
      if (task.includes('wait')) {
        // Runs until cancelled (by the client, when the announcement allows it).
        await new Promise((resolve) => child.signal.addEventListener('abort', resolve, { once: true }));
        await child.idle('cancelled');
      } else await child.idle('end_turn');
      await (await session.agentMessage()).chunk({ type: 'text', text: `${task} done` });
      await session.idle('end_turn');
    },
  };
}

const text = (blocks: readonly unknown[]) => blocks.map((b) => (b as { text?: string }).text ?? '').join('');

describe('subagents', () => {
  it('announces the child before any of its updates and delivers the child’s work to the parent’s client', async () => {
    const children = new Map<string, AgentSession>();
    const { client, received } = wire(subagentAgent(children));
    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'review' }]);
    const child = children.get('review')!;
    expect(child.id).not.toBe(sessionId);

    const wireUpdates = received.flatMap((r) => (r.type === 'update' ? [r.params] : []));
    const announcedAt = wireUpdates.findIndex(
      (p) =>
        p.update.sessionUpdate === 'subagent_update' &&
        (p.update as { sessionId: string }).sessionId === child.id,
    );
    const firstOfChild = wireUpdates.findIndex((p: SessionNotification) => p.sessionId === child.id);
    expect(announcedAt).toBeGreaterThanOrEqual(0);
    expect(wireUpdates[announcedAt]!.sessionId).toBe(sessionId);
    expect(firstOfChild).toBeGreaterThan(announcedAt);

    const parent = client.store.snapshot(sessionId);
    expect(parent.subagents.map((s) => s.sessionId)).toEqual([child.id]);
    expect(parent.subagents[0]!.fields).toMatchObject({
      title: 'Worker: review',
      description: 'does one task',
      // The child's idle, mirrored on the parent.
      state: { state: 'idle', stopReason: 'end_turn' },
    });
    expect(parent.subagents[0]!.fields.capabilities).toBeUndefined();
    const childView = client.store.snapshot(child.id);
    expect(childView.messages.map((m) => text(m.content))).toEqual(['working on review']);
    expect(childView.state.state).toBe('idle');
    expect(parent.messages.map((m) => text(m.content))).toEqual(['review', 'review done']);
    // The mirror reported running, then idle, on the parent.
    const mirrored = updates(received, 'subagent_update').map(
      (u) => (u as { state?: { state: string } }).state?.state,
    );
    expect(mirrored).toEqual([undefined, 'running', 'idle']);
  });

  it('refuses a prompt, a close and a title change on a child with -32602 naming its parent', async () => {
    const children = new Map<string, AgentSession>();
    const { client, agent } = wire({ ...subagentAgent(children), capabilities: { session: { title: {} } } });
    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'lint' }]);
    const childId = children.get('lint')!.id;
    for (const call of [
      client.prompt(childId, [{ type: 'text', text: 'hi' }]),
      client.closeSession(childId),
      client.setTitle(childId, 'mine'),
    ]) {
      const error = await refusal(call);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain(`it is a subagent of ${sessionId}`);
    }
    // Nothing changed: the child is still held, with only its own message (the refused prompt
    // stays a local entry carrying its error).
    expect(agent.sessions.has(childId)).toBe(true);
    const messages = client.store.snapshot(childId).messages;
    expect(messages.filter((m) => m.origin === 'agent').map((m) => text(m.content))).toEqual([
      'working on lint',
    ]);
    expect(messages.filter((m) => m.origin !== 'agent').every((m) => m.error !== undefined)).toBe(true);
  });

  it('lets the client cancel a cancellable child’s work, drops the cancel of one that is not, and applies a patch that makes it cancellable', async () => {
    const children = new Map<string, AgentSession>();
    const refused: string[] = [];
    const { client } = wire(subagentAgent(children, refused));
    const { sessionId } = await client.createSession({ cwd: '/work' });

    const fixed = client.promptToEnd(sessionId, [{ type: 'text', text: 'wait fixed' }]);
    await waitFor(() => children.has('wait fixed'));
    const fixedChild = children.get('wait fixed')!;
    await waitFor(() => client.store.snapshot(fixedChild.id).messages.length === 1);
    await client.cancel(fixedChild.id);
    await waitFor(() => refused.length === 1);
    expect(refused[0]).toMatch(/session\/cancel is not permitted .* does not make it cancellable/);
    expect(fixedChild.signal.aborted).toBe(false);
    // Made cancellable by a patch, the client's cancel now applies.
    const parent = [...children.values()][0]!.family.parent!;
    await parent.patchSubagent(fixedChild.id, { cancellable: true });
    await waitFor(() => client.store.snapshot(sessionId).subagents[0]?.fields.capabilities !== undefined);
    await client.cancel(fixedChild.id);
    await fixed;
    expect(fixedChild.signal.aborted).toBe(true);
    expect(refused).toHaveLength(1);

    const open = client.promptToEnd(sessionId, [{ type: 'text', text: 'wait cancellable' }]);
    await waitFor(() => children.has('wait cancellable'));
    const openChild = children.get('wait cancellable')!;
    await waitFor(() => client.store.snapshot(openChild.id).messages.length === 1);
    expect(client.store.snapshot(sessionId).subagents[1]!.fields.capabilities).toEqual({ cancel: {} });
    await client.cancel(openChild.id);
    await open;
    expect(client.store.snapshot(openChild.id).state.stopReason).toBe('cancelled');
    // Cancelling the child did not cancel the parent's turn.
    expect(client.store.snapshot(sessionId).state.stopReason).toBe('end_turn');
  });

  it('replays the child’s history after the parent’s on a resume by another client, with nothing twice', async () => {
    const children = new Map<string, AgentSession>();
    const first = wire(subagentAgent(children));
    const { sessionId } = await first.client.createSession({ cwd: '/work' });
    await first.client.promptToEnd(sessionId, [{ type: 'text', text: 'one' }]);
    await first.client.promptToEnd(sessionId, [{ type: 'text', text: 'two' }]);
    const other = wire(first.agent);
    await other.client.resume(sessionId, { cwd: '/work', replay: true });
    const ids = [children.get('one')!.id, children.get('two')!.id];
    expect(other.client.store.snapshot(sessionId).subagents.map((s) => s.sessionId)).toEqual(ids);
    for (const [index, id] of ids.entries()) {
      const replayed = other.client.store.snapshot(id);
      expect(replayed.messages.map((m) => [m.messageId, text(m.content)])).toEqual(
        first.client.store.snapshot(id).messages.map((m) => [m.messageId, text(m.content)]),
      );
      expect(replayed.messages.map((m) => text(m.content))).toEqual([`working on ${['one', 'two'][index]}`]);
      expect(replayed.state.state).toBe('idle');
    }
    // Each child update reached the resuming client after the parent's replay announced it.
    const seen = other.received.flatMap((r) => (r.type === 'update' ? [r.params] : []));
    for (const id of ids) {
      const announced = seen.findIndex(
        (p) =>
          p.update.sessionUpdate === 'subagent_update' &&
          (p.update as { sessionId: string }).sessionId === id,
      );
      expect(seen.findIndex((p) => p.sessionId === id)).toBeGreaterThan(announced);
    }
    // And it follows later children live.
    await other.client.promptToEnd(sessionId, [{ type: 'text', text: 'three' }]);
    expect(other.client.store.snapshot(children.get('three')!.id).messages).toHaveLength(1);
  });
});
