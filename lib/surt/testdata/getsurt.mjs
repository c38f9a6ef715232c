// Reads JSON strings (one per line) on stdin and prints warcio.js
// getSurt(s) for each as a JSON string line. Usage:
//   node getsurt.mjs /path/to/node_modules/warcio < in.jsonl
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const dir = process.argv[2];
const { getSurt } = await import(pathToFileURL(dir + "/dist/index.js").href);
const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line === "") continue;
  out.push(JSON.stringify(getSurt(JSON.parse(line))));
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
