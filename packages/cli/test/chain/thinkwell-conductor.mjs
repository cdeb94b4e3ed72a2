// Runs @thinkwell/conductor (from npm) on this process's stdio: every argument is one component's
// command line, proxies first and the agent last (its fromCommands). Used by
// thinkwell-conductor.test.ts; not part of acp-kit.
import { createInterface } from 'node:readline';
import { Conductor, fromCommands } from '@thinkwell/conductor';

const commands = process.argv.slice(2);
const conductor = new Conductor({ name: 'thinkwell', instantiator: fromCommands(commands) });
const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
const stdio = {
  async connect() {
    return {
      send: (message) => void process.stdout.write(`${JSON.stringify(message)}\n`),
      messages: (async function* () {
        for await (const line of lines) if (line.trim() !== '') yield JSON.parse(line);
      })(),
      close: async () => lines.close(),
    };
  },
};
await conductor.connect(stdio);
process.exit(0);
