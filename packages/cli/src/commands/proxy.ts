import { runProxy } from '@acp-kit/sdk/proxy';
import { referenceProxy } from '../chain/proxy-command.js';
import { parseOptions } from '../command-line.js';
import { UsageError } from '../usage-error.js';

/**
 * `acp-kit proxy [--name <label>] [--context <text>] [--log <file.ndjson>]`: an ACP proxy on
 * stdio, for a conductor (`acp-kit chain --proxy …`, or any conductor of the proxy-chains draft)
 * to start. Exits 0 when the conductor closes the connection.
 */
export async function runProxyCommand(args: string[]): Promise<number> {
  const { values } = parseOptions({
    args,
    options: { name: { type: 'string' }, context: { type: 'string' }, log: { type: 'string' } },
    allowPositionals: false,
  });
  if (values.log === '') throw new UsageError('--log expects a file path');
  let proxy: ReturnType<typeof referenceProxy>;
  try {
    proxy = referenceProxy({
      name: values.name ?? 'acp-kit proxy',
      ...(values.context === undefined ? {} : { context: values.context }),
      ...(values.log === undefined ? {} : { log: values.log }),
    });
  } catch (error) {
    // The --log file could not be opened owner-only: nothing is logged anywhere else instead.
    process.stderr.write(`acp-kit proxy: --log ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  await runProxy(proxy);
  return 0;
}
