// replay.cjs: open a WACZ in ReplayWeb.page (embedded <replay-web-page>)
// in headless Chromium and print the title of the replayed page, read from
// inside the replay iframe.
//
//   node replay.cjs BASE_URL TARGET_URL [TIMEOUT_MS]
//
// BASE_URL serves index.html (which embeds <replay-web-page source=... url=TARGET_URL>),
// ui.js and replay/sw.js. Prints one JSON line {"title": ..., "frame": ...}
// on success; exits 1 with a reason on stderr otherwise.
// Needs playwright-core (NODE_PATH) and CHROMIUM (default /usr/bin/chromium).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

async function main() {
  const [base, target, timeoutArg] = process.argv.slice(2);
  if (!base || !target) {
    console.error("usage: node replay.cjs BASE_URL TARGET_URL [TIMEOUT_MS]");
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
  let title = null, frameURL = null;
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
        // replayed content lives at .../w/<coll>/<timestamp>mp_/<url>
        const i = u.indexOf("mp_/");
        if (i < 0) continue;
        // the page itself, not a frame it embeds (whose URL may start the same)
        if (u.slice(i + 4).replace(/^https?:\/\//, "").replace(/#.*$/, "") !== want) continue;
        try {
          const t = await f.evaluate(() => document.readyState === "complete" ? document.title : null);
          if (t) { title = t; frameURL = u; break; }
        } catch (e) { /* frame navigating */ }
      }
      if (title === null) await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (title === null) {
    console.error(`no replayed page for ${target} within ${timeout} ms`);
    for (const l of log.slice(-30)) console.error(l);
    process.exit(1);
  }
  console.log(JSON.stringify({ title, frame: frameURL }));
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
