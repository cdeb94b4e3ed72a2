/**
 * Background work for a v1 client. v1 has no background list and no terminal the agent reports
 * (its terminals are the client's own, made by `terminal/create`), so a v2 terminal that runs in
 * the background reaches a v1 client as a v1 tool call of kind `execute` under the ID
 * `terminal-<terminalId>`: announced (a v1 `tool_call`) at the first update after a list named it,
 * its output so far as the tool call's text content, and its exit status as the tool call's final
 * status. A tool call that runs in the background needs nothing here: v1 tool call updates already
 * carry it. The list itself has no v1 form and is reported as lost.
 *
 * A terminal a tool call embeds (`{ type: 'terminal', terminalId }` in its content) shows in that
 * tool call's card instead, in the background or not: v1 has no terminal the agent reports, so the
 * item becomes the terminal's output as text, and each terminal update is a `tool_call_update` of
 * the embedding tool call (its status stays the tool call's own). The v1 client gets one card for
 * the work, not a second `terminal-<terminalId>` one.
 *
 * Why a tool call and not agent message text: after the prompt was answered a v1 client has no
 * open turn, and a v1 message chunk carries no message ID, so many clients append it to the last
 * reply or drop it; a tool call update names its tool call, so a client updates that card in place
 * whenever it arrives.
 */
import type * as V2 from '@acp-kit/schema';
import { v2ToV1ToolCallUpdate } from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import type { LeftOut } from '../bridge-loss.js';

/** The most output a v1 tool call shows of a terminal: its tail (v1 replaces the content whole on every update). */
export const TERMINAL_TAIL_CHARS = 16 * 1024;

/** What the bridge keeps of one v2 terminal, to show it to a v1 client as a tool call. */
export interface TerminalShown {
  command: string | null;
  /** The output so far (its last {@link TERMINAL_TAIL_CHARS} characters). */
  output: string;
  /** Whether cutting the output to its tail was reported (once per terminal shown). */
  cut: boolean;
  exitStatus: V2.TerminalExitStatus | null;
  /** A background list named it: its updates now reach the v1 client, as this tool call. */
  toolCallId: string | null;
  /** The v1 client was sent the `tool_call` that announces it. */
  announced: boolean;
  /** The tool call whose content embeds it, if one does: the terminal shows in that card. */
  host: string | null;
}

/** What the terminal converters read and change of the session as the v1 client was shown it. */
export interface BackgroundContext {
  readonly terminals: Map<string, TerminalShown>;
  /** The v1 tool calls of the session (the terminal's tool call ID must not be one of them). */
  readonly toolCalls: Map<string, V2.ToolCallContent[]>;
  readonly leftOut: LeftOut;
}

const FOREGROUND_TERMINAL =
  'v1 shows terminals only through terminal/* requests to the client, which have no v2 counterpart; a terminal reaches a v1 client only once it runs in the background (as a tool call)';

function shown(context: Pick<BackgroundContext, 'terminals'>, terminalId: string): TerminalShown {
  let terminal = context.terminals.get(terminalId);
  if (terminal === undefined) {
    terminal = {
      command: null,
      output: '',
      cut: false,
      exitStatus: null,
      toolCallId: null,
      announced: false,
      host: null,
    };
    context.terminals.set(terminalId, terminal);
  }
  return terminal;
}

function keepTail(terminal: TerminalShown, output: string, context: BackgroundContext): void {
  if (output.length <= TERMINAL_TAIL_CHARS) {
    terminal.output = output;
    return;
  }
  terminal.output = output.slice(-TERMINAL_TAIL_CHARS);
  if (terminal.cut || (terminal.toolCallId === null && terminal.host === null)) return;
  terminal.cut = true;
  context.leftOut(
    '/output',
    `a v1 tool call shows only the last ${TERMINAL_TAIL_CHARS} characters of a terminal's output`,
  );
}

/** The v1 tool call status of a terminal: running, or how it exited. */
function statusOf(terminal: TerminalShown): V1.ToolCallStatus {
  if (terminal.exitStatus === null) return 'in_progress';
  return terminal.exitStatus.exitCode === 0 ? 'completed' : 'failed';
}

