/**
 * The deterministic generator behind every shuffle and die roll (engine/rng.py, version 1),
 * bit for bit (docs/PROTOCOL.md section 6.3):
 *
 *     prefix  = "sushigo/rng/v1" || u32be(len(seed)) || seed || u32be(len(stream)) || stream
 *     block_i = SHA-256(prefix || u64be(i))            for i = 0, 1, 2, ...
 *     words   = the blocks concatenated, read as big-endian u16s, in order (16 per block)
 *
 * `below(n)` takes words until one is under `65536 - 65536 % n` and returns it modulo n;
 * `shuffle(items)` is Fisher-Yates from the end (j = below(i + 1) for i = len - 1 down to 1).
 * @module
 */
import { concat, u32be, u64be, utf8 } from "./bytes.js";
import { sha256Stream } from "./hash.js";

const TAG = utf8("sushigo/rng/v1");
const SPAN = 1 << 16;

export class DeterministicRng {
  /**
   * @param {Uint8Array} seed
   * @param {string} stream the stream's name (ASCII), e.g. "deck" or "roll/faces"
   */
  constructor(seed, stream) {
    const name = utf8(stream);
    this._base = sha256Stream().update(concat(TAG, u32be(seed.length), seed, u32be(name.length), name));
    this._counter = 0;
    /** @type {Uint8Array} the current block */
    this._block = new Uint8Array(0);
    this._pos = 0;
  }

  /** @returns {number} the next raw 16-bit word */
  word() {
    if (this._pos >= this._block.length) {
      this._block = this._base.clone().update(u64be(this._counter)).digest();
      this._counter++;
      this._pos = 0;
    }
    const w = (this._block[this._pos] << 8) | this._block[this._pos + 1];
    this._pos += 2;
    return w;
  }

  /**
   * A uniform integer in [0, n), 1 <= n <= 65536.
   * @param {number} n
   * @returns {number}
   */
  below(n) {
    if (!(n >= 1 && n <= SPAN)) throw new RangeError(`below() needs 1 <= n <= 65536, got ${n}`);
    const limit = SPAN - (SPAN % n);
    for (;;) {
      const w = this.word();
      if (w < limit) return w % n;
    }
  }

  /**
   * Shuffle `items` in place.
   * @template T
   * @param {T[]} items
   */
  shuffle(items) {
    for (let i = items.length - 1; i >= 1; i--) {
      const j = this.below(i + 1);
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
  }
}
