/**
 * SHA-256 (FIPS 180-4) of a UTF-8 string, computed synchronously in plain TypeScript, so that the
 * message IDs the bridge derives can be derived the same way in a browser (the inspector page),
 * where `node:crypto` is absent and Web Crypto's digest is asynchronous.
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

const INITIAL = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/** Runs the compression function over the 64-byte block at `offset` of `view`, into `h`. */
function compress(h: Uint32Array, w: Uint32Array, view: DataView, offset: number): void {
  for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15]!;
    const b = w[i - 2]!;
    const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
    const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
  }
  let [a, b, c, d, e, f, g, hh] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!];
  for (let i = 0; i < 64; i++) {
    const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) >>> 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) >>> 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) >>> 0;
  }
  const round = [a, b, c, d, e, f, g, hh];
  // Uint32Array stores each sum modulo 2^32.
  for (let i = 0; i < 8; i++) h[i] = h[i]! + round[i]!;
}

/**
 * SHA-256 over text given piece by piece (each piece UTF-8 encoded), so a long message can be
 * hashed as it streams without keeping it. {@link Sha256Stream.digest} does not end the stream:
 * more text may follow and be digested again.
 */
export class Sha256Stream {
  readonly #h = new Uint32Array(INITIAL);
  readonly #w = new Uint32Array(64);
  /** Bytes not yet compressed (fewer than 64). */
  readonly #block = new Uint8Array(64);
  readonly #view = new DataView(this.#block.buffer);
  #used = 0;
  /** Total bytes taken. */
  #length = 0;

  /** Takes `text`, UTF-8 encoded. */
  update(text: string): this {
    const data = new TextEncoder().encode(text);
    this.#length += data.length;
    let i = 0;
    while (i < data.length) {
      const n = Math.min(64 - this.#used, data.length - i);
      this.#block.set(data.subarray(i, i + n), this.#used);
      this.#used += n;
      i += n;
      if (this.#used === 64) {
        compress(this.#h, this.#w, this.#view, 0);
        this.#used = 0;
      }
    }
    return this;
  }

  /** The 32-byte digest of everything taken so far. */
  digest(): Uint8Array {
    const h = new Uint32Array(this.#h);
    // The rest, a 1 bit, zeros, then the bit length as a 64-bit big-endian number: one or two blocks.
    const tail = new Uint8Array(this.#used + 9 > 64 ? 128 : 64);
    tail.set(this.#block.subarray(0, this.#used));
    tail[this.#used] = 0x80;
    const view = new DataView(tail.buffer);
    const bits = this.#length * 8;
    view.setUint32(tail.length - 8, Math.floor(bits / 0x1_0000_0000));
    view.setUint32(tail.length - 4, bits >>> 0);
    for (let offset = 0; offset < tail.length; offset += 64) compress(h, this.#w, view, offset);
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i]!);
    return out;
  }
}

/** The 32-byte SHA-256 digest of `text` encoded as UTF-8. */
export function sha256(text: string): Uint8Array {
  return new Sha256Stream().update(text).digest();
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `bytes` in unpadded base64url (RFC 4648 §5), as Node's `digest('base64url')` writes it. */
export function base64url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let j = 0; j < chars; j++) out += BASE64URL[(n >> (18 - 6 * j)) & 63];
  }
  return out;
}
