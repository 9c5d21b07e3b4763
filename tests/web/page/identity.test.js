// A player's key in the page (core/identity.js) and the terminal client's key file
// (client/identity.py): a file the terminal client made is imported with the same player id, the
// page writes the same file back, and anything that is not such a key is refused in words.

import { assert, assertEqual } from "./runner.js";
import { Identity } from "/core/identity.js";
import { concat, lp16, utf8 } from "/core/bytes.js";

export async function tests() {
  const files = await (await fetch("/fixtures/keys.json")).json();
  const refusedWith = (text, words) => {
    try {
      Identity.fromPem(text);
    } catch (exc) {
      assert(exc.message.includes(words), `expected "${words}", got "${exc.message}"`);
      return;
    }
    throw new Error("imported");
  };
  return [
    {
      name: "the terminal client's key file: the same player, written back the same",
      fn: () => {
        const id = Identity.fromPem(files.terminal.pem);
        assertEqual(id.playerId, files.terminal.player_id, "the player id");
        assertEqual(id.toPem(), files.terminal.pem, "the key file written back");
      },
    },
    {
      name: "a login signature the server's code accepts",
      fn: () => {
        const id = Identity.fromPem(files.terminal.pem);
        const key = new Uint8Array(32).fill(1);
        const challenge = new Uint8Array(32).fill(2);
        const message = id.loginMessage("ann", key, challenge);
        assertEqual(message.signature.length, 64, "the signature's size");
        assertEqual([...message.signature], files.terminal.signature, "the signature of the auth payload");
      },
    },
    {
      name: "a key kept in storage comes back; a forgotten one does not",
      fn: () => {
        const kept = new Map();
        const storage = { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, v), removeItem: (k) => kept.delete(k) };
        const id = Identity.generate();
        id.save(storage);
        assertEqual(Identity.load(storage).playerId, id.playerId, "the kept key");
        Identity.forget(storage);
        assertEqual(Identity.load(storage), null, "a forgotten key");
      },
    },
    { name: "an encrypted key file is refused", fn: () => refusedWith(files.encrypted, "encrypted") },
    { name: "another kind of key is refused", fn: () => refusedWith(files.ed448, "another kind of key") },
    { name: "no key at all is refused", fn: () => refusedWith("hello", "not a PEM private key") },
    {
      name: "a key file cut short is refused",
      fn: () => {
        const lines = files.terminal.pem.split("\n");
        lines[1] = lines[1].slice(0, 40);
        refusedWith(lines.join("\n"), "the key file is cut short");
      },
    },
  ];
}
