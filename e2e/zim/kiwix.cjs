// kiwix.cjs: open a page served by kiwix-serve in headless Chromium, click
// the link whose text is LINK_TEXT, and print what was shown.
//
//   node kiwix.cjs PAGE_URL LINK_TEXT [TIMEOUT_MS]
//
// Prints one JSON line {"title", "url", "linkTitle", "linkURL", "images",
// "external"}: the page's title and URL, the title and URL after the click,
// how many <img> of the page loaded (naturalWidth > 0), and the requests
// that left the server's origin. Exits 1 with a reason on stderr otherwise.
// Needs playwright-core (NODE_PATH) and CHROMIUM (default /usr/bin/chromium).
"use strict";
const { chromium } = require("playwright-core");

async function main() {
  const [pageURL, linkText, timeoutArg] = process.argv.slice(2);
  if (!pageURL || !linkText) {
    console.error("usage: node kiwix.cjs PAGE_URL LINK_TEXT [TIMEOUT_MS]");
    process.exit(2);
  }
  const timeout = Number(timeoutArg || 60000);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(timeout);
    const origin = new URL(pageURL).origin;
    const external = [];
    page.on("request", (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) external.push(r.url()); });
    const resp = await page.goto(pageURL, { waitUntil: "load" });
    if (!resp || !resp.ok()) throw new Error(`GET ${pageURL}: ${resp && resp.status()}`);
    const title = await page.title();
    const url = page.url();
    const images = await page.evaluate(() => Array.from(document.images).filter((i) => i.complete && i.naturalWidth > 0).length);
    await Promise.all([
      page.waitForNavigation({ waitUntil: "load" }),
      page.getByText(linkText, { exact: true }).first().click(),
    ]);
    const linkTitle = await page.title();
    const linkURL = page.url();
    console.log(JSON.stringify({ title, url, linkTitle, linkURL, images, external }));
  } finally {
    await browser.close();
  }
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
