/**
 * Replay of every retained size up to the line limit: prompts and replies whose single line is
 * the limit − k bytes for a spread of k (including a few bytes over), and sizes across the rest of
 * the range (fractions of the limit down to half a KiB), single-block, multi-block
 * and streamed as many chunks, then `session/resume` with replay in every replay style the agent
 * offers, from a fresh agent on the same log (as after a restart). Every retained message must
 * replay with its exact content, nothing retained may make replay fail, and whatever could not be
 * sent must have been refused before it was retained.
 */
import { createHash } from 'node:crypto';
import type { ContentBlock } from '@acp-kit/schema';
import { Agent } from '../src/agent/index.js';
import { MemoryHistoryStore } from '../src/history/index.js';
import { connectClient, until, initialize } from './wire-client.js';

/** The replay styles an {@link Agent} offers (`AgentOptions.replay`). */
export const REPLAY_STYLES = ['full', 'chunks', 'as-retained'] as const;

/** Distances below the limit (negative: over it) that the sizes near the limit are chosen at. */
const SPREAD = [-64, -5, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 64, 1024];

/** Sizes of the rest of the range, far below the limit: fractions of it, then small absolute sizes. */
const FRACTIONS = [1 / 2, 1 / 8, 1 / 64];
const SMALL_BYTES = [4096, 512];

/** What {@link checkReplaySizes} observed. */
export interface ReplaySizesReport {
  limit: number;
  /** Distinct line sizes tried (each in five forms). */
  sizes: number;
  /** Prompts sent, and how many the agent accepted (retained) and refused. */
  prompts: number;
  accepted: number;
  refused: number;
  /** Sizes over the limit that were accepted, or within it that were refused. */
  wrongVerdicts: number;
  /** Replies written (retained) and replies refused by the session before retention. */
  replies: number;
  repliesRefused: number;
  /** Turns that ended `idle` without a stop reason. */
  turnsWithoutStopReason: number;
  /** Per replay style: messages replayed intact, missing, altered, unexpected, and failures. */
  styles: {
    style: string;
    intact: number;
    missing: number;
    altered: number;
    unexpected: number;
    failed: string | undefined;
    largestLine: number;
  }[];
  samples: string[];
}

const text = (value: string): ContentBlock => ({ type: 'text', text: value }) as ContentBlock;

/** A digest of content blocks, block by block (so no one string of the whole content is built). */
function digest(blocks: readonly ContentBlock[]): string {
  const hash = createHash('sha256');
  for (const block of blocks) hash.update(JSON.stringify(block)).update('\n');
  return hash.digest('hex');
}

/** Content of `bytes` characters, in `blocks` text blocks. */
function content(bytes: number, blocks: number, fill: string): ContentBlock[] {
  const each = Math.floor(bytes / blocks);
  return Array.from({ length: blocks }, (_, i) =>
    text(fill.repeat(i === blocks - 1 ? bytes - each * (blocks - 1) : each)),
  );
}

/** Folds `session/update` params into final content per `kind:messageId`. */
function fold(updates: readonly Record<string, unknown>[]): Map<string, ContentBlock[]> {
  const messages = new Map<string, ContentBlock[]>();
  for (const params of updates) {
    const update = params.update as { sessionUpdate: string; messageId?: string; content?: unknown };
    const kind = update.sessionUpdate.replace(/_chunk$/, '');
    if (!['user_message', 'agent_message', 'agent_thought'].includes(kind)) continue;
    const key = `${kind}:${update.messageId}`;
    if (update.sessionUpdate.endsWith('_chunk')) {
      messages.set(key, [...(messages.get(key) ?? []), update.content as ContentBlock]);
    } else if (update.content !== undefined) {
      messages.set(key, [...(update.content as ContentBlock[])]);
    } else if (!messages.has(key)) {
      messages.set(key, []);
    }
  }
  return messages;
}

