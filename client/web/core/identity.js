/**
 * A player's lasting identity in the page: an Ed25519 key made here (from
 * `crypto.getRandomValues`), kept in `localStorage`, and exported and imported as the PEM file
 * the terminal client keeps (client/identity.py: PKCS #8, unencrypted), so one key plays from
 * both. The key logs in with `login_key` (docs/PROTOCOL.md section 2.2): a signature over the
 * server's key and this connection's challenge.
 * @module
 */
import { ed25519 } from "../vendor/@noble/curves@1.9.7/esm/ed25519.js";
import { concat, lp16, randomBytes, sameBytes, toHex, utf8 } from "./bytes.js";
import { sha256 } from "./hash.js";

const STORAGE_KEY = "sushigo.identity";
const AUTH_TAG = lp16(utf8("sushigo/auth/v1"));
/** The DER of a PKCS #8 Ed25519 key up to its 32 private bytes (RFC 8410): version 0. */
const PKCS8_HEAD = Uint8Array.of(0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20);
const ED25519_OID = Uint8Array.of(0x06, 0x03, 0x2b, 0x65, 0x70);

export class Identity {
  /** @param {Uint8Array} secret the key's 32 private bytes (RFC 8032's seed) */
  constructor(secret) {
    if (!(secret instanceof Uint8Array) || secret.length !== 32) throw new Error("an Ed25519 key is 32 bytes");
    /** @type {Uint8Array} */
    this.secret = secret;
    /** @type {Uint8Array} the 32-byte public key */
    this.publicKey = ed25519.getPublicKey(secret);
  }

  /** @returns {Identity} a new key */
  static generate() {
    return new Identity(randomBytes(32));
  }

  /**
   * The player id the server derives from the key: "k:" and the hex of the first 16 bytes of the
   * public key's SHA-256.
   * @returns {string}
   */
  get playerId() {
    return "k:" + toHex(sha256(this.publicKey).subarray(0, 16));
  }

  /** @param {Uint8Array} message @returns {Uint8Array} the key's Ed25519 signature of it */
  sign(message) {
    return ed25519.sign(message, this.secret);
  }

  /** @returns {string} the key as the terminal client's key file holds it */
  toPem() {
    const der = concat(PKCS8_HEAD, this.secret);
    const b64 = btoa(String.fromCharCode(...der));
    return `-----BEGIN PRIVATE KEY-----\n${b64.match(/.{1,64}/g).join("\n")}\n-----END PRIVATE KEY-----\n`;
  }

  /**
   * The key of a PEM file (the terminal client's, or `toPem`'s); an `Error` saying what is wrong
   * with anything else (an encrypted key, another kind of key, not PEM at all).
   * @param {string} text
   * @returns {Identity}
   */
  static fromPem(text) {
    if (/-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(text)) {
      throw new Error("the key file is encrypted: only an unencrypted key can be imported");
    }
    const found = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/.exec(text);
    if (found === null) throw new Error("not a PEM private key (no BEGIN PRIVATE KEY block)");
    let der;
    try {
      der = Uint8Array.from(atob(found[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    } catch {
      throw new Error("the PEM block is not base64");
    }
    return new Identity(pkcs8Secret(der));
  }

  /** Keep the key in `storage` (default: `localStorage`). */
  save(storage = globalThis.localStorage) {
    storage.setItem(STORAGE_KEY, this.toPem());
  }

  /**
   * The key kept in `storage`, or null when there is none (or what is kept cannot be read).
   * @returns {Identity|null}
   */
  static load(storage = globalThis.localStorage) {
    const pem = storage?.getItem(STORAGE_KEY);
    if (!pem) return null;
    try {
      return Identity.fromPem(pem);
    } catch {
      return null;
    }
  }

  /** Remove the kept key from `storage`. */
  static forget(storage = globalThis.localStorage) {
    storage?.removeItem(STORAGE_KEY);
  }

  /**
   * The LOGIN_KEY message proving we hold this key on this connection.
   * @param {string} name
   * @param {Uint8Array} serverKey WELCOME's `server_key`
   * @param {Uint8Array} challenge WELCOME's `challenge`
   * @returns {{type: "login_key", name: string, public_key: Uint8Array, signature: Uint8Array}}
   */
  loginMessage(name, serverKey, challenge) {
    const payload = concat(AUTH_TAG, serverKey, challenge, this.publicKey);
    return { type: "login_key", name, public_key: this.publicKey, signature: this.sign(payload) };
  }
}

/**
 * The 32 private bytes of a DER PKCS #8 Ed25519 key (version 0, or version 1 with its public
 * key, which must then match).
 * @param {Uint8Array} der
 * @returns {Uint8Array}
 */
function pkcs8Secret(der) {
  let pos = 0;
  const item = (tag) => {
    if (der[pos] !== tag) throw new Error("not a PKCS #8 Ed25519 key");
    let length = der[pos + 1];
    pos += 2;
    if (length & 0x80) {
      const bytes = length & 0x7f;
      if (bytes > 2) throw new Error("not a PKCS #8 Ed25519 key");
      length = 0;
      for (let i = 0; i < bytes; i++) length = (length << 8) | der[pos++];
    }
    const body = der.subarray(pos, pos + length);
    if (body.length !== length) throw new Error("the key file is cut short");
    pos += length;
    return body;
  };
  const outer = item(0x30);
  if (pos !== der.length) throw new Error("not a PKCS #8 Ed25519 key");
  der = outer;
  pos = 0;
  const version = item(0x02);
  if (version.length !== 1 || version[0] > 1) throw new Error("not a PKCS #8 Ed25519 key");
  const algorithm = item(0x30);
  if (!sameBytes(algorithm, ED25519_OID)) throw new Error("the key file holds another kind of key than Ed25519");
  const wrapped = item(0x04);
  if (wrapped.length !== 34 || wrapped[0] !== 0x04 || wrapped[1] !== 0x20) throw new Error("not a PKCS #8 Ed25519 key");
  const secret = wrapped.slice(2);
  while (pos < der.length) {
    const tag = der[pos];
    const body = item(tag);
    if (tag === 0x81 && !sameBytes(body.subarray(1), ed25519.getPublicKey(secret))) {
      throw new Error("the key file's public key does not belong to its private key");
    }
  }
  return secret;
}
