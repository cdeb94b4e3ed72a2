import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import {
  Client,
  type ClientConnection,
  Connection,
  connectWebSocket,
  schemaValidator,
  spawnTransport,
  type Transport,
} from '@acp-kit/sdk';
import { spawnListeningAgent } from '../listen/spawn-listening-agent.js';
import { loadSqlitePackage } from './sqlite-history.js';
import { parseOptions } from '../command-line.js';

const BIN = fileURLToPath(new URL('../bin.js', import.meta.url));

const color = (code: number) => (text: string) =>
  process.stdout.isTTY ? `\u001b[${code}m${text}\u001b[0m` : text;
const dim = color(2);
const green = color(32);
const cyan = color(36);
const yellow = color(33);

function describeUpdate({ update }: SessionNotification): string {
  switch (update.sessionUpdate) {
    case 'user_message':
    case 'agent_message':
    case 'agent_thought': {
      const content = 'content' in update ? (update.content as ContentBlock[] | null | undefined) : undefined;
      const shown =
        content === undefined
          ? 'metadata only'
          : content === null || content.length === 0
            ? 'content reset []'
            : `${content.length} block(s)`;
      return `${update.sessionUpdate} ${update.messageId} (${shown})`;
    }
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const block = update.content as { type: string; text?: string };
      return `${update.sessionUpdate} ${update.messageId} ${JSON.stringify(block.text ?? `[${block.type}]`)}`;
    }
    case 'state_update': {
      const idle = update as { stopReason?: string | null };
      return `state_update ${update.state}${idle.stopReason ? ` (${idle.stopReason})` : ''}`;
    }
    case 'tool_call_update': {
      const call = update as { toolCallId: string; title?: string | null; status?: string | null };
      return `tool_call_update ${call.toolCallId}${call.title ? ` "${call.title}"` : ''}${call.status ? ` [${call.status}]` : ''}`;
    }
    case 'tool_call_content_chunk': {
      const chunk = update as { toolCallId: string; content: { type: string; terminalId?: string } };
      return `tool_call_content_chunk ${chunk.toolCallId} (${chunk.content.type}${chunk.content.terminalId ? ` ${chunk.content.terminalId}` : ''})`;
    }
    case 'terminal_update': {
      const terminal = update as {
        terminalId: string;
        command?: string | null;
        exitStatus?: { exitCode?: number | null } | null;
      };
      const exit = terminal.exitStatus ? ` exit ${terminal.exitStatus.exitCode ?? 'signal'}` : '';
      return `terminal_update ${terminal.terminalId}${terminal.command ? ` $ ${terminal.command}` : ''}${exit}`;
    }
    case 'terminal_output_chunk':
      return `terminal_output_chunk ${(update as { terminalId: string }).terminalId} ${JSON.stringify((update as { data: string }).data)}`;
    case 'plan_update': {
      const plan = (update as { plan: { entries?: { content: string; status: string }[] } }).plan;
      return `plan_update ${(plan.entries ?? []).map((e) => `${e.content} [${e.status}]`).join('; ')}`;
    }
    case 'available_commands_update':
      return `available_commands_update ${(update as { availableCommands: { name: string }[] }).availableCommands.map((c) => `/${c.name}`).join(' ')}`;
    case 'config_option_update':
      return `config_option_update ${(update as { configOptions: { configId: string; currentValue?: unknown }[] }).configOptions.map((o) => `${o.configId}=${String(o.currentValue)}`).join(' ')}`;
    case 'session_info_update':
      return `session_info_update title ${JSON.stringify((update as { title?: string | null }).title)}`;
    case 'usage_update':
      return `usage_update ${(update as { used: number }).used}/${(update as { size: number }).size} tokens`;
    case 'notice':
      return `notice [${(update as { severity: string }).severity}] ${(update as { title: string }).title}`;
    default:
      return update.sessionUpdate;
  }
}

/** The agent over stdio, or with `--listen` on a loopback WebSocket, connecting with its token. */
async function agentTransport(
  db: string,
  websocket: boolean,
): Promise<{ transport: Transport; stop: () => Promise<void> }> {
  const args = ['--history', db, '--chunk-delay', '15'];
  if (!websocket) {
    const transport = spawnTransport(process.execPath, [BIN, 'agent', ...args], { name: 'agent' });
    return { transport, stop: async () => void (await transport.shutdown()) };
  }
  const agent = await spawnListeningAgent(BIN, args);
  console.log(dim(`  agent listening on ${agent.url}; connecting with the token from its token file`));
  try {
    const transport = await connectWebSocket(agent.url, { token: agent.token });
    return {
      transport,
      stop: async () => {
        await transport.writer.close();
        await agent.stop();
      },
    };
  } catch (error) {
    await agent.stop();
    throw error;
  }
}

async function startAgent(
  db: string,
  websocket: boolean,
): Promise<{ client: Client; stop: () => Promise<void> }> {
  const { transport, stop } = await agentTransport(db, websocket);
  const connection: ClientConnection = new Connection(transport, { validator: schemaValidator });
  connection.onMessage((direction, message) => {
    if (direction !== 'in') return;
    const m = message as { method?: string; params?: SessionNotification; result?: { messageId?: string } };
    if (m.method === 'session/update' && m.params) console.log(dim('  ← ') + describeUpdate(m.params));
    else if (m.result?.messageId)
      console.log(green(`  ← insertion receipt: messageId ${m.result.messageId}`));
  });
  const client = new Client(connection, {
    info: { name: 'acp-kit-demo', version: '0.1.0' },
    capabilities: { elicitation: { form: {} } },
    onElicitation: (request) => {
      console.log(yellow(`  ? elicitation: ${request.message} → "blue"`));
      return { action: 'accept', content: { answer: 'blue' } };
    },
    onPermission: (request) => {
      console.log(yellow(`  ? permission asked: ${request.title} → allow`));
      return { outcome: { outcome: 'selected', optionId: 'allow' } };
    },
  });
  await client.initialize();
  return { client, stop };
}

