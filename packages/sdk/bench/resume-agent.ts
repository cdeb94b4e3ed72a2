/**
 * The agent process of the resume benchmark, as a user runs one: our Agent on a SqliteHistoryStore
 * over stdio (v2, schema validation on). It serves until stdin ends.
 *
 * Usage: node --import tsx bench/resume-agent.ts <sqlite file> <as-retained|full>
 */
import { Agent, type AgentConnection, Connection, stdioTransport } from '@acp-kit/sdk';
import { openSqlite } from './sqlite-history.js';

const [file, style] = process.argv.slice(2);
if (file === undefined || (style !== 'as-retained' && style !== 'full')) {
  throw new Error('usage: resume-agent.ts <sqlite file> <as-retained|full>');
}
const history = await openSqlite(file);
const agent = new Agent({
  info: { name: 'bench-agent', version: '0.0.0' },
  history: history.log,
  replay: style,
  onPrompt: (prompt) => void prompt.insert(),
});
const connection = new Connection(stdioTransport()) as AgentConnection;
const closed = new Promise<void>((resolve) => connection.onClose(() => resolve()));
agent.serve(connection, 'stdio');
await closed;
await history.close();
process.exit(0);
