import { ScenarioAbort } from './agent-process.js';

/**
 * The agent answered `initialize` with a protocol version other than 2 (a v1 agent says 1): the
 * kit's rules are v2's, so the run stops there and says so, instead of failing v2 rules on a v1
 * answer. Not the agent's fault: it may be a perfectly good v1 agent.
 */
export class NotV2Agent extends ScenarioAbort {
  constructor(readonly protocolVersion: number) {
    super(
      `the agent answered initialize with protocolVersion ${protocolVersion}: it speaks ACP v${protocolVersion}, and this kit checks ACP v2 agents`,
      false,
    );
    this.name = 'NotV2Agent';
  }
}
