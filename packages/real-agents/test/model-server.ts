/**
 * A canned model server on 127.0.0.1: the OpenAI Responses API (`POST /v1/responses`, what codex
 * speaks with `wire_api = "responses"`) and the Anthropic Messages API (`POST /v1/messages`, what
 * Claude Code speaks), both streaming SSE. It answers from the conversation it is sent, with no
 * state of its own, so an agent's retries, side requests and restarts all get the same answer.
 *
 * The script is the user's prompt text (the latest user message of the current turn):
 * - `run: <command>` — a shell tool call that needs the client's permission (codex: `exec_command`
 *   with `sandbox_permissions: "require_escalated"`; Claude: `Bash`); once the tool's result comes
 *   back, the text `ran: <command>`.
 * - `write: <file> <text>` — a file edit (codex: `apply_patch` adding the file; Claude: `Write`),
 *   then the text `wrote: <file>`.
 * - `read: <file>` — a file read (Claude: `Read`, or `mcp__acp__Read` when offered, which reads
 *   through the client's `fs/read_text_file`), then the text `read: <file>`; codex is told it
 *   cannot.
 * - `long` (or `acp-kit conformance`'s "Please repeat all of this back slowly…") — text deltas every
 *   50 ms until the client goes away (a turn to cancel).
 * - anything else — the text `said: <prompt>`.
 * A request without tools (a title or summary side request) gets the text `title`. Every request is
 * logged with its path, its headers that matter and its body, so a test can see what an agent asked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One request the server received. */
export interface ModelRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A running canned model server. */
export interface ModelServer {
  /** `http://127.0.0.1:PORT` (no path). */
  origin: string;
  /** Every request received, in order. */
  requests: ModelRequest[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** What the script decided for one model call. */
type Answer =
  | { type: 'text'; text: string }
  | { type: 'shell'; command: string }
  | { type: 'write'; file: string; text: string }
  | { type: 'read'; file: string }
  | { type: 'long' };

/** The answer to a turn whose user prompt is `prompt`, once `toolDone` says whether its tool ran. */
export function scriptFor(prompt: string, toolDone: boolean): Answer {
  const run = /^run: (.+)$/s.exec(prompt.trim());
  if (run) return toolDone ? { type: 'text', text: `ran: ${run[1]}` } : { type: 'shell', command: run[1]! };
  const write = /^write: (\S+) (.+)$/s.exec(prompt.trim());
  if (write)
    return toolDone
      ? { type: 'text', text: `wrote: ${write[1]}` }
      : { type: 'write', file: write[1]!, text: write[2]! };
  const read = /^read: (\S+)$/.exec(prompt.trim());
  if (read) return toolDone ? { type: 'text', text: `read: ${read[1]}` } : { type: 'read', file: read[1]! };
  // `long`, and the long prompt `acp-kit conformance` cancels.
  if (/^(long$|Please repeat all of this back slowly)/.test(prompt.trim())) return { type: 'long' };
  return { type: 'text', text: `said: ${prompt.trim()}` };
}

const textOfContent = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: Json) => (typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
};

/** The scripted prompt: the last line that starts a directive, else the whole text. */
function promptOf(text: string): string {
  const lines = text.split('\n').map((line) => line.trim());
  const directive = lines.findLast((line) =>
    /^(run: |write: |read: |long$|Please repeat all of this)/.test(line),
  );
  return directive ?? lines.filter((line) => line !== '' && !line.startsWith('<')).at(-1) ?? text;
}

/** OpenAI Responses: the turn's prompt and whether a tool output follows it. */
function responsesTurn(body: Json): { prompt: string; toolDone: boolean; tools: boolean } {
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  let prompt = '';
  let toolDone = false;
  for (const item of input) {
    if (item.type === 'message' && item.role === 'user') {
      const text = textOfContent(item.content);
      // codex sends its environment context and instructions as user messages in angle brackets.
      if (text.trim().startsWith('<')) continue;
      prompt = promptOf(text);
      toolDone = false;
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      toolDone = true;
    }
  }
  return { prompt, toolDone, tools: Array.isArray(body.tools) && body.tools.length > 0 };
}

/**
 * Anthropic Messages: the turn's prompt and whether a tool result follows it. Parts count in order:
 * Claude Code puts a prompt queued behind an interrupted tool call in the same user message as the
 * tool's result, after it.
 */
function messagesTurn(body: Json): { prompt: string; toolDone: boolean; tools: boolean } {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  let prompt = '';
  let toolDone = false;
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const parts: Json[] = Array.isArray(message.content)
      ? (message.content as Json[])
      : [{ type: 'text', text: String(message.content ?? '') }];
    for (const part of parts) {
      if (part.type === 'tool_result') {
        toolDone = true;
        continue;
      }
      const found = promptOf(typeof part.text === 'string' ? part.text : '');
      if (found.trim() === '' || found.startsWith('<') || found.startsWith('[Request interrupted')) continue;
      prompt = found;
      toolDone = false;
    }
  }
  return { prompt, toolDone, tools: Array.isArray(body.tools) && body.tools.length > 0 };
}

