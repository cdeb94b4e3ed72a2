import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough, Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { BIN } from '../harness.js';

/** One message `acp-kit agent` wrote, parsed from its line. */
export type WireMessage = {
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
};

/** An `acp-kit agent` child process with every line it writes kept, parsed, in `wire`. */
export interface AgentProcess {
  child: ChildProcess;
  wire: WireMessage[];
  /** The official SDK's stream over the child's stdio (its own copy of stdout). */
  stream: ReturnType<typeof ndJsonStream>;
  stderr(): string;
  /** Writes one JSON value as a line (a raw peer, for what the official client never sends). */
  send(value: unknown): void;
  /** Ends the child (SIGTERM) and resolves once it closed. */
  stop(): Promise<void>;
}

/** Spawns `acp-kit agent --chunk-delay <ms>` on stdio. */
export function spawnAgentProcess(chunkDelay = 0): AgentProcess {
  const child = spawn(process.execPath, [BIN, 'agent', '--chunk-delay', String(chunkDelay)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const wire: WireMessage[] = [];
  let pending = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr += text;
  });
  const copy = new PassThrough();
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => {
    copy.write(text);
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') wire.push(JSON.parse(line) as WireMessage);
  });
  child.stdout!.on('end', () => copy.end());
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(copy) as ReadableStream<Uint8Array>,
  );
  return {
    child,
    wire,
    stream,
    stderr: () => stderr,
    send: (value) => void child.stdin!.write(`${JSON.stringify(value)}\n`),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