/** The v1 update that shows the terminal now: its announcement the first time, then an update. */
function asToolCall(terminal: TerminalShown): V1.SessionUpdate[] {
  const toolCallId = terminal.toolCallId as string;
  const content: V1.ToolCallContent[] =
    terminal.output === '' ? [] : [{ type: 'content', content: { type: 'text', text: terminal.output } }];
  if (!terminal.announced) {
    terminal.announced = true;
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId,
        title: terminal.command ?? 'Background terminal',
        kind: 'execute',
        status: statusOf(terminal),
        content,
      } as V1.SessionUpdate,
    ];
  }
  return [
    {
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: statusOf(terminal),
      content,
    } as V1.SessionUpdate,
  ];
}

/** A v2 terminal_update: kept; shown as its tool call once a background list named the terminal, else lost. */
export function terminalToV1(update: V2.TerminalUpdate, context: BackgroundContext): V1.SessionUpdate[] {
  const terminal = shown(context, update.terminalId);
  if (update.command !== undefined) terminal.command = update.command;
  if (update.exitStatus !== undefined) terminal.exitStatus = update.exitStatus;
  if (update.output !== undefined) keepTail(terminal, update.output?.data ?? '', context);
  if (terminal.host !== null) return inHost(terminal.host, context);
  if (terminal.toolCallId === null) {
    context.leftOut('', FOREGROUND_TERMINAL);
    return [];
  }
  return asToolCall(terminal);
}

/** A v2 terminal_output_chunk: appended; shown as its tool call's whole (tail of the) output once in the background, else lost. */
export function terminalOutputToV1(
  update: V2.TerminalOutputChunk,
  context: BackgroundContext,
): V1.SessionUpdate[] {
  const terminal = shown(context, update.terminalId);
  keepTail(terminal, terminal.output + update.data, context);
  if (terminal.host !== null) return inHost(terminal.host, context);
  if (terminal.toolCallId === null) {
    context.leftOut('', FOREGROUND_TERMINAL);
    return [];
  }
  return asToolCall(terminal);
}

/**
 * A state update's background list: each terminal it names from now on reaches the v1 client as a
 * tool call (see the module comment). The list itself has no v1 form and is reported as lost.
 */
export function backgroundToV1(background: unknown, context: BackgroundContext): void {
  if (!Array.isArray(background)) return;
  for (const item of background as V2.BackgroundWork[]) {
    const terminalId = (item as { type?: unknown; terminalId?: unknown }).terminalId;
    if (item.type !== 'terminal' || typeof terminalId !== 'string') continue;
    const terminal = shown(context, terminalId);
    // Shown in the card of the tool call that embeds it, or in its own card already.
    if (terminal.host !== null || terminal.toolCallId !== null) continue;
    let toolCallId = `terminal-${terminalId}`;
    for (let n = 2; context.toolCalls.has(toolCallId); n++) toolCallId = `terminal-${terminalId}-${n}`;
    context.toolCalls.set(toolCallId, []);
    terminal.toolCallId = toolCallId;
  }
  context.leftOut(
    '/background',
    'v1 has no background list: a background tool call goes on as its v1 tool call updates, a background terminal as a v1 tool call of its own from its next update',
  );
}

/**
 * Records which terminals a tool call's content embeds (each then shows in that tool call's card)
 * and returns the content as a v1 client is shown it: each embedded terminal's item replaced by
 * its output so far as text (left out while there is none).
 */
export function showEmbeddedTerminals(
  toolCallId: string,
  content: readonly V2.ToolCallContent[],
  context: Pick<BackgroundContext, 'terminals'>,
): V2.ToolCallContent[] {
  const shownContent: V2.ToolCallContent[] = [];
  for (const item of content) {
    const terminalId = (item as { type?: unknown; terminalId?: unknown }).terminalId;
    if (item.type !== 'terminal' || typeof terminalId !== 'string') {
      shownContent.push(item);
      continue;
    }
    const terminal = shown(context, terminalId);
    terminal.host = toolCallId;
    if (terminal.output !== '')
      shownContent.push({ type: 'content', content: { type: 'text', text: terminal.output } });
  }
  return shownContent;
}

/** A terminal embedded in a tool call changed: that tool call's update, with the output shown. */
function inHost(toolCallId: string, context: BackgroundContext): V1.SessionUpdate[] {
  const content = context.toolCalls.get(toolCallId) ?? [];
  return [
    v2ToV1ToolCallUpdate({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      content: showEmbeddedTerminals(toolCallId, content, context),
    }),
  ];
}
