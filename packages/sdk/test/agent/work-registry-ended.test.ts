/**
 * A session keeps the IDs of its tool calls and terminals until it is closed (an ID is never
 * reused, and a cancel naming an old one is still answered). A session of hours may run thousands
 * of them: once one has ended, the registry keeps its ID and whether it advertised cancel, not its
 * abort controllers and signals.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { type UpdateSink, WorkRegistry } from '../../src/agent/work/tool-calls.js';
import { RpcError } from '../../src/rpc/errors.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A turn's sink: its signal is the turn's, dropped with it when the turn ends. */
function turnSink(): UpdateSink {
  return { signal: new AbortController().signal, update: async () => {}, backgroundChanged: async () => {} };
}

async function collect(): Promise<void> {
  for (let i = 0; i < 3; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
}

const codeOf = (run: () => void): number | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof RpcError ? error.code : Number.NaN;
  }
};

describe('a session’s work registry', () => {
  it('lets go of a tool call’s and a terminal’s signals once they ended, after their turn', async () => {
    const registry = new WorkRegistry();
    const refs: WeakRef<AbortSignal>[] = [];
    const running: WeakRef<AbortSignal>[] = [];
    await (async () => {
      const sink = turnSink();
      const call = await registry.toolCall(
        sink,
        { title: 'Read', status: 'in_progress' },
        { cancellable: true },
      );
      const terminal = await registry.terminal(sink, { command: 'npm test' }, { cancellable: true });
      const still = await registry.toolCall(sink, { title: 'Wait', status: 'in_progress' });
      await call.update({ status: 'completed' });
      await terminal.exit({ exitCode: 0 });
      refs.push(new WeakRef(call.signal), new WeakRef(terminal.signal));
      running.push(new WeakRef(still.signal));
    })();
    await collect();
    expect(refs.map((ref) => ref.deref())).toEqual([undefined, undefined]);
    // Work that has not ended keeps its signal: a cancel must still reach it.
    expect(running[0]!.deref()).toBeInstanceOf(AbortSignal);
  });

  it('answers a cancel naming ended work as it did while the work ran', async () => {
    const registry = new WorkRegistry();
    const sink = turnSink();
    const cancellable = await registry.toolCall(
      sink,
      { title: 'a', status: 'in_progress' },
      { cancellable: true },
    );
    const plain = await registry.toolCall(sink, { title: 'b', status: 'in_progress' });
    const terminal = await registry.terminal(sink, { command: 'ls' }, { cancellable: true });
    await cancellable.update({ status: 'failed' });
    await plain.update({ status: 'completed' });
    await terminal.exit({ exitCode: 1 });
    expect(codeOf(() => registry.cancelToolCall(cancellable.toolCallId))).toBeUndefined();
    expect(codeOf(() => registry.cancelToolCall(plain.toolCallId))).toBe(-32602);
    expect(codeOf(() => registry.cancelTerminal(terminal.terminalId))).toBeUndefined();
    expect(codeOf(() => registry.cancelToolCall('call_unknown'))).toBe(-32002);
    // An ended one's ID is still taken.
    await expect(
      registry.toolCall(sink, { title: 'again', status: 'pending' }, { toolCallId: cancellable.toolCallId }),
    ).rejects.toThrow(/already used/);
    // Closing the session aborts what still runs and passes over what ended.
    const open = await registry.toolCall(sink, { title: 'c', status: 'in_progress' });
    registry.abortAll(new Error('closed'));
    expect(open.signal.aborted).toBe(true);
  });
});
