// An ACP agent that will not go away by itself: it ignores the end of its stdin and SIGTERM,
// SIGINT and SIGHUP. It answers every request with an empty result (initialize with protocol
// version 2), so clients and gateways get going. Once it runs it appends
// "<pid> <process group>\n" to $PID_FILE, so a test can check that nothing of it outlives the
// command that started it.
import { appendFileSync, readFileSync } from 'node:fs';

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => undefined);
process.stdin.on('end', () => undefined);
process.stdin.on('error', () => undefined);
process.stdout.on('error', () => undefined);
let buffer = '';
process.stdin.setEncoding('utf8').on('data', (text) => {
  buffer += text;
  for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message.id === undefined || typeof message.method !== 'string') continue;
    const result =
      message.method === 'initialize'
        ? { protocolVersion: 2, info: { name: 'stubborn', version: '0' }, capabilities: { session: {} } }
        : {};
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
  }
});
setInterval(() => undefined, 1000);
const stat = readFileSync('/proc/self/stat', 'utf8');
const group = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2];
appendFileSync(process.env.PID_FILE, `${process.pid} ${group}\n`);
