import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The start of a fake component: reads JSON-RPC lines from stdin and hands each to `onMessage`. */
const PRELUDE = `
import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
const INIT = { protocolVersion: 2, info: { name: 'fake-agent', version: '0.0.0' }, capabilities: { session: {} } };
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
`;

/** Fake components for the failure tests, each a small Node script. */
const SCRIPTS = {
  /** Answers initialize (or proxy/initialize, as a proxy that never forwards), then exits with code 3 on session/new. */
  'dies-on-session-new.mjs': `${PRELUDE}
lines.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize' || m.method === 'proxy/initialize') send({ id: m.id, result: INIT });
  else if (m.method === 'session/new') process.exit(3);
});`,
  /** Answers initialize, then writes a line that is not JSON on session/new — and keeps running, ignoring SIGTERM. */
  'garbage-on-session-new.mjs': `${PRELUDE}
process.on('SIGTERM', () => {});
setInterval(() => {}, 1000);
lines.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ id: m.id, result: INIT });
  else if (m.method === 'session/new') process.stdout.write('this is not JSON-RPC\\n');
});`,
  /** Answers initialize with a protocolVersion that is a string. */
  'bad-initialize.mjs': `${PRELUDE}
lines.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ id: m.id, result: { ...INIT, protocolVersion: 'two' } });
});`,
  /**
   * A proxy that first sends proxy/successor without a method, then forwards initialize properly
   * and answers proxy/initialize with its successor's result, the refusal it got in _meta.
   */
  'bad-envelope-proxy.mjs': `${PRELUDE}
let initId;
let initParams;
let refusal;
lines.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'proxy/initialize') {
    initId = m.id;
    initParams = m.params;
    send({ id: 100, method: 'proxy/successor', params: { params: { protocolVersion: 2 } } });
  } else if (m.id === 100) {
    refusal = m.error;
    send({ id: 101, method: 'proxy/successor', params: { method: 'initialize', params: initParams } });
  } else if (m.id === 101) {
    send({ id: initId, result: { ...m.result, _meta: { refusal } } });
  }
});`,
};

/** Writes the fake components into `dir`; returns the command of each, by file name. */
export function writeFakeComponents(dir: string): Record<keyof typeof SCRIPTS, string[]> {
  const out = {} as Record<keyof typeof SCRIPTS, string[]>;
  for (const [name, text] of Object.entries(SCRIPTS)) {
    const file = join(dir, name);
    writeFileSync(file, text);
    out[name as keyof typeof SCRIPTS] = [process.execPath, file];
  }
  return out;
}
