/**
 * @acp-kit/cli — the `acp-kit` command as a library: run it programmatically, or embed the
 * reference agent (deterministic, offline) in your own tests.
 */
export { createReferenceAgent, type ReferenceAgentOptions } from './agent/reference-agent.js';
export { promptText, type Reply, replyTo } from './agent/reply-model.js';
export { run, USAGE_EXIT_CODE } from './main.js';
