import type { LogEntry, NewLogEntry, SeqRange } from '@acp-kit/sdk/adapter';
import type { PostgresSessionLog } from './postgres-session-log.js';
import type { SessionLease } from './session-leases.js';

/** How {@link endInterruptedTurn} ends the turn. */
export type InterruptedStopReason = 'error' | 'cancelled';

/** Why work the previous owner left ends here: shown to the user on the turn, notice and tool calls. */
const STOPPED = 'the agent replica running this turn stopped; another replica took the session over';
const ORPHANED =
  'The agent replica running this background work stopped; another replica took the session over and cannot continue it, so its outcome is unknown.';

/** One piece of background work the last state update listed, as the log holds it. */
type Listed = { type?: unknown; terminalId?: unknown; toolCallId?: unknown };

/** Tool call statuses that end a tool call. */
const FINAL = new Set(['completed', 'failed', 'cancelled']);

/** Entries read per page while looking for ends appended after the last state update. */
const PAGE = 1024;

/**
 * For a replica that has just taken a session over (its lease says `takenOver`), ends what the
 * previous owner left running, fenced by the new lease, so no client waits forever:
 *
 * - **Background work.** Each terminal or tool call the last `state_update` listed in
 *   `background` and whose end the log does not hold gets one now: a terminal the exit status
 *   `{ exitCode: null, signal: null }`, a tool call the status `failed` with a line saying why —
 *   after one `notice` (severity `error`) that names them. The state update that follows lists
 *   `background: []` (the schema's rule: the end before the list that drops it). Extension items
 *   (unknown `type`) are dropped from the list with the notice naming them.
 * - **The turn.** If the last state is not `idle` (the owner died mid-turn), the `idle` that ends
 *   that turn, with stop reason `error` (and a JSON-RPC error saying why) or `cancelled`; else,
 *   when background work was ended, a repeated `idle` without a stop reason (it ends no turn).
 *
 * Returns the appended range, or undefined when nothing was left running.
 */
export async function endInterruptedTurn(
  log: PostgresSessionLog,
  sessionId: string,
  lease: SessionLease,
  stopReason: InterruptedStopReason = 'error',
): Promise<SeqRange | undefined> {
  const last = await log.lastState(sessionId);
  const update = last?.update as { state?: unknown; background?: unknown } | undefined;
  const state = update?.state;
  const listed = Array.isArray(update?.background) ? (update.background as Listed[]) : undefined;
  const orphans =
    listed !== undefined && listed.length > 0 ? await stillRunning(log, sessionId, last!, listed) : [];
  const turnOpen = state !== undefined && state !== 'idle';
  if (!turnOpen && (listed === undefined || listed.length === 0)) return undefined;
  const entries: NewLogEntry[] = [...orphanEnds(orphans)];
  entries.push({
    update: {
      sessionUpdate: 'state_update',
      state: 'idle',
      ...(turnOpen ? { stopReason } : {}),
      ...(turnOpen && stopReason === 'error' ? { error: { code: -32603, message: STOPPED } } : {}),
      ...(listed === undefined ? {} : { background: [] }),
    } as unknown as LogEntry['update'],
    // Live-only, as every state_update the agent reports: replay reports the state as of the resume.
    retain: false,
  });
  return log.appendAsOwner(sessionId, entries, lease);
}

/**
 * The listed items whose end the log does not hold after the state update that listed them (the
 * owner may have appended an exit status and died before the state update dropping it).
 */
async function stillRunning(
  log: PostgresSessionLog,
  sessionId: string,
  last: LogEntry,
  listed: readonly Listed[],
): Promise<Listed[]> {
  const ended = new Set<string>();
  for (let after = last.seq; ; ) {
    const page = await log.read(sessionId, { afterSeq: after, limit: PAGE });
    for (const entry of page.entries) {
      const u = entry.update as { sessionUpdate: string; terminalId?: unknown; toolCallId?: unknown };
      const fields = u as { exitStatus?: unknown; status?: unknown };
      if (u.sessionUpdate === 'terminal_update' && fields.exitStatus != null)
        ended.add(`terminal ${u.terminalId}`);
      if (u.sessionUpdate === 'tool_call_update' && FINAL.has(fields.status as string))
        ended.add(`tool_call ${u.toolCallId}`);
    }
    const next = page.entries.at(-1)?.seq ?? page.lastSeq;
    if (next >= page.lastSeq || next <= after) break;
    after = next;
  }
  return listed.filter((item) => !ended.has(keyOf(item)));
}

const keyOf = (item: Listed): string =>
  item.type === 'terminal' ? `terminal ${item.terminalId}` : `${String(item.type)} ${item.toolCallId}`;

/** The notice naming the orphaned work, then each known item's end (retained: replay shows it). */
function orphanEnds(orphans: readonly Listed[]): NewLogEntry[] {
  if (orphans.length === 0) return [];
  const names = orphans.map((item) =>
    item.type === 'terminal'
      ? `terminal ${String(item.terminalId)}`
      : item.type === 'tool_call'
        ? `tool call ${String(item.toolCallId)}`
        : `background work of type ${JSON.stringify(item.type)}`,
  );
  const entries: NewLogEntry[] = [
    {
      update: {
        sessionUpdate: 'notice',
        severity: 'error',
        title: 'Background work was interrupted',
        description: `${ORPHANED} Ended: ${names.join(', ')}.`,
      } as unknown as LogEntry['update'],
    },
  ];
  for (const item of orphans) {
    if (item.type === 'terminal' && typeof item.terminalId === 'string') {
      entries.push({
        update: {
          sessionUpdate: 'terminal_update',
          terminalId: item.terminalId,
          exitStatus: { exitCode: null, signal: null },
        } as unknown as LogEntry['update'],
      });
    } else if (item.type === 'tool_call' && typeof item.toolCallId === 'string') {
      entries.push(
        {
          update: {
            sessionUpdate: 'tool_call_content_chunk',
            toolCallId: item.toolCallId,
            content: { type: 'content', content: { type: 'text', text: ORPHANED } },
          } as unknown as LogEntry['update'],
        },
        {
          update: {
            sessionUpdate: 'tool_call_update',
            toolCallId: item.toolCallId,
            status: 'failed',
          } as unknown as LogEntry['update'],
        },
      );
    }
  }
  return entries;
}
