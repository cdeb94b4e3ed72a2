import { readdirSync, readFileSync } from 'node:fs';
import { type ChildProcessTransport, spawnTransport } from '@acp-kit/sdk';
import { BIN } from '../harness.js';

/** A command line running the built CLI with `args` (for `--proxy`), each word quoted. */
export function cliLine(...args: string[]): string {
  return [process.execPath, BIN, ...args].map((word) => JSON.stringify(word)).join(' ');
}

/** `acp-kit proxy` with `args`, as one `--proxy` command line. */
export function proxyLine(...args: string[]): string {
  return cliLine('proxy', ...args);
}

/** `acp-kit chain` args: each proxy line, then the agent command. */
export function chainArgs(proxies: readonly string[], agent: readonly string[]): string[] {
  return [BIN, 'chain', ...proxies.flatMap((line) => ['--proxy', line]), '--', ...agent];
}

/** Spawns `acp-kit chain` over stdio; its stderr is kept. */
export function spawnChain(
  proxies: readonly string[],
  agent: readonly string[],
): ChildProcessTransport & { stderr(): string } {
  let stderr = '';
  const transport = spawnTransport(process.execPath, chainArgs(proxies, agent), {
    name: 'acp-kit chain',
    onStderr: (text) => {
      stderr += text;
    },
  });
  return Object.assign(transport, { stderr: () => stderr });
}

/** The reference agent's command. */
export const REFERENCE_AGENT = [process.execPath, BIN, 'agent', '--chunk-delay', '1'];

/**
 * The live processes (zombies excluded) whose command line contains `marker` — the components
 * of a chain whose command lines carry a test's unique temp folder.
 */
export function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (state !== 'Z' && cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Resolves once no live process carries `marker`, or rejects naming the ones left after `ms`. */
export async function noneLeft(marker: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = processesMarked(marker);
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`processes left running: ${left.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
