// S2's TypeScript SDK against Nova: create a basin and a stream, append, read back, check the tail.
//   npm install && node hello.mjs [http://127.0.0.1:7901/s2/v1] [basin]
import { S2, AppendInput, AppendRecord } from "@s2-dev/streamstore";

const endpoint = process.argv[2] ?? "http://127.0.0.1:7901/s2/v1";
const basinName = process.argv[3] ?? "hello-" + Date.now();
// Without --auth Nova ignores the token; with it, pass a Nova access token (NOVA_TOKEN).
const s2 = new S2({
  accessToken: process.env.NOVA_TOKEN ?? "unused",
  endpoints: { account: endpoint, basin: endpoint },
});

await s2.basins.create({ basin: basinName });
const basin = s2.basin(basinName);
await basin.streams.create({ stream: "greetings" });
// The fetch transport: S2's HTTP/2 session transport (s2s) is not served by Nova (see docs/http-api.md).
const stream = basin.stream("greetings", { forceTransport: "fetch" });

const ack = await stream.append(AppendInput.create([
  AppendRecord.string({ body: "hello", headers: [["lang", "en"]] }),
  AppendRecord.string({ body: "bonjour", headers: [["lang", "fr"]] }),
]));
console.log(`appended seq_nums ${ack.start.seqNum}..${ack.end.seqNum - 1}`);

const batch = await stream.read({ start: { from: { seqNum: 0 } } });
for (const r of batch.records) {
  console.log(`read ${r.seqNum}: ${r.body} ${JSON.stringify(r.headers)}`);
}
const { tail } = await stream.checkTail();
console.log(`tail ${tail.seqNum}`);
