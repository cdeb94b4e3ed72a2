/**
 * The last `limit` bytes (UTF-8) of a terminal's output, as v1's `terminal/output` answers it: when
 * the output grows past the limit, the oldest bytes are dropped, cut at a character boundary (so
 * the kept text may be a few bytes shorter than the limit), and `truncated` says so. Memory stays
 * within the limit plus one appended chunk.
 */
export class OutputTail {
  readonly limit: number;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #truncated = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Appends text (whole characters: decode the stream before appending). */
  append(text: string): void {
    if (text === '') return;
    const chunk = Buffer.from(text, 'utf8');
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    if (this.#bytes <= this.limit) return;
    this.#truncated = true;
    let excess = this.#bytes - this.limit;
    while (excess > 0) {
      const first = this.#chunks[0] as Buffer;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#bytes -= first.length;
        excess -= first.length;
        continue;
      }
      // Cut inside the first chunk, moved forward past continuation bytes (10xxxxxx).
      let cut = excess;
      while (cut < first.length && ((first[cut] as number) & 0xc0) === 0x80) cut++;
      this.#chunks[0] = first.subarray(cut);
      this.#bytes -= cut;
      excess = 0;
    }
  }

  /** The kept output and whether anything was dropped. */
  read(): { output: string; truncated: boolean } {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks)];
    return { output: this.#chunks[0]?.toString('utf8') ?? '', truncated: this.#truncated };
  }
}
