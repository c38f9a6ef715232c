// Reads one frame's rendered document: its serialized DOM, its text and its
// links, absolute as the document resolves them. A DOM or text longer than
// limit characters is not sent; its length is.
(limit) => {
  const d = document;
  let html = d.documentElement ? d.documentElement.outerHTML : '';
  if (d.doctype) html = new XMLSerializer().serializeToString(d.doctype) + '\n' + html;
  let text = d.body ? d.body.innerText : '';
  if (html.length + text.length > limit) {
    return {url: location.href, title: d.title, over: html.length + text.length, links: []};
  }
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
  return {url: location.href, title: d.title, html, text, links};
}
