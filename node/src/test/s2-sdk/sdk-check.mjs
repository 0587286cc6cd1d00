// Drives S2's official TypeScript SDK against a Nova node's S2 surface and prints one "ok <step>" line per
// passed step, then "all ok". Any failed expectation throws, which exits non-zero. Run by S2SdkTest:
//   node sdk-check.mjs http://127.0.0.1:PORT/s2/v1 BASIN
import {
  S2, AppendInput, AppendRecord, SeqNumMismatchError, FencingTokenMismatchError, RangeNotSatisfiableError,
} from "@s2-dev/streamstore";

const [endpoint, basinName] = process.argv.slice(2);
const s2 = new S2({
  accessToken: "unused-without-auth",
  endpoints: { account: endpoint, basin: endpoint },
  retry: { maxAttempts: 1 },
});

function expect(cond, what) {
  if (!cond) throw new Error("expectation failed: " + what);
}
async function refused(promise, type, what) {
  try {
    await promise;
  } catch (e) {
    expect(e instanceof type, what + ": expected " + type.name + ", got " + e?.constructor?.name + " " + e?.message);
    return e;
  }
  throw new Error(what + ": expected " + type.name + ", but it succeeded");
}
const ok = (step, detail = "") => console.log("ok " + step + (detail ? " " + detail : ""));

const created = await s2.basins.create({ basin: basinName });
expect(created.name === basinName, "created basin name");
const listed = await s2.basins.list({ prefix: basinName });
expect(listed.basins.some((b) => b.name === basinName), "basin listed");
ok("basin");

const basin = s2.basin(basinName);
await basin.streams.create({ stream: "events", config: { retentionPolicy: { ageSecs: 3600 } } });
const config = await basin.streams.getConfig({ stream: "events" });
expect(config.retentionPolicy?.ageSecs === 3600, "retention age " + JSON.stringify(config));
const streams = await basin.streams.list();
expect(streams.streams.map((s) => s.name).includes("events"), "stream listed");
ok("stream");

// delete_on_empty is Nova's delete-on-empty minimum age, in seconds.
await basin.streams.reconfigure({ stream: "events", deleteOnEmpty: { minAgeSecs: 7200 } });
const reconfigured = await basin.streams.getConfig({ stream: "events" });
expect(reconfigured.deleteOnEmpty?.minAgeSecs === 7200, "delete_on_empty " + JSON.stringify(reconfigured));
await basin.streams.reconfigure({ stream: "events", deleteOnEmpty: { minAgeSecs: 0 } });
ok("delete-on-empty", reconfigured.deleteOnEmpty.minAgeSecs);

const stream = basin.stream("events", { forceTransport: "fetch" });
const first = await stream.append(AppendInput.create([
  AppendRecord.string({ body: "a", headers: [["k", "v"]] }),
  AppendRecord.string({ body: "b" }),
]));
expect(first.start.seqNum === 0 && first.end.seqNum === 2, "plain ack " + JSON.stringify(first));
ok("append", first.end.seqNum);

const matched = await stream.append(AppendInput.create([AppendRecord.string({ body: "c" })], { matchSeqNum: 2 }));
expect(matched.start.seqNum === 2, "matched ack");
const miss = await refused(stream.append(AppendInput.create([AppendRecord.string({ body: "x" })], { matchSeqNum: 0 })),
  SeqNumMismatchError, "match miss");
expect(miss.expectedSeqNum === 3, "expected seq_num " + miss.expectedSeqNum);
ok("match-seq-num", miss.expectedSeqNum);

await stream.append(AppendInput.create([AppendRecord.fence("writer-1")]));
const fenced = await stream.append(AppendInput.create([AppendRecord.string({ body: "d" })], { fencingToken: "writer-1" }));
expect(fenced.start.seqNum === 3, "fenced ack");
const fencedOut = await refused(stream.append(AppendInput.create([AppendRecord.string({ body: "y" })],
  { fencingToken: "writer-0" })), FencingTokenMismatchError, "fence mismatch");
expect(fencedOut.expectedFencingToken === "writer-1", "installed token " + fencedOut.expectedFencingToken);
ok("fencing-token", fencedOut.expectedFencingToken);

const batch = await stream.read({ start: { from: { seqNum: 0 } }, stop: { limits: { count: 10 } } });
expect(batch.records.map((r) => r.body).join("") === "abcd", "bodies " + JSON.stringify(batch.records));
expect(batch.records[0].headers[0][0] === "k" && batch.records[0].headers[0][1] === "v", "headers");
const fromTail = await stream.read({ start: { from: { tailOffset: 1 } } });
expect(fromTail.records.length === 1 && fromTail.records[0].body === "d", "tail_offset read");
await refused(stream.read({ start: { from: { seqNum: 99 } } }), RangeNotSatisfiableError, "start past the tail");
ok("read", batch.records.length);

const { tail } = await stream.checkTail();
expect(tail.seqNum === 4, "tail " + tail.seqNum);
ok("check-tail", tail.seqNum);

// Tail: a read session from the tail sees a record appended after it opened.
const session = await stream.readSession({ start: { from: { seqNum: 4 } }, stop: { limits: { count: 1 } } });
const appendSession = await stream.appendSession();
const ticket = await appendSession.submit(AppendInput.create([AppendRecord.string({ body: "e" })],
  { fencingToken: "writer-1" }));
const sessionAck = await ticket.ack();
expect(sessionAck.start.seqNum === 4, "append session ack " + JSON.stringify(sessionAck));
await appendSession.close();
ok("append-session", sessionAck.start.seqNum);
const tailed = [];
for await (const record of session) {
  tailed.push(record);
}
expect(tailed.length === 1 && tailed[0].body === "e" && tailed[0].seqNum === 4, "tailed " + JSON.stringify(tailed));
ok("read-session", tailed[0].seqNum);

// Access tokens: issued, listed and revoked as Nova tokens, under the id the SDK chose.
const readOps = ["list-basins", "get-basin-config", "list-streams", "get-stream-config", "check-tail", "read"];
const issued = await s2.accessTokens.issue({
  id: "sdk-reader", scope: { basins: { exact: basinName }, streams: { prefix: "" }, ops: readOps },
});
expect(issued.accessToken.startsWith("nvt."), "a Nova bearer token");
const tokens = await s2.accessTokens.list({ prefix: "sdk-" });
const reader = tokens.accessTokens.find((t) => t.id === "sdk-reader");
expect(reader?.scope?.basins?.exact === basinName, "listed token " + JSON.stringify(tokens));
await s2.accessTokens.revoke({ id: "sdk-reader" });
const afterRevoke = await s2.accessTokens.list({ prefix: "sdk-" });
expect(afterRevoke.accessTokens.length === 0, "revoked token not listed " + JSON.stringify(afterRevoke));
ok("access-tokens", reader.id);

await basin.streams.delete({ stream: "events" });
await s2.basins.delete({ basin: basinName });
ok("delete");
await stream.close();
console.log("all ok");
