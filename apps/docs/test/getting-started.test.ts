import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Client, Connection, spawnTransport } from '@acp-kit/sdk';
import { describe, expect, it, vi } from 'vitest';

const FIRST_AGENT = fileURLToPath(new URL('../src/examples/getting-started/first-agent.ts', import.meta.url));
const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');

// The getting-started page shows these two files verbatim (`?raw`); running them here keeps the page true.
describe('the getting-started examples', () => {
  it('first-client.ts talks to the reference agent (npx acp-kit agent, a real child process) and prints the conversation', async () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.join(' '));
    });
    try {
      await import('../src/examples/getting-started/first-client.ts');
    } finally {
      log.mockRestore();
    }
    expect(lines[0]).toMatch(/^inserted as \S+/);
    expect(lines).toContain('user_message: Hello, agent');
    expect(lines.some((line) => /^agent_message: .+/.test(line))).toBe(true);
  });

  it('first-agent.ts, run as a child process over stdio, inserts the prompt and answers with a word count', async () => {
    const agent = spawnTransport(process.execPath, [TSX_CLI, FIRST_AGENT]);
    const client = new Client(new Connection(agent), { info: { name: 'docs-test', version: '1.0.0' } });
    try {
      const init = await client.initialize();
      expect(init.info).toEqual({ name: 'first-agent', version: '0.1.0' });
      const sessionId = await client.newSession(process.cwd());
      const idle = new Promise<void>((resolve) => {
        client.store.subscribe(() => {
          const { state } = client.store.snapshot(sessionId);
          if (state.state === 'idle' && state.stopReason === 'end_turn') resolve();
        });
      });
      const messageId = await client.prompt(sessionId, [{ type: 'text', text: 'three short words' }]);
      await idle;
      const messages = client.store.snapshot(sessionId).messages;
      expect(messages.map((m) => [m.kind, m.origin])).toEqual([
        ['user_message', 'agent'],
        ['agent_message', 'agent'],
      ]);
      expect(messages[0]?.messageId).toBe(messageId);
      expect(messages[1]?.content).toEqual([{ type: 'text', text: 'You said 3 word(s).' }]);
    } finally {
      client.close();
      await agent.shutdown();
    }
  });
});
