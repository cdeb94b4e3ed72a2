import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/client/index.js';

/** Parsed JSON keeps `__proto__` as an ordinary own key; the store must keep it that way. */
const hostile = (meta: string) =>
  JSON.parse(
    `{"sessionId":"s","update":{"sessionUpdate":"agent_message","messageId":"m","content":[],"_meta":${meta}}}`,
  );

describe('prototype keys in agent input', () => {
  it('leaves Object.prototype untouched whatever keys an update carries', () => {
    const store = new ConversationStore();
    store.apply(hostile('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}'));
    store.apply(hostile('{"prototype":{"polluted":"yes"}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
  });

  // Assigning `next["__proto__"] = value` would replace the stored meta's prototype instead of
  // storing a key, so `meta.polluted` would read "yes" through inheritance and the key be lost.
  it('keeps a __proto__ key in message _meta as data, never as the prototype', () => {
    const store = new ConversationStore();
    store.apply(hostile('{"__proto__":{"polluted":"yes"},"a":1}'));
    const { meta } = store.snapshot('s').messages[0]!;
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect((meta as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(meta!)).toEqual(['__proto__', 'a']);
  });
});
