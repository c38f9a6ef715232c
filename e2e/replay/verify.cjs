// verify.cjs: open a WACZ in ReplayWeb.page (embedded <replay-web-page>) in
// headless Chromium, wait until TARGET_URL is replayed, then print what
// ReplayWeb.page's engine (wabac.js) recorded when it checked the WACZ's
// datapackage-digest.json signature: the rows of the "verification" object
// store of the collection's IndexedDB ("db:<coll>"; ids "signature",
// "publicKey", "created", "software", "domain", "datapackageHash", ...,
// each {id, expected, matched}), and the collection API's "verify" summary.
//
//   node verify.cjs BASE_URL TARGET_URL [TIMEOUT_MS]
//
// Prints one JSON line {"title", "frame", "coll", "verification", "api"};
// exits 1 with a reason on stderr otherwise. Needs playwright-core
// (NODE_PATH) and CHROMIUM (default /usr/bin/chromium).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

async function main() {
  const [base, target, timeoutArg] = process.argv.slice(2);
  if (!base || !target) {
    console.error("usage: node verify.cjs BASE_URL TARGET_URL [TIMEOUT_MS]");
    process.exit(2);
  }
  const timeout = Number(timeoutArg || 90000);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "rwp-profile-"));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  const log = [];
  let title = null, frameURL = null, frame = null, out = null;
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    page.on("console", (m) => log.push(`console.${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => log.push(`pageerror: ${e}`));
    await page.goto(base.replace(/\/$/, "") + "/index.html", { waitUntil: "load" });
    const deadline = Date.now() + timeout;
    const want = target.replace(/^https?:\/\//, "").replace(/#.*$/, "");
    while (Date.now() < deadline && title === null) {
      for (const f of page.frames()) {
        const u = f.url();
        const i = u.indexOf("mp_/");
        if (i < 0) continue;
        if (u.slice(i + 4).replace(/^https?:\/\//, "").replace(/#.*$/, "") !== want) continue;
        try {
          const t = await f.evaluate(() => document.readyState === "complete" ? document.title : null);
          if (t) { title = t; frameURL = u; frame = f; break; }
        } catch (e) { /* frame navigating */ }
      }
      if (title === null) await new Promise((r) => setTimeout(r, 250));
    }
    if (title !== null) {
      // .../w/<coll>/[<wacz id>/]<timestamp>mp_/<url>
      const m = frameURL.match(/^(.*\/w\/)([^/]+)\/(?:[^/]*\/)?\d*mp_\//);
      const coll = m ? m[2] : null;
      const verification = coll === null ? null : await page.evaluate((name) => new Promise((resolve, reject) => {
        const req = indexedDB.open(name);
        req.onerror = () => reject(String(req.error));
        req.onsuccess = () => {
          const db = req.result;
          if (!db.objectStoreNames.contains("verification")) { resolve(null); return; }
          const q = db.transaction("verification").objectStore("verification").getAll();
          q.onsuccess = () => resolve(q.result);
          q.onerror = () => reject(String(q.error));
        };
      }), "db:" + coll);
      let api = null;
      if (coll !== null) {
        try {
          // the collection API of wabac.js: <replay prefix>api/c/<coll>, asked
          // from a frame the service worker controls
          const ui = page.frames().find((f) => f.url().startsWith(base.replace(/\/$/, "") + "/replay/") && f.url().indexOf("mp_/") < 0) || frame;
          api = await ui.evaluate(async (urls) => {
            const tried = [];
            for (const u of urls) {
              const r = await fetch(u);
              if (r.ok) return (await r.json()).verify || null;
              tried.push(`${u}: HTTP ${r.status}`);
            }
            return tried.join("; ");
          }, [m[1] + "api/c/" + coll + "?all=1", m[1].replace(/w\/$/, "") + "api/c/" + coll + "?all=1"]);
        } catch (e) { api = String(e); }
      }
      let dbs = null;
      if (process.env.VERIFY_DEBUG) {
        dbs = await page.evaluate(async () => {
          const out = {};
          for (const d of await indexedDB.databases()) {
            out[d.name] = await new Promise((res) => {
              const req = indexedDB.open(d.name);
              req.onsuccess = () => {
                const db = req.result, names = Array.from(db.objectStoreNames);
                if (!names.includes("verification")) { res(names); return; }
                const q = db.transaction("verification").objectStore("verification").getAll();
                q.onsuccess = () => res(q.result);
              };
              req.onerror = () => res(String(req.error));
            });
          }
          return out;
        });
      }
      out = { title, frame: frameURL, coll, verification, api, dbs, log: process.env.VERIFY_DEBUG ? log : undefined };
    }
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (out === null) {
    console.error(`no replayed page for ${target} within ${timeout} ms`);
    for (const l of log.slice(-30)) console.error(l);
    process.exit(1);
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
