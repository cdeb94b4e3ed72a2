// Runs in a dedicated worker in Chromium: an ndjson JSON-RPC peer over webStreamTransport from
// @acp-kit/sdk/browser, its streams made from the worker's messages (one Uint8Array per message).
import { webStreamTransport } from '@acp-kit/sdk/browser';
import { Connection } from '@acp-kit/sdk/rpc';

const readable = new ReadableStream({
  start(controller) {
    self.onmessage = (event) => controller.enqueue(new Uint8Array(event.data));
  },
});
const writable = new WritableStream({
  write(chunk) {
    self.postMessage(chunk);
  },
});
const connection = new Connection(webStreamTransport(readable, writable, { maxMessageBytes: 1024 }));
connection.onRequest('echo', (params) => ({ echoed: params, in: typeof WorkerGlobalScope }));
connection.onRequest('ask', async () => connection.sendRequest('whoami', {}));
connection.listen();
