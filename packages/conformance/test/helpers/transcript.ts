/** Builds transcripts line by line for lint tests, so each test shows exactly what is on the wire. */
export class TranscriptBuilder {
  readonly #lines: string[] = [];

  /** The 1-based number the next line will get. */
  get nextLine(): number {
    return this.#lines.length + 1;
  }

  /** Appends a raw line (for malformed-line tests); returns its line number. */
  raw(text: string): number {
    this.#lines.push(text);
    return this.#lines.length;
  }

  /** Appends a message from the client; returns its line number. */
  client(msg: unknown): number {
    return this.raw(JSON.stringify({ dir: 'client->agent', msg }));
  }

  /** Appends a message from the agent; returns its line number. */
  agent(msg: unknown): number {
    return this.raw(JSON.stringify({ dir: 'agent->client', msg }));
  }

  /** The client's initialize and session/new with the agent's answers. */
  open(sessionId = 'sess_1'): this {
    this.client({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: 2, info: { name: 't', version: '1' } },
    });
    this.agent({
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: 2, info: { name: 'a', version: '1' }, capabilities: { session: {} } },
    });
    this.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp' } });
    this.agent({ jsonrpc: '2.0', id: 1, result: { sessionId } });
    return this;
  }

  /** A text prompt request; returns its line. */
  prompt(id: number, text: string, sessionId = 'sess_1'): number {
    return this.client({
      jsonrpc: '2.0',
      id,
      method: 'session/prompt',
      params: { sessionId, prompt: [{ type: 'text', text }] },
    });
  }

  /** A success response from the agent; returns its line. */
  result(id: number, result: unknown): number {
    return this.agent({ jsonrpc: '2.0', id, result });
  }

  /** An error response from the agent; returns its line. */
  error(id: number, code: number, message = 'refused'): number {
    return this.agent({ jsonrpc: '2.0', id, error: { code, message } });
  }

  /** A session/update from the agent; returns its line. */
  update(update: Record<string, unknown>, sessionId = 'sess_1'): number {
    return this.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } });
  }

  /** A whole well-behaved turn for an already-answered prompt: user message, running, reply, idle. */
  turn(messageId: string, text: string, replyId: string, sessionId = 'sess_1'): this {
    this.update({ sessionUpdate: 'user_message', messageId, content: [{ type: 'text', text }] }, sessionId);
    this.update({ sessionUpdate: 'state_update', state: 'running' }, sessionId);
    this.update(
      { sessionUpdate: 'agent_message_chunk', messageId: replyId, content: { type: 'text', text: 'Hi ' } },
      sessionId,
    );
    this.update(
      { sessionUpdate: 'agent_message_chunk', messageId: replyId, content: { type: 'text', text: 'there.' } },
      sessionId,
    );
    this.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }, sessionId);
    return this;
  }

  /** The transcript text. */
  text(): string {
    return `${this.#lines.join('\n')}\n`;
  }
}
