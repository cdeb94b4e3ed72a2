/**
 * Drives one real receiver — an SDK `Agent` or `Client` on a `Connection` over a stream pair —
 * with generated and mutated lines, and checks every reaction against the oracle.
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection, type Diagnostic } from '../../src/rpc/index.js';
import { streamTransport } from '../../src/transports/index.js';
import {
  MUTATION_CLASSES,
  type MutationClass,
  mutate,
  mutateBatch,
  oneLine,
  Random,
  wrongTypeSweep,
} from './mutations.js';
import { type EntryExpectation, expect as expectFor, type Handled } from './oracle.js';
import { idAllocator, type Side, seedArb } from './seeds.js';

/** Options of {@link fuzzConnection}. */
export interface FuzzOptions {
  side: Side;
  lines: number;
  seed: number;
  /** The receiver's incoming line limit; small so oversized lines are cheap. Default 64 KiB. */
  limit?: number;
  /** Lines sent before waiting for their replies. Default 200. */
  batch?: number;
  /** How long to wait for a batch's replies before counting them missing. Default 10 s. */
  replyTimeoutMs?: number;
  /**
   * Also send every wrong-type variant (each path × each other JSON type) of this many distinct
   * seed messages, before the random lines. Default 0.
   */
  sweepSeeds?: number;
}

/** What a fuzz run observed. Every count except `lines` and `byClass` must be zero. */
export interface FuzzReport {
  side: Side;
  lines: number;
  byClass: Record<MutationClass, number>;
  /** Lines of the systematic wrong-type sweep (also counted in `lines` and `byClass['wrong-type']`). */
  swept: number;
  /** Per class, how many lines each verified outcome had: an error code, `handled` or `silent`. */
  outcomes: Record<MutationClass, Record<string, number>>;
  /** Replies with the wrong code, wrong id, or a reply where none was due. */
  wrongCodes: number;
  /** Replies that never came. */
  missingReplies: number;
  /** Silent lines (notifications, stray responses) that should have produced a diagnostic and did not, or vice versa. */
  diagnosticMismatches: number;
  /** Prompt receipts (`messageId`) whose user message was never reported to the submitter (lost). */
  receiptsWithoutReport: number;
  /** Stored objects whose prototype a `__proto__` key replaced (local prototype pollution), summed over batches. */
  poisonedObjects: number;
  /** Whether a valid request was still answered after the storm. */
  answersAfterStorm: boolean;
  /** Examples of failures, for the report. */
  samples: string[];
}

const AGENT_HANDLES: Handled = {
  requests: new Set([
    'initialize',
    'session/new',
    'session/resume',
    'session/prompt',
    'session/list',
    'session/close',
    'session/set_config_option',
    'tool_call/cancel',
    'terminal/cancel',
  ]),
  notifications: new Set(['session/cancel']),
};
const CLIENT_HANDLES: Handled = {
  requests: new Set(['session/request_permission']),
  notifications: new Set(['session/update']),
};
const SILENT_DIAGNOSTICS = new Set<Diagnostic['kind']>([
  'unknown-notification',
  'invalid-notification-params',
  'unknown-response',
  'invalid-response',
  'peer-error',
]);

interface Reply {
  id: unknown;
  result?: unknown;
  error?: { code: number };
  /** The serial number of the array line (a batch's answer) this reply came in; none when alone. */
  line?: number;
}

interface Receiver {
  connection: Connection;
  sessionIds: string[];
  /** Objects the receiver kept whose prototype was swapped by a `__proto__` key. */
  poisoned(): number;
  close(): void;
}

/**
 * Counts objects reachable from `root` whose prototype came from data: not a plain object's or an
 * array's, and carrying enumerable own members, as an object parsed from JSON does. A class's
 * prototype (the store's message views, which even hide their `constructor` to compare like plain
 * objects) has only non-enumerable members, so a class instance is not counted.
 */
