// Reads one frame's rendered document: its serialized DOM, its text and its
// links, absolute as the document resolves them.
(() => {
  const d = document;
  let html = d.documentElement ? d.documentElement.outerHTML : '';
  if (d.doctype) html = new XMLSerializer().serializeToString(d.doctype) + '\n' + html;
  const links = [];
  const abs = (v) => {
    try { return new URL(v, d.baseURI).href; } catch (e) { return ''; }
  };
  for (const e of d.querySelectorAll('a[href],area[href]')) {
    const h = e.getAttribute('href');
    const u = abs(h === null ? '' : h);
    if (u) links.push([e.localName, u]);
  }
  for (const e of d.querySelectorAll('iframe[src],frame[src]')) {
    const u = abs(e.getAttribute('src'));
    if (u) links.push([e.localName, u]);
  }
  return {url: location.href, title: d.title, html, text: d.body ? d.body.innerText : '', links};
})()
