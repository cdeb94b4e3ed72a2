// #24 item 5: Agent.whenIdle() lets a process whose last client left wait for turns still ending
// before it closes the history.
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { MemorySessionLog } from '../../src/history/index.js';

const noPrompts = { info: { name: 'idle-test', version: '0' }, onPrompt: () => undefined };

describe('Agent.whenIdle', () => {
  it('waits for a turn started here until its idle is in the log', async () => {
    const agent = new Agent(noPrompts);
    const session = await agent.createSession('/repo');
    await session.requiresAction();
    let settled = false;
    const idle = agent.whenIdle().then(() => {
      settled = true;
    });
    await session.running();
    await session.notice({ severity: 'info', title: 'still working' });
    expect(settled).toBe(false);
    await session.idle('cancelled');
    await idle;
    expect(settled).toBe(true);
  });

  it('does not wait for a state another process left in the log, nor for a closed session', async () => {
    const log = new MemorySessionLog();
    const crashed = new Agent({ ...noPrompts, history: log });
    const left = await crashed.createSession('/repo');
    await left.running();
    const next = new Agent({ ...noPrompts, history: log });
    const reloaded = await next.session(left.id);
    expect(reloaded?.activity).toBe('running');
    await next.whenIdle();
    const closing = await next.createSession('/other');
    await closing.running();
    const waiting = next.whenIdle();
    await next.closeSession(closing.id);
    await waiting;
  });
});
