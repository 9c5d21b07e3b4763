/**
 * Bytes: hex, UTF-8, big-endian integers, the length prefixes of docs/PROTOCOL.md (`lp8`, `lp16`),
 * concatenation and a constant-time comparison. Every byte string is a `Uint8Array`.
 * @module
 */

const ENCODER = new TextEncoder();
const STRICT = new TextDecoder("utf-8", { fatal: true });

/** @param {string} text @returns {Uint8Array} its UTF-8 bytes */
export function utf8(text) {
  return ENCODER.encode(text);
}

/**
 * The text of UTF-8 bytes; throws a `TypeError` for bytes that are not valid UTF-8.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function fromUtf8(bytes) {
  return STRICT.decode(bytes);
}

/** @param {Uint8Array} bytes @returns {string} lower-case hex */
export function toHex(bytes) {
  let out = "";
  for (const b of bytes) out += (b < 16 ? "0" : "") + b.toString(16);
  return out;
}

/**
 * The bytes of a hex string (spaces and line breaks are ignored); throws for anything else.
 * @param {string} hex
 * @returns {Uint8Array}
 */
export function fromHex(hex) {
  const clean = hex.replace(/\s+/g, "");
  if (clean.length % 2 || /[^0-9a-fA-F]/.test(clean)) throw new Error(`not hex: ${hex.slice(0, 40)}`);
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** @param {...Uint8Array} parts @returns {Uint8Array} the parts one after the other */
export function concat(...parts) {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** @param {number} n @returns {Uint8Array} one byte */
export function u8(n) {
  return Uint8Array.of(n & 0xff);
}

/** @param {number} n @returns {Uint8Array} two bytes, big-endian */
export function u16be(n) {
  return Uint8Array.of((n >>> 8) & 0xff, n & 0xff);
}

/** @param {number} n @returns {Uint8Array} four bytes, big-endian */
export function u32be(n) {
  return Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/**
 * Eight bytes, big-endian, of an integer below 2**53.
 * @param {number} n
 * @returns {Uint8Array}
 */
export function u64be(n) {
  const out = new Uint8Array(8);
  const high = Math.floor(n / 2 ** 32);
  out.set(u32be(high), 0);
  out.set(u32be(n >>> 0), 4);
  return out;
}

/** @param {Uint8Array} data @returns {Uint8Array} `u16be(len) || data` */
export function lp16(data) {
  if (data.length > 0xffff) throw new RangeError("a length-prefixed field is at most 65535 bytes");
  return concat(u16be(data.length), data);
}

/** @param {Uint8Array} data @returns {Uint8Array} `u8(len) || data` */
export function lp8(data) {
  if (data.length > 0xff) throw new RangeError("a short length-prefixed field is at most 255 bytes");
  return concat(u8(data.length), data);
}

/**
 * Whether two byte strings are equal, in time that depends on their length only.
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 * @returns {boolean}
 */
export function sameBytes(a, b) {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/**
 * `n` bytes from the platform's cryptographic generator (`crypto.getRandomValues`, which every
 * browsing context has, plain http included).
 * @param {number} n
 * @returns {Uint8Array}
 */
export function randomBytes(n) {
  const out = new Uint8Array(n);
  globalThis.crypto.getRandomValues(out);
  return out;
}
