// A stdio ACP agent for the hostile-peer tests behind `acp-kit serve`. The `info.name` of the
// first `initialize` it reads picks what it does for that connection:
//   "flood" — answers initialize, then writes 64 KiB session/update notifications as fast as its
//             stdout takes them, forever;
//   "deaf"  — answers initialize, then never reads its stdin again;
//   "mute"  — never answers initialize; exits when its stdin ends;
//   anything else — serves the reference agent (`acp-kit agent`) for the rest of the connection.
import { PassThrough } from 'node:stream';
import { Connection, schemaValidator, streamTransport } from '@acp-kit/sdk';
import { createReferenceAgent } from '../../dist/agent/reference-agent.js';

const answer = (id) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 2, info: { name: 'hostile', version: '0' }, capabilities: {} } })}\n`;

let buffered = '';
const onData = (chunk) => {
  buffered += chunk;
  const newline = buffered.indexOf('\n');
  if (newline < 0) return;
  process.stdin.off('data', onData);
  const first = buffered.slice(0, newline);
  const rest = buffered.slice(newline + 1);
  const message = JSON.parse(first);
  const mode = message.params?.info?.name;
  process.stderr.write(`hostile agent pid ${process.pid} mode ${mode}\n`);
  if (mode === 'flood') {
    process.stdout.write(answer(message.id));
    const update = `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'flood', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: 'x'.repeat(64 * 1024) } } } })}\n`;
    const pump = () => {
      while (process.stdout.write(update)) {}
      process.stdout.once('drain', pump);
    };
    pump();
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
  } else if (mode === 'deaf') {
    process.stdout.write(answer(message.id));
    process.stdin.pause();
    // Stays up (not reading) until killed.
    setInterval(() => {}, 1 << 30);
  } else if (mode === 'mute') {
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
    setInterval(() => {}, 1 << 30);
  } else {
    const input = new PassThrough();
    input.write(`${first}\n${rest}`);
    process.stdin.pipe(input);
    const connection = new Connection(streamTransport(input, process.stdout, { endOnClose: false }), {
      validator: schemaValidator,
    });
    connection.onClose(() => process.exit(0));
    createReferenceAgent({ chunkDelayMs: 0 }).serve(connection);
  }
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', onData);