export function countPoisoned(root: unknown): number {
  // Iterative: stored values may be nested 100 000 levels deep.
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    const proto = Object.getPrototypeOf(node);
    const fromData =
      proto !== Object.prototype &&
      proto !== Array.prototype &&
      proto !== null &&
      Object.keys(proto).length > 0;
    if (fromData) count++;
    for (const key of Reflect.ownKeys(node)) stack.push((node as Record<string | symbol, unknown>)[key]);
  }
  return count;
}

async function agentReceiver(
  toReceiver: PassThrough,
  fromReceiver: PassThrough,
  limit: number,
): Promise<Receiver> {
  const agent = new Agent({
    info: { name: 'fuzz-agent', version: '0' },
    async onPrompt(prompt) {
      // Live-only, so resume replay stays short however many prompts the fuzzer lands.
      await prompt.insert({ retain: false });
    },
  });
  const sessions = await Promise.all([agent.createSession('/fuzz'), agent.createSession('/fuzz')]);
  const connection: AgentConnection = new Connection(
    streamTransport(toReceiver, fromReceiver, { maxMessageBytes: limit }),
  );
  agent.serve(connection, 'fuzzer');
  return {
    connection: connection as unknown as Connection,
    sessionIds: sessions.map((s) => s.id),
    poisoned: () => 0,
    close: () => connection.close(),
  };
}

function clientReceiver(toReceiver: PassThrough, fromReceiver: PassThrough, limit: number): Receiver {
  const connection: ClientConnection = new Connection(
    streamTransport(toReceiver, fromReceiver, { maxMessageBytes: limit }),
  );
  const client = new Client(connection, { info: { name: 'fuzz-client', version: '0' } });
  return {
    connection: connection as unknown as Connection,
    sessionIds: ['sess_fuzz'],
    poisoned: () =>
      client.store.sessionIds().reduce((sum, id) => sum + countPoisoned(client.store.snapshot(id)), 0),
    close: () => client.close(),
  };
}

/** A request or response whose id is a valid JSON-RPC id (one the receiver will echo). */
function isIdCarrier(value: Record<string, unknown>): boolean {
  return typeof value.id === 'string' || (typeof value.id === 'number' && Number.isFinite(value.id));
}

function withId(message: Record<string, unknown>, nextId: () => string | number): Record<string, unknown> {
  return 'id' in message && message.id !== null ? { ...message, id: nextId() } : message;
}

