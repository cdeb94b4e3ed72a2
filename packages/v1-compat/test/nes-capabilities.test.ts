/**
 * Next edit suggestions across the bridge: both versions' unstable surface has them, so an agent's
 * `nes` capability and negotiated `positionEncoding` and a client's `nes` kinds and
 * `positionEncodings` cross v1 ⇄ v2 both ways unchanged; an agent that does not offer them is not
 * made to offer them on the other side; and a suggestion's ID changes name (v1 `id`, v2
 * `suggestionId`), an unknown kind keeping every field.
 */
import { describe, expect, it } from 'vitest';
import {
  v1ToV2AgentCapabilities,
  v1ToV2ClientCapabilities,
  v1ToV2SuggestNesResponse,
  v2ToV1AgentCapabilities,
  v2ToV1ClientCapabilities,
  v2ToV1RejectNesNotification,
  v2ToV1SuggestNesResponse,
} from '../src/generated/compat/converters.js';

const NES = {
  events: { document: { didOpen: {}, didChange: { syncKind: 'incremental' as const } } },
  context: { editHistory: { maxCount: 4 } },
};

describe('next edit suggestions across v1 and v2', () => {
  it('carries the agent capability and the negotiated encoding both ways', () => {
    expect(v2ToV1AgentCapabilities({ session: {}, nes: NES, positionEncoding: 'utf-8' })).toMatchObject({
      nes: NES,
      positionEncoding: 'utf-8',
    });
    expect(v1ToV2AgentCapabilities({ nes: NES, positionEncoding: 'utf-32' })).toMatchObject({
      nes: NES,
      positionEncoding: 'utf-32',
    });
  });

  it('does not offer NES on the other side for an agent that does not', () => {
    expect(v2ToV1AgentCapabilities({ session: {} })).not.toHaveProperty('nes');
    expect(v1ToV2AgentCapabilities({})).not.toHaveProperty('nes');
    expect(v1ToV2AgentCapabilities({ nes: null })).not.toHaveProperty('nes');
  });

  it("carries the client's kinds and encodings both ways", () => {
    const client = {
      nes: { jump: {}, rename: {} },
      positionEncodings: ['utf-8' as const, 'utf-16' as const],
    };
    expect(v1ToV2ClientCapabilities(client)).toEqual(client);
    expect(v2ToV1ClientCapabilities(client)).toMatchObject(client);
  });

  it('renames the suggestion ID and keeps an unknown kind whole', () => {
    const v2 = {
      suggestions: [
        { kind: 'jump' as const, suggestionId: 's1', uri: 'file:///a', position: { line: 0, character: 1 } },
        { kind: '_extract', suggestionId: 's2', detail: { lines: [1, 2] } },
      ],
    };
    const v1 = v2ToV1SuggestNesResponse(v2 as never);
    expect(v1).toEqual({
      suggestions: [
        { kind: 'jump', id: 's1', uri: 'file:///a', position: { line: 0, character: 1 } },
        { kind: '_extract', id: 's2', detail: { lines: [1, 2] } },
      ],
    });
    expect(v1ToV2SuggestNesResponse(v1)).toEqual(v2);
    expect(v2ToV1RejectNesNotification({ sessionId: 'n', suggestionId: 's1', reason: 'ignored' })).toEqual({
      sessionId: 'n',
      id: 's1',
      reason: 'ignored',
    });
  });
});
