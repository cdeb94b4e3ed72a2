// The page's side: a Connection over webStreamTransport to a worker, and a raw exchange with a
// second worker (an oversized line, then a valid one), exposed as globalThis.webStreams.
import { webStreamTransport } from '@acp-kit/sdk/browser';
import { Connection } from '@acp-kit/sdk/rpc';

function streamsOf(worker) {
  const readable = new ReadableStream({
    start(controller) {
      worker.onmessage = (event) => controller.enqueue(new Uint8Array(event.data));
    },
  });
  const writable = new WritableStream({
    write(chunk) {
      worker.postMessage(chunk);
    },
  });
  return { readable, writable };
}

async function connected() {
  const worker = new Worker('/worker.js', { type: 'module' });
  const { readable, writable } = streamsOf(worker);
  const connection = new Connection(webStreamTransport(readable, writable));
  connection.onRequest('whoami', () => 'the page');
  connection.listen();
  const echo = await connection.sendRequest('echo', { text: 'hello worker' });
  const asked = await connection.sendRequest('ask', {});
  connection.close();
  worker.terminate();
  return { echo, asked };
}

async function oversized() {
  const worker = new Worker('/worker.js', { type: 'module' });
  const answers = [];
  let buffered = '';
  const done = new Promise((resolve) => {
    worker.onmessage = (event) => {
      buffered += new TextDecoder().decode(event.data);
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) if (line.trim() !== '') answers.push(JSON.parse(line));
      if (answers.length >= 2) resolve();
    };
  });
  const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { pad: 'x'.repeat(5000) } });
  const bytes = new TextEncoder().encode(
    `${huge}\n{"jsonrpc":"2.0","id":2,"method":"echo","params":{"after":true}}\n`,
  );
  worker.postMessage(bytes.slice(0, 700));
  worker.postMessage(bytes.slice(700));
  await done;
  worker.terminate();
  return { answers, hugeLength: huge.length };
}

globalThis.webStreams = { connected, oversized };