const sse = (response: ServerResponse, event: string, data: Json): boolean =>
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Streams text deltas until the peer goes away (or 10 minutes, a bound for a leaked stream). */
async function streamLong(response: ServerResponse, delta: (index: number) => void): Promise<void> {
  let closed = false;
  response.once('close', () => {
    closed = true;
  });
  for (let index = 0; index < 12_000 && !closed; index++) {
    delta(index);
    await sleep(50);
  }
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${++counter}`;

async function answerResponses(body: Json, response: ServerResponse): Promise<void> {
  const turn = responsesTurn(body);
  const answer: Answer = turn.tools ? scriptFor(turn.prompt, turn.toolDone) : { type: 'text', text: 'title' };
  const id = nextId('resp');
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(response, 'response.created', { type: 'response.created', response: { id } });
  const message = (text: string) => {
    const itemId = nextId('msg');
    sse(response, 'response.output_item.added', {
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'message', role: 'assistant', id: itemId, content: [] },
    });
    sse(response, 'response.output_text.delta', {
      type: 'response.output_text.delta',
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta: text,
    });
    sse(response, 'response.output_item.done', {
      type: 'response.output_item.done',
      output_index: 0,
      item: { type: 'message', role: 'assistant', id: itemId, content: [{ type: 'output_text', text }] },
    });
  };
  if (answer.type === 'text') message(answer.text);
  else if (answer.type === 'read') message(`cannot read: ${answer.file}`);
  else if (answer.type === 'shell') {
    sse(response, 'response.output_item.done', {
      type: 'response.output_item.done',
      output_index: 0,
      item: {
        type: 'function_call',
        id: nextId('fc'),
        call_id: nextId('call'),
        name: 'exec_command',
        arguments: JSON.stringify({
          cmd: answer.command,
          sandbox_permissions: 'require_escalated',
          // codex waits this long for the command to exit before reporting it "still running"
          // (its default, 10 s, is too short on a loaded CI machine).
          yield_time_ms: 30_000,
          justification: 'The test asks for this command to run.',
        }),
      },
    });
  } else if (answer.type === 'write') {
    const patch = `*** Begin Patch\n*** Add File: ${answer.file}\n+${answer.text}\n*** End Patch\n`;
    const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
    const freeform = tools.some((tool) => tool.type === 'custom' && tool.name === 'apply_patch');
    // With a model it has no metadata for, codex offers no apply_patch tool: say so instead.
    if (!tools.some((tool) => tool.name === 'apply_patch'))
      message('cannot edit: no apply_patch tool offered');
    else
      sse(response, 'response.output_item.done', {
        type: 'response.output_item.done',
        output_index: 0,
        item: freeform
          ? {
              type: 'custom_tool_call',
              id: nextId('ctc'),
              call_id: nextId('call'),
              name: 'apply_patch',
              input: patch,
            }
          : {
              type: 'function_call',
              id: nextId('fc'),
              call_id: nextId('call'),
              name: 'apply_patch',
              arguments: JSON.stringify({ input: patch }),
            },
      });
  } else {
    const itemId = nextId('msg');
    sse(response, 'response.output_item.added', {
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'message', role: 'assistant', id: itemId, content: [] },
    });
    await streamLong(response, (index) =>
      sse(response, 'response.output_text.delta', {
        type: 'response.output_text.delta',
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        delta: `tick ${index} `,
      }),
    );
    return;
  }
  sse(response, 'response.completed', {
    type: 'response.completed',
    response: {
      id,
      usage: {
        input_tokens: 10,
        input_tokens_details: null,
        output_tokens: 10,
        output_tokens_details: null,
        total_tokens: 20,
      },
    },
  });
  response.end();
}

async function answerMessages(body: Json, response: ServerResponse): Promise<void> {
  const turn = messagesTurn(body);
  const answer: Answer = turn.tools ? scriptFor(turn.prompt, turn.toolDone) : { type: 'text', text: 'title' };
  const model = typeof body.model === 'string' ? body.model : 'claude-canned';
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(response, 'message_start', {
    type: 'message_start',
    message: {
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  const finish = (stopReason: string) => {
    sse(response, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 10 },
    });
    sse(response, 'message_stop', { type: 'message_stop' });
    response.end();
  };
  const tool = (name: string, input: Json) => {
    sse(response, 'content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: nextId('toolu'), name, input: {} },
    });
    sse(response, 'content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
    });
    sse(response, 'content_block_stop', { type: 'content_block_stop', index: 0 });
    finish('tool_use');
  };
  // Offered the client's terminal and file system, claude-code-acp replaces Bash and Write with its
  // own MCP tools (served through ACP's terminal/* and fs/*); use them when the request lists them.
  const names = new Set((Array.isArray(body.tools) ? (body.tools as Json[]) : []).map((t) => t.name));
  const named = (name: string) => (names.has(`mcp__acp__${name}`) ? `mcp__acp__${name}` : name);
  if (answer.type === 'shell')
    return tool(named('Bash'), { command: answer.command, description: 'Run the command', timeout: 60_000 });
  if (answer.type === 'write')
    return tool(named('Write'), { file_path: answer.file, content: `${answer.text}\n` });
  if (answer.type === 'read') return tool(named('Read'), { file_path: answer.file });
  sse(response, 'content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  });
  if (answer.type === 'long') {
    await streamLong(response, (index) =>
      sse(response, 'content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: `tick ${index} ` },
      }),
    );
    return;
  }
  sse(response, 'content_block_delta', {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: answer.text },
  });
  sse(response, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  finish('end_turn');
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 64 * 1024 * 1024) throw new Error('request body over 64 MiB');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const LOGGED_HEADERS = ['authorization', 'x-api-key', 'anthropic-version', 'anthropic-beta', 'user-agent'];

/** Starts the server on 127.0.0.1 on an ephemeral port. */
export async function startModelServer(): Promise<ModelServer> {
  const requests: ModelRequest[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const path = (request.url ?? '/').split('?')[0]!;
      requests.push({
        method: request.method ?? '',
        path,
        headers: Object.fromEntries(LOGGED_HEADERS.map((name) => [name, request.headers[name]])),
        body,
      });
      const json = (body ?? {}) as Json;
      if (request.method === 'POST' && path.endsWith('/responses')) return answerResponses(json, response);
      if (request.method === 'POST' && path.endsWith('/messages/count_tokens')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ input_tokens: 10 }));
      }
      if (request.method === 'POST' && path.endsWith('/messages')) return answerMessages(json, response);
      if (request.method === 'GET' && path.endsWith('/models')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ data: [], object: 'list' }));
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'not_found', message: `no canned answer for ${path}` } }));
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
