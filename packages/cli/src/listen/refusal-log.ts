import type { HandshakeRefusal } from '@acp-kit/sdk';

/**
 * Logs refused handshakes to stderr, at most `perWindow` lines per `windowMs`, then one line saying
 * how many more were refused, so a flood cannot flood the log too. Lines start `acp-kit <command>: `.
 */
export function refusalLogger(
  write: (line: string) => void,
  perWindow = 10,
  windowMs = 10_000,
  command = 'agent',
): (refusal: HandshakeRefusal) => void {
  let windowStart = 0;
  let logged = 0;
  let suppressed = 0;
  return (refusal) => {
    const now = Date.now();
    if (now - windowStart >= windowMs) {
      if (suppressed > 0) write(`acp-kit ${command}: … and ${suppressed} more handshakes refused\n`);
      windowStart = now;
      logged = 0;
      suppressed = 0;
    }
    if (logged >= perWindow) {
      suppressed += 1;
      return;
    }
    logged += 1;
    const origin = refusal.origin === undefined ? '' : `, Origin ${JSON.stringify(refusal.origin)}`;
    write(
      `acp-kit ${command}: refused ${refusal.address} with HTTP ${refusal.status} (${refusal.reason}${origin})\n`,
    );
  };
}
