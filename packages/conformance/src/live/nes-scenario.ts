import { pathToFileURL } from 'node:url';
import { asRecord } from '../analysis/envelope.js';
import type { RuleId } from '../rules/catalog.js';
import { type Reply, ScenarioAbort } from './agent-process.js';
import type { Scenario, ScenarioNotes } from './scenarios.js';
import { describeReply, initialize } from './steps.js';

const NES_RULES = [
  'nes.suggestion.kind-advertised',
  'nes.suggestion.position-inside',
  'nes.suggest.answered',
] as const satisfies readonly RuleId[];

/**
 * The kinds the kit advertises: jump and rename, not searchAndReplace, so an agent that sends
 * every kind regardless shows it (see nes.suggestion.kind-advertised).
 */
const KIT_NES_CAPABILITIES = { nes: { jump: {}, rename: {} }, positionEncodings: ['utf-16'] };

/** The document the kit edits: a name used three times, then renamed once, then a typed prefix. */
const OPENED = 'const count = 1;\nconsole.log(count);\nexport { count };\n';
const RENAMED = 'const total = 1;\nconsole.log(count);\nexport { count };\n';
const TYPED = `${RENAMED}con`;

const suggestionIds = (reply: Reply): string[] => {
  const suggestions = reply.ok ? asRecord(reply.result)?.suggestions : undefined;
  return Array.isArray(suggestions)
    ? suggestions.map((s) => asRecord(s)?.suggestionId).filter((id): id is string => typeof id === 'string')
    : [];
};

/**
 * Unstable surface (next edit suggestions), only when the agent advertises `capabilities.nes`:
 * `nes/start`, the document opened and changed in the sync kind the agent asked for (a rename of
 * one occurrence, then a typed prefix), `nes/suggest` after each and once manually, the first
 * suggestion accepted and the rest rejected, then `nes/close`.
 */
export const nesScenario: Scenario = {
  name: 'nes',
  description:
    'unstable surface: nes/start, document/didOpen and didChange in the advertised sync kind, nes/suggest after each (automatic and manual), nes/accept and nes/reject of what came back, nes/close (only when the agent advertises capabilities.nes)',
  covers: NES_RULES,
  async run(agent, cwd): Promise<ScenarioNotes> {
    const init = await initialize(agent, KIT_NES_CAPABILITIES);
    const nes = asRecord(asRecord(init.capabilities)?.nes);
    if (!nes) {
      const reason = 'the agent does not advertise capabilities.nes (unstable surface)';
      return { skipped: Object.fromEntries(NES_RULES.map((id) => [id, reason])) };
    }
    const document = asRecord(asRecord(nes.events)?.document);
    const started = await agent.request('nes/start', { workspaceUri: pathToFileURL(cwd).href });
    const sessionId = started.ok ? asRecord(started.result)?.sessionId : undefined;
    if (typeof sessionId !== 'string' || sessionId === '')
      throw new ScenarioAbort(`nes/start did not return a sessionId: ${describeReply(started)}`, true);
    const uri = pathToFileURL(`${cwd}/conformance.ts`).href;
    if (document?.didOpen)
      await agent.notify('document/didOpen', {
        sessionId,
        uri,
        languageId: 'typescript',
        version: 1,
        text: OPENED,
      });
    const incremental = asRecord(document?.didChange)?.syncKind === 'incremental';
    const changed = Boolean(document?.didChange);
    const replies: Reply[] = [];
    const suggest = async (version: number, line: number, character: number, triggerKind: string) => {
      const reply = await agent.request('nes/suggest', {
        sessionId,
        uri,
        version,
        position: { line, character },
        triggerKind,
      });
      replies.push(reply);
      return reply;
    };
    if (changed) {
      await agent.notify('document/didChange', {
        sessionId,
        uri,
        version: 2,
        contentChanges: incremental
          ? [{ range: { start: { line: 0, character: 6 }, end: { line: 0, character: 11 } }, text: 'total' }]
          : [{ text: RENAMED }],
      });
    }
    const first = await suggest(changed ? 2 : 1, 0, 11, 'automatic');
    // An agent that leaves a suggestion unanswered has shown it; the rest would only wait too.
    if (!first.ok && first.error === undefined) return {};
    if (changed) {
      await agent.notify('document/didChange', {
        sessionId,
        uri,
        version: 3,
        contentChanges: incremental
          ? [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: 'con' }]
          : [{ text: TYPED }],
      });
      await suggest(3, 3, 3, 'automatic');
    }
    await suggest(changed ? 3 : 1, 1, 0, 'manual');
    const ids = replies.flatMap(suggestionIds);
    if (ids[0] !== undefined) await agent.notify('nes/accept', { sessionId, suggestionId: ids[0] });
    for (const suggestionId of ids.slice(1))
      await agent.notify('nes/reject', { sessionId, suggestionId, reason: 'rejected' });
    await agent.request('nes/close', { sessionId });
    return {};
  },
};
