// rwp.cjs: replay pages of a WACZ in ReplayWeb.page (embedded
// <replay-web-page>) in headless Chromium, offline, and report what each
// replayed page shows.
//
//   node rwp.cjs BASE_URL TIMEOUT_MS TARGET_URL...
//
// BASE_URL serves index.html?url=TARGET (a page embedding
// <replay-web-page source=... url=TARGET>), ui.js and replay/sw.js. For
// each target, once its replay frame has loaded, the frame is scrolled a
// viewport at a time to its end (so what loads on scroll loads), then read.
// Prints one JSON line: [{"url", "title", "text", "cards", "images",
// "frame"}], images counting the card images (.card img) loaded with a
// size. Exits 1 with a reason on stderr when a target is not replayed.
// Needs playwright-core (NODE_PATH) and CHROMIUM (default /usr/bin/chromium).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function replayed(page, target, deadline) {
  const want = target.replace(/^https?:\/\//, "").replace(/#.*$/, "");
  while (Date.now() < deadline) {
    for (const f of page.frames()) {
      const u = f.url();
      const i = u.indexOf("mp_/");
      if (i < 0) continue;
      if (u.slice(i + 4).replace(/^https?:\/\//, "").replace(/#.*$/, "") !== want) continue;
      try {
        if (await f.evaluate(() => document.readyState === "complete")) return f;
      } catch (e) { /* navigating */ }
    }
    await sleep(250);
  }
  return null;
}

async function main() {
  const [base, timeoutArg, ...targets] = process.argv.slice(2);
  if (!base || targets.length === 0) {
    console.error("usage: node rwp.cjs BASE_URL TIMEOUT_MS TARGET_URL...");
    process.exit(2);
  }
  const timeout = Number(timeoutArg || 90000);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "rwp-profile-"));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  const log = [];
  const out = [];
  let failed = null;
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    page.on("console", (m) => log.push(`console.${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => log.push(`pageerror: ${e}`));
    for (const target of targets) {
      const deadline = Date.now() + timeout;
      await page.goto(base.replace(/\/$/, "") + "/index.html?url=" + encodeURIComponent(target), { waitUntil: "load" });
      const f = await replayed(page, target, deadline);
      if (!f) { failed = `no replayed page for ${target} within ${timeout} ms`; break; }
      // let the scripts fetch, then scroll to the end until the height stays
      await sleep(1500);
      let last = -1, stable = 0;
      for (let i = 0; i < 60 && stable < 3 && Date.now() < deadline; i++) {
        const p = await f.evaluate(() => {
          window.scrollBy(0, window.innerHeight);
          const se = document.scrollingElement || document.documentElement;
          return { y: se.scrollTop + window.innerHeight, h: se.scrollHeight };
        });
        await sleep(300);
        stable = p.y >= p.h - 1 && p.h === last ? stable + 1 : 0;
        last = p.h;
      }
      // the images asked for last have a moment to arrive
      let r = null;
      for (let i = 0; i < 20; i++) {
        r = await f.evaluate(() => {
          const cards = document.querySelectorAll(".card");
          const imgs = [...document.querySelectorAll(".card img")];
          return {
            title: document.title,
            text: document.body ? document.body.innerText : "",
            cards: cards.length,
            images: imgs.filter((i) => i.complete && i.naturalWidth > 0).length,
          };
        });
        if (r.images >= r.cards) break;
        await sleep(250);
      }
      out.push({ url: target, frame: f.url(), ...r });
    }
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (failed) {
    console.error(failed);
    for (const l of log.slice(-30)) console.error(l);
    process.exit(1);
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
