import { describe, expect, it } from 'vitest';
import { validate, validateParams } from '../src/generated/index.js';

/**
 * ACP v2: every enum and tagged union accepts values it does not know (`_`-prefixed ones are
 * implementation-defined, the rest belong to later protocol versions). These are the messages
 * issue #10 reports as rejected with -32602 by the `_`-only rule.
 */
describe('values from later protocol versions', () => {
  const accepted = (method: string, params: unknown) => {
    const result = validateParams(method, params);
    expect(result, JSON.stringify(params)).toEqual({ ok: true, value: params });
  };

  it('accepts a tool_call_update whose kind is "browse"', () => {
    accepted('session/update', {
      sessionId: 'sess_1',
      update: { sessionUpdate: 'tool_call_update', toolCallId: 'call_1', kind: 'browse', status: 'pending' },
    });
  });

  it('accepts a content block of type "video" in a prompt and in an update', () => {
    const video = { type: 'video', uri: 'file:///demo.mp4', mimeType: 'video/mp4' };
    accepted('session/prompt', { sessionId: 'sess_1', prompt: [{ type: 'text', text: 'see' }, video] });
    accepted('session/update', {
      sessionId: 'sess_1',
      update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: video },
    });
  });

  it('accepts a permission request whose subject is a "command"', () => {
    accepted('session/request_permission', {
      sessionId: 'sess_1',
      title: 'Run the tests?',
      subject: { type: 'command', command: 'npm test', cwd: '/work' },
      options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }],
    });
  });

  it('accepts a diff change whose operation is "copy"', () => {
    accepted('session/update', {
      sessionId: 'sess_1',
      update: {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_2',
        content: [
          {
            type: 'diff',
            changes: [{ operation: 'copy', oldPath: '/work/a.ts', path: '/work/b.ts' }],
          },
        ],
      },
    });
  });

  it('accepts unknown update kinds, states, stop reasons and permission outcomes', () => {
    accepted('session/update', { sessionId: 's', update: { sessionUpdate: 'progress_update', x: 1 } });
    accepted('session/update', {
      sessionId: 's',
      update: { sessionUpdate: 'state_update', state: 'paused' },
    });
    accepted('session/update', {
      sessionId: 's',
      update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'budget_exhausted' },
    });
    expect(validate('RequestPermissionResponse', { outcome: { outcome: 'deferred' } }).ok).toBe(true);
  });

  it('still checks a known tag against its own variant, naming the pointer', () => {
    const result = validateParams('session/update', {
      sessionId: 's',
      update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text' } },
    });
    expect(result?.ok).toBe(false);
    if (result === undefined || result.ok) return;
    expect(result.issues[0]).toMatchObject({ pointer: '/update/content/text', keyword: 'required' });
  });

  it('still requires the tag to be a string', () => {
    const result = validate('ContentBlock', { type: 5 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]?.pointer).toBe('/type');
  });
});
