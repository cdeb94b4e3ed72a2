import type * as V1 from '../generated/v1/types.js';
import { base64url, Sha256Stream } from '../sha256.js';

/** Length of a content hash as the ledger stores it (base64url characters, 132 bits). */
const HASH_LENGTH = 22;

/** A JSON value with object keys in sorted order, so equal values serialize equally. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([key, v]) => v !== undefined && key !== '_meta')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, v]) => `${JSON.stringify(key)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The text of a plain text block (no annotations), or undefined for any other block. */
function plainText(block: V1.ContentBlock): string | undefined {
  const b = block as { type?: unknown; text?: unknown; annotations?: unknown };
  return b.type === 'text' && typeof b.text === 'string' && b.annotations == null ? b.text : undefined;
}

/**
 * What a message says, as a hash that does not depend on how it was cut into chunks: runs of
 * plain text blocks count as their joined text (an agent that streamed a reply in many small
 * chunks live may replay it in one), any other block as its JSON with sorted keys and without
 * `_meta`. Taken block by block as the message streams, without keeping it.
 */
export class ContentHash {
  readonly #stream = new Sha256Stream();
  #inText = false;
  #blocks = 0;
  #head: string | undefined;
  #lastIsText = false;
  /** Characters of content taken (text length, or JSON length of other blocks). */
  size = 0;

  /** Takes the message's next block. */
  add(block: V1.ContentBlock): this {
    const text = plainText(block);
    if (text !== undefined) {
      if (!this.#inText) this.#stream.update('\u0000t');
      this.#stream.update(text);
      this.#inText = true;
      this.size += text.length;
    } else {
      const json = canonical(block);
      this.#stream.update(`\u0000b${json}`);
      this.#inText = false;
      this.size += json.length;
    }
    this.#blocks++;
    this.#lastIsText = text !== undefined;
    if (this.#blocks === 1) this.#head = ContentHash.of([block]);
    return this;
  }

  /** Blocks taken. */
  get blocks(): number {
    return this.#blocks;
  }

  /** Whether the last block taken was a plain text block. */
  get lastIsText(): boolean {
    return this.#lastIsText;
  }

  /** The hash of the first block alone (undefined before any). */
  get head(): string | undefined {
    return this.#head;
  }

  /** The hash of the blocks taken so far (more may follow). */
  digest(): string {
    return base64url(this.#stream.digest()).slice(0, HASH_LENGTH);
  }

  /** The hash of a whole message's blocks. */
  static of(blocks: readonly V1.ContentBlock[]): string {
    const hash = new ContentHash();
    for (const block of blocks) hash.#addOnly(block);
    return hash.digest();
  }

  /** {@link add} without computing the head (which is itself a {@link of}). */
  #addOnly(block: V1.ContentBlock): void {
    const text = plainText(block);
    if (text !== undefined) {
      if (!this.#inText) this.#stream.update('\u0000t');
      this.#stream.update(text);
      this.#inText = true;
    } else {
      this.#stream.update(`\u0000b${canonical(block)}`);
      this.#inText = false;
    }
  }

  /** Whether `block` is a plain text block. */
  static isText(block: V1.ContentBlock): boolean {
    return plainText(block) !== undefined;
  }
}
