/**
 * msgpack for the protocol (docs/PROTOCOL.md sections 1 and 6.4), on the vendored
 * @msgpack/msgpack: plain data to bytes, the canonical bytes of a record, and the strict decoding
 * of a frame's body.
 *
 * Strict means what the reference code refuses is refused here too: trailing bytes, ext types
 * (timestamps included), map keys that are not str, strings that are not valid UTF-8, and any
 * str, bin, array or map over the direction's limits (all `MALFORMED_FRAME`); floats, which no
 * field of the protocol is, are `WRONG_TYPE`. The library decodes; a scan of the bytes before it
 * checks what the library lets through (it decodes invalid UTF-8 into replacement characters, and
 * a float into a number indistinguishable from an int).
 * @module
 */
import { Decoder } from "../vendor/@msgpack/msgpack@3.1.3/dist.esm/Decoder.mjs";
import { Encoder } from "../vendor/@msgpack/msgpack@3.1.3/dist.esm/Encoder.mjs";
import { ProtocolError, ErrorCode } from "./errors.js";

const ENCODER = new Encoder({ ignoreUndefined: false });
const UTF8 = new TextDecoder("utf-8", { fatal: true });
const MAX_DEPTH = 512;
/** Containers nested deeper than this are refused (the reference decoder's stack is as deep). */

/**
 * The msgpack bytes of plain data, every header in its shortest form, maps in their keys'
 * order, `Uint8Array` as bin and strings as str.
 * @param {any} value
 * @returns {Uint8Array}
 */
export function pack(value) {
  return ENCODER.encode(value);
}

/**
 * The canonical bytes of plain data (docs/PROTOCOL.md section 6.4): `pack` with every map's keys
 * sorted by their UTF-8 bytes (the same order as their code points).
 * @param {any} value
 * @returns {Uint8Array}
 */
export function canonical(value) {
  return pack(sorted(value));
}

function byCodePoint(a, b) {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== "object" || value instanceof Uint8Array) return value;
  const out = {};
  for (const key of Object.keys(value).sort(byCodePoint)) {
    // A JavaScript object lists integer-like keys first, whatever their insertion order: such a
    // map cannot be put in canonical order this way (no protocol map has one).
    if (/^(0|[1-9]\d*)$/.test(key)) throw new Error(`cannot order the map key ${key} canonically`);
    out[key] = sorted(value[key]);
  }
  return out;
}

/**
 * @typedef {object} Limits
 * @property {number} max_body
 * @property {number} max_str_len
 * @property {number} max_bin_len
 * @property {number} max_array_len
 * @property {number} max_map_len
 */

/**
 * The one msgpack value of a frame's body, within `limits`; a `ProtocolError` (fatal) otherwise.
 * @param {Uint8Array} body
 * @param {Limits} limits
 * @returns {any}
 */
export function unpack(body, limits) {
  if (body.length > limits.max_body) {
    throw new ProtocolError(
      ErrorCode.FRAME_TOO_LARGE,
      `a ${body.length}-byte frame body exceeds the ${limits.max_body}-byte limit`,
      { fatal: true },
    );
  }
  scan(body, limits);
  const decoder = new Decoder({
    maxStrLength: limits.max_str_len,
    maxBinLength: limits.max_bin_len,
    maxArrayLength: limits.max_array_len,
    maxMapLength: limits.max_map_len,
    maxExtLength: 0,
    useBigInt64: false,
    mapKeyConverter: stringKey,
  });
  try {
    return decoder.decode(body);
  } catch (exc) {
    throw malformed(String(exc && exc.message ? exc.message : exc));
  }
}

function stringKey(key) {
  if (typeof key !== "string") throw new Error("a map key that is not a str");
  return key;
}

function malformed(why) {
  return new ProtocolError(ErrorCode.MALFORMED_FRAME, `invalid msgpack body: ${why}`, { fatal: true });
}

/**
 * Walk the value's headers without building it: every str valid UTF-8 and within its limit,
 * every map key a str, no ext, no float, the limits of bins, arrays and maps, no bytes missing.
 * (Trailing bytes are the library's to refuse.)
 */
function scan(body, limits) {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let pos = 0;
  // Each open container: how many items it still holds, and whether the next is a map key.
  const open = [];
  const need = (n) => {
    if (pos + n > body.length) throw malformed("the body ends inside a value");
  };
  const size = (bytes) => {
    need(bytes);
    const n = bytes === 1 ? view.getUint8(pos) : bytes === 2 ? view.getUint16(pos) : view.getUint32(pos);
    pos += bytes;
    return n;
  };
  const container = (items, entries, isMap) => {
    if (isMap && entries > limits.max_map_len) throw malformed(`a map of ${entries} entries`);
    if (!isMap && items > limits.max_array_len) throw malformed(`an array of ${items} items`);
    if (open.length >= MAX_DEPTH) throw malformed("containers nested too deep");
    if (items) open.push({ left: items, map: isMap, seen: 0 });
  };
  do {
    const top = open.length ? open[open.length - 1] : null;
    const isKey = top !== null && top.map && top.seen % 2 === 0;
    if (top !== null) {
      top.seen++;
      if (--top.left === 0) open.pop();
    }
    need(1);
    const head = body[pos++];
    let str = -1;
    if (head <= 0x7f || head >= 0xe0 || head === 0xc0 || head === 0xc2 || head === 0xc3) {
      // an int that fits in the head, nil or a bool
    } else if (head >= 0xa0 && head <= 0xbf) str = head & 0x1f;
    else if (head === 0xd9) str = size(1);
    else if (head === 0xda) str = size(2);
    else if (head === 0xdb) str = size(4);
    else if (head >= 0x80 && head <= 0x8f) container(2 * (head & 0x0f), head & 0x0f, true);
    else if (head === 0xde) { const n = size(2); container(2 * n, n, true); }
    else if (head === 0xdf) { const n = size(4); container(2 * n, n, true); }
    else if (head >= 0x90 && head <= 0x9f) container(head & 0x0f, 0, false);
    else if (head === 0xdc) container(size(2), 0, false);
    else if (head === 0xdd) container(size(4), 0, false);
    else if (head >= 0xc4 && head <= 0xc6) {
      const n = size(head === 0xc4 ? 1 : head === 0xc5 ? 2 : 4);
      if (n > limits.max_bin_len) throw malformed(`a bin of ${n} bytes`);
      need(n);
      pos += n;
    } else if (head >= 0xcc && head <= 0xd3) {
      need(2 ** ((head - 0xcc) % 4));
      pos += 2 ** ((head - 0xcc) % 4);
    } else if (head === 0xca || head === 0xcb) {
      throw new ProtocolError(ErrorCode.WRONG_TYPE, "a float: no field of the protocol is one", {
        fatal: true,
      });
    } else {
      throw malformed(head === 0xc1 ? "the byte c1 is never used" : "an ext type");
    }
    if (isKey && str < 0) throw malformed("a map key that is not a str");
    if (str >= 0) {
      if (str > limits.max_str_len) throw malformed(`a str of ${str} bytes`);
      need(str);
      try {
        UTF8.decode(body.subarray(pos, pos + str));
      } catch {
        throw malformed("a str that is not valid UTF-8");
      }
      pos += str;
    }
  } while (open.length);
}
