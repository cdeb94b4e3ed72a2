/**
 * The bound on the tool call IDs a bridged session remembers as shown: the oldest is forgotten
 * first, and adding a known one again makes it the newest.
 */
import { describe, expect, it } from 'vitest';
import { KNOWN_TOOL_CALLS } from '../src/v1-agent-as-v2/bridged-session.js';
import { RecentIds } from '../src/v1-agent-as-v2/recent-ids.js';

describe('RecentIds', () => {
  it('keeps at most its limit, forgetting the least recently added first', () => {
    const ids = new RecentIds(2);
    ids.add('a');
    ids.add('b');
    ids.add('a');
    ids.add('c');
    expect(ids.size).toBe(2);
    expect(ids.has('a')).toBe(true);
    expect(ids.has('b')).toBe(false);
    expect(ids.has('c')).toBe(true);
  });

  it('bounds a session at KNOWN_TOOL_CALLS however many tool calls an agent announces', () => {
    const ids = new RecentIds(KNOWN_TOOL_CALLS);
    for (let i = 0; i < KNOWN_TOOL_CALLS * 3; i++) ids.add(`call-${i}`);
    expect(ids.size).toBe(KNOWN_TOOL_CALLS);
    expect(ids.has('call-0')).toBe(false);
    expect(ids.has(`call-${KNOWN_TOOL_CALLS * 3 - 1}`)).toBe(true);
  });
});
