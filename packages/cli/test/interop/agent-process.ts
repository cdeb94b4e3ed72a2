import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough, Readable, Writable } from 'node:stream';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { BIN } from '../harness.js';

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}
interface ZodLike {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ZodIssueLike[] } };
}

/** The official zod schemas are not exported; load the module its v2 entry imports them from. */
export async function officialSchemas(): Promise<Record<'notification' | 'promptResponse', ZodLike>> {
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/experimental/v2');
  const zod = (await import(
    pathToFileURL(join(dirname(entry), '..', 'schema', 'zod.gen.js')).href
  )) as Record<string, ZodLike | undefined>;
  const notification = zod.zUpdateSessionNotification;
  const promptResponse = zod.zPromptResponse;
  if (!notification || !promptResponse) throw new Error('official zod schemas not found');
  return { notification, promptResponse };
}

/** The `initialize` params the official-client tests send: protocol v2, no client capabilities. */
export const OFFICIAL_INITIALIZE = {
  protocolVersion: 2,
  info: { name: 'official-client', version: '2.4.0' },
  capabilities: {},
};

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

/** Spawns `acp-kit agent --chunk-delay <ms>` on stdio, with `extraArgs` after (e.g. `--greet`). */
export function spawnAgentProcess(chunkDelay = 0, extraArgs: readonly string[] = []): AgentProcess {
  const child = spawn(process.execPath, [BIN, 'agent', '--chunk-delay', String(chunkDelay), ...extraArgs], {
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
