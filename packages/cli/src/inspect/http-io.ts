import type { IncomingMessage, ServerResponse } from 'node:http';

/** The largest frame the page may send to the agent. */
export const MAX_SEND_BYTES = 8 * 1024 * 1024;

/** Answers with a plain-text body. */
export function send(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  response.end(body);
}

/** The request's body as text, or undefined (and the request destroyed) past {@link MAX_SEND_BYTES}. */
export function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_SEND_BYTES) {
        resolve(undefined);
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
