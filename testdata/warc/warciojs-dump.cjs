// warciojs-dump.cjs FILE: prints one JSON line per record as warcio.js reads
// it (offset, version line, header fields in order, block as base64). Used
// by lib/warc tests as a peer reader; run with NODE_PATH pointing at the
// node_modules holding warcio.
const fs = require("node:fs");
const { WARCParser } = require("warcio");
(async () => {
  const parser = new WARCParser(fs.createReadStream(process.argv[2]), { keepHeadersCase: true, parseHttp: false });
  for await (const rec of parser) {
    const block = await rec.readFully(false);
    const headers = [];
    for (const [k, v] of rec.warcHeaders.headers) headers.push([k, v]);
    process.stdout.write(JSON.stringify({ offset: parser.offset, version: rec.warcHeaders.protocol, headers, block: Buffer.from(block).toString("base64") }) + "\n");
  }
})().catch((e) => { console.error(e); process.exit(1); });
