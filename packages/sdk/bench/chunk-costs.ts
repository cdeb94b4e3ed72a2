/**
 * The floors the capacity benchmark (bench/capacity.ts) compares the agent's CPU per chunk with,
 * measured in the same run on the same chunk notification (`session/update`,
 * `agent_message_chunk`, 20–80 characters of text, as the paced turns send):
 * - `JSON.stringify` of the message plus one `socket.write` of its line to a loopback TCP socket
 *   (read and discarded by a child process, so the reading is not in this process's CPU): the
 *   least any agent must spend per chunk and per client. The target is ≤ 2× this.
 * - the same, spread as an agent's chunks are: one message per turn of the event loop
 *   (`setImmediate`), each to the next of `spreadSockets` sockets to the same reader. A write then
 *   finds cold caches and a reader that went to sleep, as each chunk of a capacity cell does; the
 *   tight loop above writes to one socket whose reader is awake, which the kernel serves cheaper.
 * - `JSON.parse` alone, and `JSON.parse` plus our generated validator for `session/update`
 *   (`validateParams` of `@acp-kit/schema`, what our Connection runs on what a peer sends).
 * Each is this process's CPU time (user + system) per message, the median of alternating rounds
 * after a warm-up. The child is killed when done, also on failure.
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { validateParams } from '@acp-kit/schema';
import { median } from './percentile.js';
import { ownCpuMs } from './process-cpu.js';
import { stampedText } from './paced-turn.js';

/** CPU time per chunk message, µs. */
export interface ChunkCosts {
  stringifyWriteUs: number;
  /** The same, one write per event-loop turn over many sockets (see the header). */
  spreadWriteUs: number;
  parseUs: number;
  parseValidateUs: number;
}

const SINK = `require('net').createServer((s) => s.resume()).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;

/** The chunk notifications, fresh objects each (as an agent builds one per chunk). */
function messages(count: number): object[] {
  return Array.from({ length: count }, (_, i) => ({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 'sess_3f9a1c2b7d4e4a0f',
      update: {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'msg_8c1e2f7a9b3d4c51',
        content: { type: 'text', text: stampedText(i + 1) },
      },
    },
  }));
}

async function stringifyWrite(socket: Socket, batch: object[]): Promise<number> {
  const cpu = ownCpuMs();
  for (const message of batch) {
    if (!socket.write(`${JSON.stringify(message)}\n`))
      await new Promise((resolve) => socket.once('drain', resolve));
  }
  return ((ownCpuMs() - cpu) * 1000) / batch.length;
}

/** One write per event-loop turn, round-robin over `sockets`; CPU per write (µs). */
function spreadWrite(sockets: readonly Socket[], batch: readonly object[]): Promise<number> {
  return new Promise((resolve) => {
    const cpu = ownCpuMs();
    let i = 0;
    const step = (): void => {
      if (i === batch.length) {
        resolve(((ownCpuMs() - cpu) * 1000) / batch.length);
        return;
      }
      sockets[i % sockets.length]!.write(`${JSON.stringify(batch[i])}\n`);
      i += 1;
      setImmediate(step);
    };
    setImmediate(step);
  });
}

/** `count` sockets connected to the sink on `port`. */
async function connectAll(port: number, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i += 1) {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
  }
  return sockets;
}

function parse(lines: string[], validate: boolean): number {
  const cpu = ownCpuMs();
  let ok = 0;
  for (const line of lines) {
    const message = JSON.parse(line) as { method: string; params: unknown };
    if (!validate) ok += message.params === undefined ? 0 : 1;
    else if (validateParams(message.method, message.params)?.ok) ok += 1;
  }
  if (ok !== lines.length) throw new Error(`chunk costs: ${lines.length - ok} messages did not validate`);
  return ((ownCpuMs() - cpu) * 1000) / lines.length;
}

/**
 * Measures the costs over `count` messages per round, `rounds` rounds; the spread writes go over
 * `spreadSockets` sockets.
 */
export async function chunkCosts(count: number, rounds: number, spreadSockets: number): Promise<ChunkCosts> {
  const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      sink.stdout.once('data', (data: Buffer) => resolve(Number(data.toString().trim())));
      sink.once('exit', (code) => reject(new Error(`the chunk-costs sink exited (${code})`)));
    });
    const [socket] = (await connectAll(port, 1)) as [Socket];
    const spread = await connectAll(port, spreadSockets);
    const batch = messages(count);
    const lines = batch.map((message) => JSON.stringify(message));
    // Warm-up: let the JIT settle on each path.
    for (let i = 0; i < 3; i += 1) {
      await stringifyWrite(socket, batch);
      await spreadWrite(spread, batch);
      parse(lines, false);
      parse(lines, true);
    }
    const write: number[] = [];
    const spreadWrites: number[] = [];
    const parsed: number[] = [];
    const validated: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      write.push(await stringifyWrite(socket, messages(count)));
      spreadWrites.push(await spreadWrite(spread, messages(count)));
      if (round % 2 === 0) {
        parsed.push(parse(lines, false));
        validated.push(parse(lines, true));
      } else {
        validated.push(parse(lines, true));
        parsed.push(parse(lines, false));
      }
    }
    socket.destroy();
    for (const each of spread) each.destroy();
    return {
      stringifyWriteUs: median(write),
      spreadWriteUs: median(spreadWrites),
      parseUs: median(parsed),
      parseValidateUs: median(validated),
    };
  } finally {
    sink.kill('SIGKILL');
  }
}
