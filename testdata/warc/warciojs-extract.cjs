// warciojs-extract.cjs FILE OFFSET MODE: what `warcio extract` (Python
// warcio's extractor) prints of the record at OFFSET, made with warcio.js:
// MODE "all" the WARC header, the HTTP head and the raw rest of the block;
// "headers" the two heads; "raw" the block after the HTTP head as stored;
// "content" the payload with transfer and content codings undone (warcio's
// --payload). Used by lib/cli/waczpack tests as a peer; run with NODE_PATH
// pointing at the node_modules holding warcio.
const fs = require("node:fs");
const { WARCParser } = require("warcio");
(async () => {
  const [file, offset, mode] = process.argv.slice(2);
  const parser = new WARCParser(fs.createReadStream(file, { start: Number(offset) }), { keepHeadersCase: true });
  const rec = await parser.parse();
  if (!rec) throw new Error("no record");
  const out = [];
  if (mode === "all" || mode === "headers") {
    out.push(Buffer.from(rec.warcHeaders.toString() + "\r\n")); // warcio.js leaves out the blank line Python warcio prints
    if (rec.httpHeaders) out.push(Buffer.from(rec.httpHeaders.toString() + "\r\n"));
  }
  if (mode === "all" || mode === "raw") out.push(Buffer.from(await rec.readFully(false)));
  if (mode === "content") out.push(Buffer.from(await rec.readFully(true)));
  process.stdout.write(Buffer.concat(out));
})().catch((e) => { console.error(e); process.exit(1); });