/** Runs the check with a line limit of `limit` bytes. */
export async function checkReplaySizes(limit: number): Promise<ReplaySizesReport> {
  const store = new MemoryHistoryStore();
  /**
   * What the agent managed to write, by `kind:messageId`: a digest of the expected replay. Digests,
   * not the content: at the full 8 MiB limit a hundred messages of up to 8 MiB each, kept twice
   * (here and by the writing client), would not fit the process's heap next to the retained log.
   */
  const expected = new Map<string, string>();
  const report: ReplaySizesReport = {
    limit,
    sizes: 0,
    prompts: 0,
    accepted: 0,
    refused: 0,
    wrongVerdicts: 0,
    replies: 0,
    repliesRefused: 0,
    turnsWithoutStopReason: 0,
    styles: [],
    samples: [],
  };
  const sample = (why: string): void => {
    if (report.samples.length < 5) report.samples.push(`replay sizes: ${why}`);
  };
  // Turns that reached their `idle`: replay starts once every accepted prompt's turn has.
  let turnsEnded = 0;
  let onTurnEnd = (): void => {};
  // The reply to a prompt `size:blocks:form`: the prompt's own content again, whole or as chunks
  // (so its line is a few bytes larger than the prompt's: the tag differs), or many small chunks.
  const agent = new Agent({
    info: { name: 'replay-sizes', version: '0' },
    history: store.log,
    async onPrompt(prompt, { session }) {
      const form = (prompt.content[0] as { text?: string }).text?.[0] ?? 'w';
      let messageId: string;
      try {
        messageId = await prompt.insert();
      } catch {
        return;
      }
      expected.set(`user_message:${messageId}`, digest(prompt.content));
      await session.running();
      const reply = await session.agentMessage();
      const written: ContentBlock[] = [];
      const write = async (blocks: ContentBlock[], whole: boolean): Promise<void> => {
        try {
          if (whole) await reply.replace(blocks);
          else for (const block of blocks) await reply.chunk(block);
        } catch {
          report.repliesRefused++;
          return;
        }
        written.push(...blocks);
      };
      if (form === 'w') await write([...prompt.content], true);
      else if (form === 'c') for (const block of prompt.content) await write([block], false);
      else {
        // Many small chunks adding up to the prompt's size: the `full` replay folds them.
        const total = prompt.content.reduce((n, b) => n + (b as { text: string }).text.length, 0);
        for (const block of content(total, 64, 'm')) await write([block], false);
      }
      if (written.length > 0) {
        report.replies++;
        expected.set(`agent_message:${reply.messageId}`, digest(written));
      }
      await session.idle('end_turn');
      turnsEnded++;
      onTurnEnd();
    },
  });
  const session = await agent.createSession('/replay-sizes');
  const writer = connectClient(agent, { maxMessageBytes: limit });
  await initialize(writer);

  // Calibrate: the bytes of a user_message line around its text.
  const probe = await writer.request('session/prompt', { sessionId: session.id, prompt: [text('w')] });
  const probeId = (probe.result as { messageId?: string } | undefined)?.messageId;
  const probeLine = writer.received.find(
    (r) =>
      (r.message.params as { update?: { messageId?: string } } | undefined)?.update?.messageId === probeId,
  );
  if (!probeLine) throw new Error('replay sizes: the calibration prompt was not reported');
  const overhead = probeLine.bytes - 1;

  // The near-limit spread, then the rest of the range (as distances from the limit too).
  const distances = [
    ...SPREAD,
    ...FRACTIONS.map((f) => Math.round(limit * (1 - f))),
    ...SMALL_BYTES.map((bytes) => limit - overhead - bytes),
  ];
  report.sizes = distances.length;
  for (const k of distances) {
    for (const [blocks, form] of [
      [1, 'w'],
      [1, 'c'],
      [3, 'w'],
      [3, 'c'],
      [1, 'm'],
    ] as const) {
      // Each extra block adds `,{"type":"text","text":""}` to the line.
      const bytes = limit - overhead - k - (blocks - 1) * 26;
      const prompt = content(bytes, blocks, form);
      report.prompts++;
      const response = await writer.request('session/prompt', { sessionId: session.id, prompt });
      const fits = k >= 0;
      if (response.error !== undefined) {
        report.refused++;
        const code = (response.error as { code: number }).code;
        if (fits || code !== -32602) {
          report.wrongVerdicts++;
          sample(`k=${k} blocks=${blocks} refused with ${JSON.stringify(response.error).slice(0, 200)}`);
        }
      } else {
        report.accepted++;
        if (!fits) {
          report.wrongVerdicts++;
          sample(`k=${k} blocks=${blocks}: ${bytes} bytes over the limit were accepted`);
        }
      }
    }
  }
  await until(() => writer.count('state_update') > 0 && report.prompts > 0);
  // A prompt is answered at insertion, so the last turns may still be streaming: a replay started
  // now would carry a reply that `expected` does not hold yet. Wait for every accepted turn (and
  // the calibration prompt's) to end; a turn that never ends shows up below, it does not hang here.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 120_000);
    onTurnEnd = () => {
      if (turnsEnded < report.accepted + 1) return;
      clearTimeout(timer);
      resolve();
    };
    onTurnEnd();
  });
  for (const params of writer.updates()) {
    const update = params.update as { sessionUpdate: string; state?: string; stopReason?: string };
    if (update.sessionUpdate === 'state_update' && update.state === 'idle' && !update.stopReason) {
      report.turnsWithoutStopReason++;
    }
  }
  writer.connection.close();
  // The writer's copies of every line are no longer needed; at the full limit they are gigabytes.
  writer.clear();

  for (const style of REPLAY_STYLES) {
    // A fresh agent on the same log: what a restarted agent offers.
    const replayer = new Agent({
      info: { name: 'replay-sizes', version: '0' },
      history: store.log,
      replay: style,
      onPrompt: (prompt) => prompt.reject(new Error('not here') as never),
    });
    const reader = connectClient(replayer, { maxMessageBytes: limit });
    await initialize(reader);
    const resumed = await reader.request('session/resume', {
      sessionId: session.id,
      cwd: '/replay-sizes',
      replayFrom: { type: 'start' },
    });
    const replayed = fold(reader.updates());
    let intact = 0;
    let missing = 0;
    let altered = 0;
    for (const [key, want] of expected) {
      const got = replayed.get(key);
      if (got === undefined) missing++;
      else if (digest(got) !== want) {
        altered++;
        sample(`${style}: ${key} replayed altered`);
      } else intact++;
    }
    const unexpected = [...replayed.keys()].filter((key) => !expected.has(key)).length;
    if (missing > 0) sample(`${style}: ${missing} retained messages missing from replay`);
    if (unexpected > 0) sample(`${style}: ${unexpected} messages replayed that were never accepted`);
    const failed = resumed.error === undefined ? undefined : JSON.stringify(resumed.error).slice(0, 200);
    if (failed) sample(`${style}: resume failed ${failed}`);
    report.styles.push({
      style,
      intact,
      missing,
      altered,
      unexpected,
      failed,
      largestLine: Math.max(0, ...reader.received.map((r) => r.bytes)),
    });
    reader.connection.close();
  }
  return report;
}
