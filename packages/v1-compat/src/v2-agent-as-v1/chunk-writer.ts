import type { ContentBlock, MessageId } from '@acp-kit/schema';
import { v2ToV1ContentBlock } from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import type { MessageKind } from '../message-ids.js';

interface Shown {
  /** The v1 message ID the content went out under (the v2 ID, or a revision of it). */
  v1Id: MessageId;
  revision: number;
  /** What the v1 client holds for it. */
  blocks: ContentBlock[];
}

function sameBlock(a: ContentBlock | undefined, b: ContentBlock | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Writes v2 message updates as v1 chunks. v1 can only append, so the writer remembers what each
 * v1 message holds and, for a v2 update that replaces content:
 * - when the new content extends what was sent (the usual way of streaming by replacement), it
 *   sends only the rest — the remaining text of the last block, then the new blocks;
 * - otherwise (a real rewrite or a clear) the v1 client cannot be corrected in place: the new
 *   content goes out as a new v1 message, `<messageId>#<n>`, and the old one stays visible.
 * Metadata-only updates send nothing.
 */
export class ChunkWriter {
  readonly #shown = new Map<string, Shown>();

  /** Forgets what was sent (a v1 client that loads the session starts from nothing). */
  reset(): void {
    this.#shown.clear();
  }

  /** Whether the v1 client was shown content of this message. */
  shows(kind: MessageKind, messageId: MessageId): boolean {
    return (this.#shown.get(`${kind}\u0000${messageId}`)?.blocks.length ?? 0) > 0;
  }

  #entry(kind: MessageKind, messageId: MessageId): Shown {
    const key = `${kind}\u0000${messageId}`;
    let shown = this.#shown.get(key);
    if (shown === undefined) {
      shown = { v1Id: messageId, revision: 0, blocks: [] };
      this.#shown.set(key, shown);
    }
    return shown;
  }

  #chunks(kind: MessageKind, shown: Shown, blocks: readonly ContentBlock[]): V1.SessionUpdate[] {
    shown.blocks.push(...blocks);
    return blocks.map(
      (block) =>
        ({
          sessionUpdate: `${kind}_chunk`,
          messageId: shown.v1Id,
          content: v2ToV1ContentBlock(block),
        }) as V1.SessionUpdate,
    );
  }

  /** A v2 chunk: appended as is. */
  chunk(kind: MessageKind, messageId: MessageId, block: ContentBlock): V1.SessionUpdate[] {
    return this.#chunks(kind, this.#entry(kind, messageId), [block]);
  }

  /** A v2 whole-message update (`content` omitted, null, empty or a full list). */
  update(
    kind: MessageKind,
    messageId: MessageId,
    content: readonly ContentBlock[] | null | undefined,
  ): V1.SessionUpdate[] {
    if (content === undefined) return [];
    const shown = this.#entry(kind, messageId);
    const next = content ?? [];
    const sent = shown.blocks;
    if (sent.length === 0) return this.#chunks(kind, shown, next);
    const suffix = extension(sent, next);
    if (suffix !== undefined) {
      // Keep the record equal to the full new content, not to the pieces sent.
      const out = this.#chunks(kind, shown, suffix);
      shown.blocks = [...next];
      return out;
    }
    shown.revision += 1;
    shown.v1Id = `${messageId}#${shown.revision}`;
    shown.blocks = [];
    return this.#chunks(kind, shown, next);
  }
}

function isPlainText(block: ContentBlock | undefined): block is { type: 'text'; text: string } {
  return (
    block !== undefined &&
    block.type === 'text' &&
    Object.keys(block).every((k) => k === 'type' || k === 'text')
  );
}

/** Joins adjacent plain text blocks: v1 clients show consecutive text chunks as one text. */
function normalize(blocks: readonly ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const block of blocks) {
    const last = out.at(-1);
    if (isPlainText(last) && isPlainText(block))
      out[out.length - 1] = { type: 'text', text: last.text + block.text };
    else out.push(block);
  }
  return out;
}

/** The blocks to append so `sent` becomes `next`, or undefined when `next` does not extend `sent`. */
function extension(
  sentBlocks: readonly ContentBlock[],
  nextBlocks: readonly ContentBlock[],
): ContentBlock[] | undefined {
  const sent = normalize(sentBlocks);
  const next = normalize(nextBlocks);
  if (next.length < sent.length) return undefined;
  for (let i = 0; i < sent.length - 1; i++) if (!sameBlock(sent[i], next[i])) return undefined;
  const last = sent.length - 1;
  const before = sent[last];
  const after = next[last];
  const rest = next.slice(sent.length);
  if (sameBlock(before, after)) return rest;
  if (before?.type === 'text' && after?.type === 'text') {
    const a = before as { text: string };
    const b = after as { text: string };
    const { text: _t1, ...metaA } = before as { text: string };
    const { text: _t2, ...metaB } = after as { text: string };
    if (b.text.startsWith(a.text) && JSON.stringify(metaA) === JSON.stringify(metaB)) {
      const tail = b.text.slice(a.text.length);
      return tail === '' ? rest : [{ type: 'text', text: tail }, ...rest];
    }
  }
  return undefined;
}
