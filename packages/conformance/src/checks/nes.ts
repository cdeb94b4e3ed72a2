import { asRecord, envelopeOf } from '../analysis/envelope.js';
import type { RequestRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, notApplicable, type RawFinding, show } from './context.js';
import { NesDocument, type NesEncoding } from './nes-document.js';

const suggestRequests = (context: CheckContext): RequestRecord[] =>
  context.analysis.requests.filter(
    (request) => request.from === 'client' && request.method === 'nes/suggest',
  );

/** The first `initialize` the client sent, with its answer. */
const initializeOf = (context: CheckContext): RequestRecord | undefined =>
  context.analysis.requests.find((request) => request.from === 'client' && request.method === 'initialize');

/** The suggestions of an answered `nes/suggest`, or undefined when it has none to judge. */
function suggestionsOf(request: RequestRecord): unknown[] | undefined {
  if (!request.response?.ok) return undefined;
  const suggestions = asRecord(request.response.result)?.suggestions;
  return Array.isArray(suggestions) ? suggestions : undefined;
}

/**
 * `nes.suggestion.kind-advertised` (unstable surface): every suggestion in a `nes/suggest` result is
 * an `edit`, or of a kind (`jump`, `rename`, `searchAndReplace`, or one of a later version) the
 * client advertised in `capabilities.nes` at `initialize`.
 */
export function checkNesKinds(context: CheckContext): CheckOutcome {
  const answered = suggestRequests(context).filter((request) => (suggestionsOf(request)?.length ?? 0) > 0);
  if (answered.length === 0)
    return notApplicable('no nes/suggest answered with suggestions (unstable surface)');
  const advertised = asRecord(asRecord(asRecord(initializeOf(context)?.params)?.capabilities)?.nes) ?? {};
  const findings: RawFinding[] = [];
  for (const request of answered) {
    suggestionsOf(request)!.forEach((suggestion, i) => {
      const kind = asRecord(suggestion)?.kind;
      if (kind === 'edit' || typeof kind !== 'string') return;
      if (asRecord(advertised[kind]) !== undefined) return;
      findings.push({
        index: request.response!.index,
        pointer: `/result/suggestions/${i}/kind`,
        message: `nes/suggest answered with a ${JSON.stringify(kind)} suggestion the client did not advertise`,
        expected: `"edit", or a kind named in the client's capabilities.nes (${show(Object.keys(advertised).filter((key) => key !== '_meta'))})`,
        actual: JSON.stringify(kind),
      });
    });
  }
  return checked(findings);
}

/**
 * `nes.suggest.context-requested` (unstable surface, lint only: it judges the client): every
 * `nes/suggest` carries only the kinds of context the agent asked for in its `capabilities.nes.context`.
 */
export function checkNesContext(context: CheckContext): CheckOutcome {
  if (context.live) return notApplicable('lint only: it judges the client, which is the kit in live runs');
  const carrying = suggestRequests(context).filter((request) => asRecord(asRecord(request.params)?.context));
  if (carrying.length === 0) return notApplicable('no nes/suggest carried context (unstable surface)');
  const agentCapabilities = asRecord(asRecord(initializeOf(context)?.response?.result)?.capabilities);
  const wanted = asRecord(asRecord(agentCapabilities?.nes)?.context) ?? {};
  const findings: RawFinding[] = [];
  for (const request of carrying) {
    const sent = asRecord(asRecord(request.params)?.context)!;
    for (const [key, value] of Object.entries(sent)) {
      if (key === '_meta' || value === null || value === undefined) continue;
      if (asRecord(wanted[key]) !== undefined) continue;
      findings.push({
        index: request.index,
        pointer: `/params/context/${key}`,
        message: `nes/suggest carried ${key} context the agent did not ask for`,
        expected: `only the context kinds in the agent's capabilities.nes.context (${show(Object.keys(wanted).filter((k) => k !== '_meta'))})`,
        actual: show(value, 60),
      });
    }
  }
  return checked(findings);
}

/** Positions of one suggestion that must lie inside the document, with their pointers. */
function positionsOf(suggestion: Record<string, unknown>): [pointer: string, position: unknown][] {
  switch (suggestion.kind) {
    case 'edit': {
      const edits = Array.isArray(suggestion.edits) ? suggestion.edits : [];
      return edits.flatMap((edit, j): [string, unknown][] => {
        const range = asRecord(asRecord(edit)?.range);
        return [
          [`/edits/${j}/range/start`, range?.start],
          [`/edits/${j}/range/end`, range?.end],
        ];
      });
    }
    case 'jump':
    case 'rename':
      return [['/position', suggestion.position]];
    default:
      return [];
  }
}

