// Reads JSON lines {url, method, ct, body (base64)} on stdin and prints, for
// each, warcio.js postToGetUrl's result as JSON {url, requestBody}.
// Usage: node posttoget.mjs /path/to/node_modules/warcio < in.jsonl
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const dir = process.argv[2];
const { postToGetUrl, DEFAULT_MAX_QUERY_SIZE } = await import(pathToFileURL(dir + "/dist/index.js").href);
const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line === "") continue;
  const c = JSON.parse(line);
  const headers = new Headers();
  if (c.ct !== null) headers.append("Content-Type", c.ct);
  const request = { url: c.url, method: c.method, headers, postData: Buffer.from(c.body, "base64") };
  request.postData = new Uint8Array(request.postData.buffer, request.postData.byteOffset, request.postData.length);
  let res;
  try {
    postToGetUrl(request, DEFAULT_MAX_QUERY_SIZE);
    res = { url: request.url, requestBody: request.requestBody ?? "" };
  } catch (e) {
    res = { error: String(e) };
  }
  out.push(JSON.stringify(res));
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
