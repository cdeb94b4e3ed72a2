import { describe, expect, it } from 'vitest';
import { attributeUserMessages } from '../src/analysis/attribution.js';
import { ContentStore, messageUpdateKind, renderContent } from '../src/analysis/messages.js';
import { analyze } from '../src/analysis/model.js';
import { parseTranscript } from '../src/index.js';
import { TranscriptBuilder } from './helpers/transcript.js';

const text = (value: string) => ({ type: 'text', text: value });

describe('ContentStore', () => {
  const user = messageUpdateKind('user_message')!;
  const chunk = messageUpdateKind('user_message_chunk')!;

  it('appends chunks, replaces on content, clears on null or [], keeps on a metadata-only update', () => {
    const store = new ContentStore();
    store.apply(chunk, 'm', { content: text('a') });
    store.apply(chunk, 'm', { content: text('b') });
    expect(store.get('user_message', 'm')).toEqual([text('a'), text('b')]);
    store.apply(user, 'm', { _meta: { x: 1 } });
    expect(store.get('user_message', 'm')).toHaveLength(2);
    store.apply(user, 'm', { content: [text('c')] });
    expect(store.get('user_message', 'm')).toEqual([text('c')]);
    store.apply(user, 'm', { content: null });
    expect(store.get('user_message', 'm')).toEqual([]);
    expect(store.has('agent_message', 'm')).toBe(false);
  });

  it('keeps clones independent', () => {
    const store = new ContentStore();
    store.apply(chunk, 'm', { content: text('a') });
    const copy = store.clone();
    copy.apply(chunk, 'm', { content: text('b') });
    expect(store.get('user_message', 'm')).toEqual([text('a')]);
  });

  it('renders streamed and whole text alike, and other blocks as JSON', () => {
    expect(renderContent([text('Hi '), text('there')])).toBe(renderContent([text('Hi there')]));
    expect(renderContent([text('a'), { type: 'image', data: 'x', mimeType: 'image/png' }])).toBe(
      '"a" + {"type":"image","data":"x","mimeType":"image/png"}',
    );
  });
});

describe('attributeUserMessages', () => {
  it('attributes a stray user message to an accepted prompt whose ID never appeared, before a rejected one', () => {
    const t = new TranscriptBuilder().open();
    t.client({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId: 'sess_1', prompt: [] },
    });
    t.error(2, -32602);
    t.prompt(3, 'Hello');
    t.result(3, { messageId: 'm1' });
    t.update({ sessionUpdate: 'user_message', messageId: 'stray', content: [] });
    const analysis = analyze(parseTranscript(t.text()).entries);
    const { claims } = attributeUserMessages(analysis);
    expect(claims.map((claim) => [claim.kind, claim.prompt.request.id])).toEqual([
      ['accepted-under-other-id', 3],
    ]);
  });

  it('leaves a user message alone when no earlier prompt of its session could own it', () => {
    const t = new TranscriptBuilder().open();
    t.update({ sessionUpdate: 'user_message', messageId: 'imported', content: [] });
    t.prompt(2, 'Hello');
    t.result(2, { messageId: 'm1' });
    t.turn('m1', 'Hello', 'a1');
    const analysis = analyze(parseTranscript(t.text()).entries);
    expect(attributeUserMessages(analysis).claims).toEqual([]);
  });

  it('ignores replayed user messages', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Hello');
    t.result(2, { messageId: 'm1' });
    t.client({
      jsonrpc: '2.0',
      id: 3,
      method: 'session/resume',
      params: { sessionId: 'sess_1', cwd: '/tmp', replayFrom: { type: 'start' } },
    });
    t.update({ sessionUpdate: 'user_message', messageId: 'old', content: [] });
    t.result(3, {});
    const analysis = analyze(parseTranscript(t.text()).entries);
    expect(analysis.updates[0]?.resume?.request.id).toBe(3);
    expect(attributeUserMessages(analysis).claims).toEqual([]);
  });
});
