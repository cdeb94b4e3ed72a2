/**
 * No orphans from the stdio commands: `bridge`, `chain` and `conformance` start an agent behind
 * `sh -c` that ignores the end of its stdin and SIGTERM; SIGTERM or SIGINT, once or twice, and
 * the client walking away (stdin ends) leave no process behind. `proxy` starts none and ends too.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../harness.js';
import { BEHIND_SH, killCommands, startCommand } from './processes.js';

beforeAll(requireBuild);
afterEach(killCommands);

/** Places the second signal inside the first one's graceful stop, which lasts seconds for this agent. */
const INSIDE_THE_SHUTDOWN_MS = 200;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(process.platform !== 'linux')(
  'commands on stdio leave no process behind',
  { timeout: 30_000 },
  () => {
    for (const [name, args] of [
      ['bridge', ['bridge', '--serve', 'v2', '--', ...BEHIND_SH]],
      ['chain', ['chain', '--', ...BEHIND_SH]],
    ] as const) {
      it(`${name}: a second SIGTERM during the graceful shutdown still ends the agent behind sh -c, and it exits 143`, async () => {
        const command = startCommand([...args]);
        await command.agentsStarted(1);
        command.child.kill('SIGTERM');
        await pause(INSIDE_THE_SHUTDOWN_MS);
        command.child.kill('SIGTERM');
        expect(await command.exited).toEqual({ code: 143, signal: null });
        expect(command.survivors()).toEqual([]);
      });

      it(`${name}: SIGINT ends the agent behind sh -c that ignores it, and it exits 130`, async () => {
        const command = startCommand([...args]);
        await command.agentsStarted(1);
        command.child.kill('SIGINT');
        expect(await command.exited).toEqual({ code: 130, signal: null });
        expect(command.survivors()).toEqual([]);
      });

      it(`${name}: the client walking away (stdin ends) ends the agent behind sh -c, and it exits 0`, async () => {
        const command = startCommand([...args]);
        await command.agentsStarted(1);
        command.child.stdin!.end();
        expect(await command.exited).toEqual({ code: 0, signal: null });
        expect(command.survivors()).toEqual([]);
      });
    }

    it('conformance: SIGTERM mid-run ends the agent behind sh -c, and it exits 143', async () => {
      const command = startCommand(['conformance', '--timeout', '30', '--', ...BEHIND_SH]);
      await command.agentsStarted(1);
      command.child.kill('SIGTERM');
      expect(await command.exited).toEqual({ code: 143, signal: null });
      expect(command.survivors()).toEqual([]);
    });

    it('conformance: a second SIGTERM during that stop ends the agent at once, and it exits 143', async () => {
      const command = startCommand(['conformance', '--timeout', '30', '--', ...BEHIND_SH]);
      await command.agentsStarted(1);
      command.child.kill('SIGTERM');
      await pause(INSIDE_THE_SHUTDOWN_MS);
      command.child.kill('SIGTERM');
      expect(await command.exited).toEqual({ code: 143, signal: null });
      expect(command.survivors()).toEqual([]);
    });

    it('proxy: starts no process and ends when its conductor goes away or on SIGTERM', async () => {
      const walkedAway = startCommand(['proxy']);
      walkedAway.child.stdin!.end();
      expect(await walkedAway.exited).toEqual({ code: 0, signal: null });
      const signalled = startCommand(['proxy']);
      signalled.child.kill('SIGTERM');
      expect(await signalled.exited).toEqual({ code: null, signal: 'SIGTERM' });
      expect([...walkedAway.survivors(), ...signalled.survivors()]).toEqual([]);
    });
  },
);