/** `configId=value` for each option. */
function describeOptions(options: readonly { configId: string }[]): string {
  return options
    .map((o) => `${o.configId}=${String((o as { currentValue?: unknown }).currentValue)}`)
    .join(', ');
}

function idleAfter(client: Client, sessionId: string, turns: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const snapshot = client.store.snapshot(sessionId);
      if (snapshot.state.completedTurns >= turns && snapshot.state.state === 'idle') {
        resolve();
        return true;
      }
      return false;
    };
    if (check()) return;
    const unsubscribe = client.store.subscribe(() => {
      if (check()) unsubscribe();
    });
  });
}

function parse(args: string[]): { websocket: boolean } {
  const { values } = parseOptions({
    args,
    options: { websocket: { type: 'boolean' } },
    allowPositionals: false,
  });
  return { websocket: values.websocket === true };
}

/**
 * `acp-kit demo`: the prompt lifecycle as it happens, including a replay after an agent restart.
 * With `--websocket` the agent listens on loopback and the demo connects with its connection token.
 */
export async function runDemo(args: string[] = []): Promise<number> {
  const { websocket } = parse(args);
  // The agent the demo starts keeps its history in SQLite; without the optional package it would
  // only exit, so say here which package is missing and how to get it.
  try {
    await loadSqlitePackage('the demo (a restart with retained history)');
  } catch (error) {
    process.stderr.write(`acp-kit demo: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-demo-'));
  const db = join(dir, 'history.db');
  try {
    console.log(
      cyan(
        `▶ starting the reference agent with retained history in SQLite${websocket ? ', over WebSocket' : ''}`,
      ),
    );
    let { client, stop } = await startAgent(db, websocket);
    const sessionId = await client.newSession(process.cwd());
    console.log(`  session ${sessionId}`);

    let turns = 0;
    for (const text of ["What's the capital of France?", '/note buy milk', '/status', '/write notes.md']) {
      console.log(cyan(`▶ prompt: ${text}`));
      const messageId = await client.prompt(sessionId, [{ type: 'text', text }]);
      console.log(`  prompt() resolved with ${messageId} — the turn goes on after the receipt`);
      turns += 1;
      await idleAfter(client, sessionId, turns);
    }

    const before = client.store.snapshot(sessionId).messages.map((m) => `${m.kind} ${m.messageId}`);

    console.log(cyan('▶ a second session for the v2 session features'));
    const tour = await client.newSession(process.cwd());
    console.log(`  session ${tour}`);
    console.log(cyan('▶ session/set_config_option model = echo-twice'));
    const options = await client.setConfigOption(tour, 'model', 'echo-twice');
    console.log(`  options now: ${describeOptions(options)}`);
    let tourTurns = 0;
    for (const text of [
      'Hello again',
      '/run npm test',
      '/ask What is your favourite colour?',
      '/title Demo session',
    ]) {
      console.log(cyan(`▶ prompt: ${text}`));
      await client.prompt(tour, [{ type: 'text', text }]);
      tourTurns += 1;
      await idleAfter(client, tour, tourTurns);
    }
    const spare = await client.newSession(process.cwd());
    console.log(cyan('▶ session/list'));
    for (const info of (await client.listSessions()).sessions) {
      console.log(`  ${info.sessionId} ${JSON.stringify(info.title ?? null)} updated ${info.updatedAt}`);
    }
    console.log(cyan(`▶ session/delete ${spare} (the agent advertises session.delete)`));
    await client.deleteSession(spare);
    console.log(`  ${(await client.listSessions()).sessions.length} session(s) listed now`);

    console.log(cyan('▶ restarting the agent process on the same history file'));
    await stop();
    ({ client, stop } = await startAgent(db, websocket));
    console.log(cyan('▶ session/resume with replayFrom {"type":"start"}'));
    await client.resume(sessionId, { cwd: process.cwd(), replay: true });
    const after = client.store.snapshot(sessionId).messages.map((m) => `${m.kind} ${m.messageId}`);
    console.log(cyan('▶ retained messages after replay (live-only /status and its reply are absent):'));
    for (const line of after)
      console.log(`  ${line}${before.includes(line) ? green('  same ID as before the restart') : ''}`);
    console.log(
      cyan('▶ session/resume of the second session: its plan, tool call and terminal replay under their IDs'),
    );
    const resumed = await client.resume(tour, { cwd: process.cwd(), replay: true });
    console.log(
      `  resume answered: configOptions ${describeOptions(resumed.configOptions ?? [])}; ${(resumed.availableCommands ?? []).length} commands`,
    );
    console.log(cyan('▶ session/close: the agent frees the live session; its history stays listed'));
    await client.closeSession(tour);
    console.log(
      `  still listed: ${(await client.listSessions()).sessions.some((s) => s.sessionId === tour)}`,
    );
    await stop();
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
