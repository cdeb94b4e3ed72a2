import type { SessionId, TerminalCapabilities, ToolCallContent } from '@acp-kit/schema';
import type { Client } from '@acp-kit/sdk';

/** What the user sees of each run: the tool call's status, and the output of the terminal it embeds. */
export function runView(client: Client, sessionId: SessionId) {
  const { toolCalls, terminals } = client.store.snapshot(sessionId);
  return toolCalls.map(({ toolCallId, fields }) => {
    // Fields are kept as the agent sent them (unknown ones too), so check their shape.
    const content = Array.isArray(fields.content) ? (fields.content as ToolCallContent[]) : [];
    const ids = content.flatMap((c) => (c.type === 'terminal' ? [c.terminalId] : []));
    const terminal = terminals.find((t) => ids.includes(t.terminalId));
    return {
      toolCallId,
      status: fields.status,
      output: terminal?.output ?? '',
      exit: terminal?.fields.exitStatus,
    };
  });
}

/** Stops the command of every terminal that is still running and advertises cancel. */
export async function stopCommands(client: Client, sessionId: SessionId): Promise<number> {
  const stoppable = client.store.snapshot(sessionId).terminals.filter((t) => {
    const capabilities = t.fields.capabilities as TerminalCapabilities | undefined;
    return capabilities?.cancel != null && t.fields.exitStatus === undefined;
  });
  for (const terminal of stoppable) await client.cancelTerminal(sessionId, terminal.terminalId);
  return stoppable.length;
}