/** Runs the fuzzer against one fresh receiver and reports what it saw. */
export async function fuzzConnection(options: FuzzOptions): Promise<FuzzReport> {
  const limit = options.limit ?? 64 * 1024;
  const batchSize = options.batch ?? 200;
  const timeoutMs = options.replyTimeoutMs ?? 10_000;
  const handled = options.side === 'agent' ? AGENT_HANDLES : CLIENT_HANDLES;
  const toReceiver = new PassThrough();
  const fromReceiver = new PassThrough();
  const receiver =
    options.side === 'agent'
      ? await agentReceiver(toReceiver, fromReceiver, limit)
      : clientReceiver(toReceiver, fromReceiver, limit);

  const report: FuzzReport = {
    side: options.side,
    lines: 0,
    byClass: Object.fromEntries(MUTATION_CLASSES.map((c) => [c, 0])) as Record<MutationClass, number>,
    swept: 0,
    outcomes: Object.fromEntries(MUTATION_CLASSES.map((c) => [c, {}])) as Record<
      MutationClass,
      Record<string, number>
    >,
    wrongCodes: 0,
    missingReplies: 0,
    diagnosticMismatches: 0,
    receiptsWithoutReport: 0,
    poisonedObjects: 0,
    answersAfterStorm: false,
    samples: [],
  };
  const fail = (what: string): void => {
    if (report.samples.length < 10) report.samples.push(what.slice(0, 300));
  };

  let silentDiagnostics = 0;
  receiver.connection.onDiagnostic((diagnostic) => {
    if (SILENT_DIAGNOSTICS.has(diagnostic.kind)) silentDiagnostics++;
  });

  // Everything the receiver writes, parsed line by line.
  const replies: Reply[] = [];
  const reported = new Set<string>();
  const classOf = new Map<string | number, MutationClass>();
  const receipts = new Map<string, MutationClass>();
  let wake: (() => void) | undefined;
  let pendingText = '';
  fromReceiver.setEncoding('utf8');
  /** The size of every array line received (a batch's answers), by serial number. */
  const arrayLines: number[] = [];
  const take = (reply: Reply): void => {
    const messageId = (reply.result as { messageId?: unknown } | null | undefined)?.messageId;
    if (typeof messageId === 'string') receipts.set(messageId, classOf.get(reply.id as string) ?? 'none');
    replies.push(reply);
  };
  fromReceiver.on('data', (chunk: string) => {
    pendingText += chunk;
    let nl = pendingText.indexOf('\n');
    while (nl !== -1) {
      const parsed = JSON.parse(pendingText.slice(0, nl)) as unknown;
      pendingText = pendingText.slice(nl + 1);
      nl = pendingText.indexOf('\n');
      if (Array.isArray(parsed)) {
        const line = arrayLines.length;
        arrayLines.push(parsed.length);
        for (const answer of parsed as Reply[]) take({ ...answer, line });
        continue;
      }
      const message = parsed as Record<string, unknown>;
      if (typeof message.method === 'string') {
        const update = (message.params as { update?: { messageId?: unknown } } | undefined)?.update;
        if (typeof update?.messageId === 'string') reported.add(update.messageId);
        continue;
      }
      take(message as unknown as Reply);
    }
    wake?.();
  });

  if (options.side === 'agent') {
    // Every connection completes `initialize` before its session methods; without it each session
    // request would be refused "initialize first" and the storm would exercise only that gate.
    const setupId = 'setup-initialize';
    toReceiver.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: setupId,
        method: 'initialize',
        params: { protocolVersion: 2, info: { name: 'fuzzer', version: '0' }, capabilities: {} },
      })}\n`,
    );
    await new Promise<void>((resolve) => {
      wake = () => {
        if (replies.some((r) => r.id === setupId)) resolve();
      };
      wake();
    });
    const answer = replies.splice(0).find((r) => r.id === setupId);
    if (answer?.result === undefined) throw new Error(`initialize was refused: ${JSON.stringify(answer)}`);
  }

  const random = new Random(options.seed);
  const nextId = idAllocator();
  const seeds = fc.sample(seedArb(options.side, receiver.sessionIds), {
    numRuns: Math.min(options.lines, 5000),
    seed: options.seed,
  });

  let carried: { bytes: Buffer; cls: MutationClass } | undefined;
  // The sweep comes first; its lines are extra to `options.lines`.
  const sweep: Buffer[] = [];
  const distinct = new Map(seeds.map((seed) => [JSON.stringify(seed), seed]));
  for (const seed of [...distinct.values()].slice(0, options.sweepSeeds ?? 0)) {
    for (const bytes of wrongTypeSweep(withId(seed, nextId))) sweep.push(bytes);
  }
  // A sweep line keeps its seed's id, so give every one a fresh id where it still has one.
  const sweepLines = sweep.map((bytes) => {
    const value = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    return Buffer.from(JSON.stringify(isIdCarrier(value) ? { ...value, id: nextId() } : value), 'utf8');
  });
  const total = options.lines + sweepLines.length;
  report.swept = sweepLines.length;

  for (let sent = 0; sent < total; ) {
    const byId = new Map<string | number, EntryExpectation>();
    const nullCodes: number[] = [];
    /** For the answered entries of each batch line sent in this window: how many answers, and their ids. */
    const batches: { answers: number; ids: Set<string | number> }[] = [];
    /** The batch (index into `batches`) an expected id belongs to; absent for a single line. */
    const batchOf = new Map<string | number, number>();
    let dueDiagnostics = 0;
    const diagnosticsBefore = silentDiagnostics;
    const repliesBefore = replies.length;
    const arraysBefore = arrayLines.length;
    for (let i = 0; i < batchSize && sent < total; i++) {
      let line = carried;
      carried = undefined;
      if (!line && sent < sweepLines.length) {
        line = { bytes: sweepLines[sent]!, cls: 'wrong-type' };
      } else if (!line) {
        const cls = MUTATION_CLASSES[sent % MUTATION_CLASSES.length]!;
        if (cls === 'batch') {
          // Up to five messages, each with a fresh id, in one batch line (none: the empty batch).
          const messages = Array.from({ length: random.int(0, 5) }, () =>
            withId(seeds[random.int(0, seeds.length - 1)]!, nextId),
          );
          line = { bytes: oneLine(mutateBatch(random, messages as never, limit)), cls };
        } else {
          const message = withId(seeds[random.int(0, seeds.length - 1)]!, nextId);
          line = { bytes: oneLine(mutate(random, message, cls, limit)), cls };
        }
      }
      const expectation = expectFor(line.bytes, limit, handled);
      const entries: EntryExpectation[] =
        expectation === undefined ? [] : expectation.kind === 'batch' ? expectation.entries : [expectation];
      const answered = entries.filter(
        (e): e is Extract<EntryExpectation, { kind: 'error' | 'handled' }> =>
          e.kind === 'error' || e.kind === 'handled',
      );
      const ids = answered.flatMap((e) => (e.id === null ? [] : [e.id]));
      if (new Set(ids).size !== ids.length) {
        // Two entries of one batch with the same id (a mutation made it): not judgeable, not sent.
        continue;
      }
      if (ids.some((id) => byId.has(id))) {
        // A mutation produced an id already in flight: send it with the next batch instead.
        carried = line;
        break;
      }
      const batch =
        expectation?.kind === 'batch'
          ? batches.push({ answers: answered.length, ids: new Set(ids) }) - 1
          : undefined;
      for (const entry of entries) {
        if ((entry.kind === 'error' || entry.kind === 'handled') && entry.id !== null) {
          byId.set(entry.id, entry);
          classOf.set(entry.id, line.cls);
          if (batch !== undefined) batchOf.set(entry.id, batch);
        } else if (entry.kind === 'error') nullCodes.push(entry.code);
        else if (entry.kind === 'silent' && entry.diagnostic) dueDiagnostics++;
      }
      report.byClass[line.cls]++;
      const outcomeOf = (e: EntryExpectation): string => (e.kind === 'error' ? String(e.code) : e.kind);
      const outcome =
        expectation === undefined
          ? 'blank'
          : expectation.kind === 'batch'
            ? answered.length > 0
              ? 'array'
              : 'nothing'
            : outcomeOf(expectation);
      report.outcomes[line.cls][outcome] = (report.outcomes[line.cls][outcome] ?? 0) + 1;
      if (expectation?.kind === 'batch') {
        for (const entry of expectation.entries) {
          const key = `entry ${outcomeOf(entry)}`;
          report.outcomes[line.cls][key] = (report.outcomes[line.cls][key] ?? 0) + 1;
        }
      }
      report.lines++;
      sent++;
      toReceiver.write(Buffer.concat([line.bytes, Buffer.from('\n')]));
    }
    const due = byId.size + nullCodes.length;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = () => {
        if (replies.length - repliesBefore >= due) setImmediate(done);
      };
      wake();
    });
    // Let stragglers (a second reply to the same id, say) show up before judging the batch.
    await new Promise((resolve) => setImmediate(resolve));

    const gotNull: number[] = [];
    for (const reply of replies.slice(repliesBefore)) {
      if (reply.id === null) {
        gotNull.push(reply.error?.code ?? 0);
        continue;
      }
      const expectation = byId.get(reply.id as string | number);
      if (!expectation) {
        report.wrongCodes++;
        fail(`unexpected reply ${JSON.stringify(reply)}`);
        continue;
      }
      byId.delete(reply.id as string | number);
      const batch = batchOf.get(reply.id as string | number);
      if ((batch === undefined) !== (reply.line === undefined)) {
        report.wrongCodes++;
        fail(
          `id ${JSON.stringify(reply.id)}: ${batch === undefined ? 'a single request answered inside an array' : 'a batch entry answered on its own line'}`,
        );
      } else if (expectation.kind === 'error' && reply.error?.code !== expectation.code) {
        report.wrongCodes++;
        fail(`id ${JSON.stringify(reply.id)}: expected ${expectation.code}, got ${JSON.stringify(reply)}`);
      } else if (
        expectation.kind === 'handled' &&
        reply.error &&
        [-32700, -32600, -32601].includes(reply.error.code)
      ) {
        report.wrongCodes++;
        fail(`id ${JSON.stringify(reply.id)}: valid request refused with ${reply.error.code}`);
      }
    }
    // Each batch's answers come as one array: its ids all from one batch line, as many as it expects.
    const matched = new Set<number>();
    for (let line = arraysBefore; line < arrayLines.length; line++) {
      const inLine = replies.filter((r) => r.line === line);
      const groups = new Set(
        inLine.flatMap((r) => (r.id === null ? [] : [batchOf.get(r.id as string | number) ?? -1])),
      );
      const candidates =
        groups.size > 0
          ? [...groups]
          : batches.flatMap((b, index) => (b.ids.size === 0 && !matched.has(index) ? [index] : []));
      const group = candidates.find(
        (index) => index >= 0 && batches[index]!.answers > 0 && batches[index]!.answers === arrayLines[line],
      );
      if (groups.size > 1 || group === undefined || matched.has(group)) {
        report.wrongCodes++;
        fail(
          `an array of ${arrayLines[line]} answers that is not one batch's answers: ${JSON.stringify(inLine).slice(0, 200)}`,
        );
      } else matched.add(group);
    }
    batches.forEach((b, index) => {
      if (b.answers > 0 && !matched.has(index)) {
        report.missingReplies++;
        fail(`no answer array for a batch of ${b.answers} answers`);
      }
    });
    classOf.clear();
    // Checked per batch: a later update for the same message replaces a poisoned object.
    const poisoned = receiver.poisoned();
    if (poisoned > 0) {
      report.poisonedObjects += poisoned;
      fail(`${poisoned} stored object(s) got their prototype from a __proto__ key`);
    }
    report.missingReplies += byId.size;
    for (const [id] of byId) fail(`no reply for id ${JSON.stringify(id)}`);
    const expectedNull = nullCodes.sort().join(',');
    const actualNull = gotNull.sort().join(',');
    if (expectedNull !== actualNull) {
      const missing = Math.max(0, nullCodes.length - gotNull.length);
      report.missingReplies += missing;
      report.wrongCodes += Math.max(0, gotNull.length - nullCodes.length) + (missing === 0 ? 1 : 0);
      fail(`null-id errors: expected [${expectedNull}], got [${actualNull}]`);
    }
    const diagnosed = silentDiagnostics - diagnosticsBefore;
    if (diagnosed !== dueDiagnostics) {
      report.diagnosticMismatches += Math.abs(diagnosed - dueDiagnostics);
      fail(`expected ${dueDiagnostics} diagnostics for silent lines, got ${diagnosed}`);
    }
  }

  // After the storm the connection must still answer a valid request.
  const before = replies.length;
  const probeId = 'after-storm';
  const probe =
    options.side === 'agent'
      ? {
          jsonrpc: '2.0',
          id: probeId,
          method: 'initialize',
          params: { protocolVersion: 2, info: { name: 'fuzzer', version: '0' } },
        }
      : {
          jsonrpc: '2.0',
          id: probeId,
          method: 'session/request_permission',
          params: {
            sessionId: 'sess_fuzz',
            title: 'after the storm',
            options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' }],
          },
        };
  toReceiver.write(`${JSON.stringify(probe)}\n`);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    wake = () => {
      if (replies.slice(before).some((r) => r.id === probeId)) {
        clearTimeout(timer);
        resolve();
      }
    };
    wake();
  });
  const answer = replies.slice(before).find((r) => r.id === probeId);
  report.answersAfterStorm =
    answer !== undefined && answer.result !== undefined && !receiver.connection.isClosed;
  if (!report.answersAfterStorm) fail(`after the storm: ${JSON.stringify(answer)}`);
  // The answer may come before or after the report (both are allowed), but the report must come.
  for (const [messageId, cls] of receipts) {
    if (reported.has(messageId)) continue;
    report.receiptsWithoutReport++;
    fail(`receipt ${messageId} (${cls} line): its user_message was never reported to the submitter`);
  }
  receiver.close();
  return report;
}
