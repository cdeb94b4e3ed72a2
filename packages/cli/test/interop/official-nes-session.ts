/**
 * #43, next edit suggestions: the session the official SDK's `experimental/nes` client (a v1 client)
 * runs against `acp-kit agent --unstable`, whatever the transport: a start, document events in each
 * sync kind the agent takes (didOpen, incremental didChange, didSave, full didChange, didFocus,
 * didClose), suggestions of each kind (rename, searchAndReplace, edit, jump), accept, reject, a
 * stale version refused at its pointer, and close; and what the answers must be. The official
 * client parses every answer with its own zod schemas (a failure rejects the request).
 */
import { client as officialClient } from '@agentclientprotocol/sdk/experimental/nes';
import { expect } from 'vitest';

const URI = 'file:///repo/main.ts';

/** The official client's stream type (stdio, Streamable HTTP or WebSocket). */
type Stream = Parameters<ReturnType<typeof officialClient>['connectWith']>[0];

/** Runs the NES session over `stream` and returns what the agent answered. */
export function runOfficialNesSession(stream: Stream, name: string) {
  return officialClient({ name }).connectWith(stream, async (ctx) => {
    const init = await ctx.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: {
        nes: { jump: {}, rename: {}, searchAndReplace: {} },
        positionEncodings: ['utf-32'],
      },
    });
    const { sessionId } = await ctx.request('nes/start', { workspaceUri: 'file:///repo' });
    await ctx.notify('document/didOpen', {
      sessionId,
      uri: URI,
      languageId: 'typescript',
      version: 1,
      text: 'let count = 0;\ncount += 1;\n',
    });
    await ctx.notify('document/didChange', {
      sessionId,
      uri: URI,
      version: 2,
      contentChanges: [
        { range: { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } }, text: 'total' },
      ],
    });
    const renamed = await ctx.request('nes/suggest', {
      sessionId,
      uri: URI,
      version: 2,
      position: { line: 0, character: 9 },
      triggerKind: 'automatic',
    });
    await ctx.notify('nes/accept', { sessionId, id: renamed.suggestions[0]!.id });
    await ctx.notify('document/didSave', { sessionId, uri: URI });
    // Full text in one change (no range), as a full-sync client sends it.
    await ctx.notify('document/didChange', {
      sessionId,
      uri: URI,
      version: 3,
      contentChanges: [{ text: 'const totalCount = 1;\nuse(tot);\nuse(tot);\n' }],
    });
    await ctx.notify('document/didFocus', {
      sessionId,
      uri: URI,
      version: 3,
      position: { line: 1, character: 7 },
      visibleRange: { start: { line: 0, character: 0 }, end: { line: 3, character: 0 } },
    });
    const typed = await ctx.request('nes/suggest', {
      sessionId,
      uri: URI,
      version: 3,
      position: { line: 1, character: 7 },
      triggerKind: 'manual',
    });
    await ctx.notify('nes/reject', { sessionId, id: typed.suggestions[0]!.id, reason: 'rejected' });
    const stale = await ctx
      .request('nes/suggest', {
        sessionId,
        uri: URI,
        version: 2,
        position: { line: 0, character: 0 },
        triggerKind: 'manual',
      })
      .then(
        () => undefined,
        (error: unknown) => error as { code?: number; data?: { pointer?: string } },
      );
    await ctx.notify('document/didClose', { sessionId, uri: URI });
    await ctx.request('nes/close', { sessionId });
    return { init, renamed, typed, stale };
  });
}

/** Checks the answers of {@link runOfficialNesSession}. */
export function expectOfficialNesOutcome(outcome: Awaited<ReturnType<typeof runOfficialNesSession>>): void {
  expect(outcome.init.agentCapabilities?.nes?.events?.document?.didChange?.syncKind).toBe('incremental');
  expect(outcome.init.agentCapabilities?.positionEncoding).toBe('utf-32');
  expect(outcome.renamed.suggestions).toEqual([
    { kind: 'rename', id: 's1', uri: URI, position: { line: 1, character: 0 }, newName: 'total' },
    { kind: 'searchAndReplace', id: 's2', uri: URI, search: 'count', replace: 'total', isRegex: false },
  ]);
  expect(outcome.typed.suggestions).toEqual([
    {
      kind: 'edit',
      id: 's3',
      uri: URI,
      edits: [
        { range: { start: { line: 1, character: 7 }, end: { line: 1, character: 7 } }, newText: 'alCount' },
      ],
    },
    { kind: 'jump', id: 's4', uri: URI, position: { line: 2, character: 4 } },
  ]);
  expect(outcome.stale).toMatchObject({ code: -32602, data: { pointer: '/params/version' } });
}
