// The page's client on a cluster of two nodes, each serving the protocol over a WebSocket
// (`?ws=` and `?ws2=`): a player on the node that does not hold a table joins it, the core
// follows the REDIRECT to the other node with its ticket (docs/PROTOCOL.md section 2.2), and the
// two players' game verifies for both.

import { assert, assertEqual } from "./runner.js";
import { assertVerified, cardChooser, newClient, playGame, useServer } from "./client.test.js";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function crossNodes(wsA, wsB) {
  useServer(wsA);
  const host = newClient();
  await host.connect();
  const joined = await host.createTable({ kind: "sushi-go", players: 2, variants: [], turn_seconds: 60 });
  const tableId = joined.table.table_id;
  // Placement may have opened it on either node: the guest starts on the other one.
  const elsewhere = host.url === wsA ? wsB : wsA;
  const guest = newClient({ url: elsewhere });
  await guest.connect();
  assertEqual(guest.nodes.length, 2, "the cluster's nodes at login");
  let seated = null;
  for (let i = 0; i < 100 && seated === null; i++) {
    try {
      seated = await guest.joinTable(tableId);
    } catch (exc) {
      // A new table's lease is written at its node's next renewal: until then no node knows it.
      if (exc.codeName !== "NO_SUCH_TABLE") throw exc;
      await sleep(100);
    }
  }
  assert(seated !== null, "the table was never found");
  assertEqual(seated.seat, 1, "the guest's seat");
  assertEqual(guest.url, host.url, "the guest followed the redirect to the table's node");
  const games = [playGame(host, cardChooser({ pairs: 0 })), playGame(guest, cardChooser({ pairs: 0 }))];
  host.startGame();
  await Promise.all(games);
  assertVerified(host.fairness, "the host");
  assertVerified(guest.fairness, "the guest");
  host.close();
  guest.close();
}

export async function tests(params) {
  return [{ name: "a player on the other node is redirected to the table's node; both verify", fn: () => crossNodes(params.get("ws"), params.get("ws2")) }];
}
