/**
 * SHA-256 and SHA-512 (FIPS 180-4), from the vendored @noble/hashes: a page on plain http from a
 * LAN address has no `crypto.subtle`, and the checks must run there too.
 * @module
 */
import { sha256 as nobleSha256, sha512 as nobleSha512 } from "../vendor/@noble/hashes@1.8.0/esm/sha2.js";

/** @param {Uint8Array} data @returns {Uint8Array} its 32-byte SHA-256 */
export function sha256(data) {
  return nobleSha256(data);
}

/** @param {Uint8Array} data @returns {Uint8Array} its 64-byte SHA-512 */
export function sha512(data) {
  return nobleSha512(data);
}

/**
 * A SHA-256 that takes its input in parts (`update`), then gives the digest (`digest`); `clone`
 * copies one part-way through (the deterministic generator hashes one prefix many times).
 * @returns {{update(data: Uint8Array): any, digest(): Uint8Array, clone(): any}}
 */
export function sha256Stream() {
  return nobleSha256.create();
}