/**
 * Replays the client's `document/*` notifications per NES session and URI, and returns the
 * document each `nes/suggest` named as it stood when the request was sent (when the transcript
 * shows it: opened, and every change applied).
 */
function snapshots(context: CheckContext, encoding: NesEncoding): Map<RequestRecord, NesDocument> {
  const byIndex = new Map(suggestRequests(context).map((request) => [request.index, request]));
  const documents = new Map<string, NesDocument | undefined>();
  const found = new Map<RequestRecord, NesDocument>();
  context.analysis.entries.forEach((entry, index) => {
    if (entry.dir !== 'client->agent') return;
    const envelope = envelopeOf(entry.msg);
    const params = asRecord(envelope.params);
    if (!params) return;
    const key = `${String(params.sessionId)}\u0000${String(params.uri)}`;
    if (envelope.kind === 'notification') {
      if (envelope.method === 'document/didOpen') {
        const known = typeof params.text === 'string' && Number.isInteger(params.version);
        documents.set(
          key,
          known ? new NesDocument(params.text as string, params.version as number, encoding) : undefined,
        );
      } else if (envelope.method === 'document/didChange') {
        const document = documents.get(key);
        // A change the kit cannot apply leaves the document unknown from here on.
        if (document && !document.apply(params)) documents.set(key, undefined);
      } else if (envelope.method === 'document/didClose') documents.delete(key);
      return;
    }
    const request = byIndex.get(index);
    const document = request ? documents.get(key) : undefined;
    if (request && document) found.set(request, new NesDocument(document.text, document.version, encoding));
  });
  return found;
}

/**
 * `nes.suggestion.position-inside` (unstable surface): every position a suggestion for the
 * requested document carries (edit ranges, a jump's or rename's position) lies inside that
 * document at the version the `nes/suggest` named, in the negotiated position encoding.
 */
export function checkNesPositions(context: CheckContext): CheckOutcome {
  const agentCapabilities = asRecord(asRecord(initializeOf(context)?.response?.result)?.capabilities);
  const negotiated = agentCapabilities?.positionEncoding;
  const encoding: NesEncoding = negotiated === 'utf-8' || negotiated === 'utf-32' ? negotiated : 'utf-16';
  const judged = [...snapshots(context, encoding)].filter(
    ([request, document]) =>
      (suggestionsOf(request)?.length ?? 0) > 0 && asRecord(request.params)?.version === document.version,
  );
  if (judged.length === 0)
    return notApplicable(
      'no nes/suggest answered with suggestions for a document the transcript opened at the version it named (unstable surface)',
    );
  const findings: RawFinding[] = [];
  for (const [request, document] of judged) {
    const uri = asRecord(request.params)?.uri;
    suggestionsOf(request)!.forEach((value, i) => {
      const suggestion = asRecord(value);
      if (!suggestion || suggestion.uri !== uri) return;
      for (const [where, position] of positionsOf(suggestion)) {
        const outside = document.outside(position);
        if (!outside) continue;
        findings.push({
          index: request.response!.index,
          pointer: `/result/suggestions/${i}${where}${outside.field}`,
          message: `a ${String(suggestion.kind)} suggestion points outside ${String(uri)} at version ${document.version}`,
          expected: outside.expected,
          actual: show(position, 80),
        });
      }
    });
  }
  return checked(findings);
}

/**
 * `nes.suggest.answered` (unstable surface): every `nes/suggest` is answered, with suggestions
 * (possibly none) or an error. A transcript may end before an answer came; in a live run, or when
 * a later client request was answered, the agent has had its chance.
 */
export function checkNesAnswered(context: CheckContext): CheckOutcome {
  const requests = suggestRequests(context);
  if (requests.length === 0) return notApplicable('no nes/suggest in the transcript (unstable surface)');
  const clientRequests = context.analysis.requests.filter((request) => request.from === 'client');
  const findings: RawFinding[] = [];
  for (const request of requests) {
    if (request.response !== undefined) continue;
    const laterAnswered = clientRequests.some(
      (other) => other.index > request.index && other.response !== undefined,
    );
    if (!context.live && !laterAnswered) continue;
    findings.push({
      index: request.index,
      message: 'nes/suggest was never answered',
      expected: 'a result with suggestions (possibly none), or a JSON-RPC error',
      actual: 'no response',
    });
  }
  return checked(findings);
}
