// One scroll step: lazy images and frames are made eager, then the page is
// scrolled down by a viewport, and two frames are let render there (a
// second at most), so that intersection observers see this position even
// on a busy machine. Resolves to where it stands.
(async () => {
  for (const e of document.querySelectorAll('img[loading="lazy"],iframe[loading="lazy"]')) {
    e.loading = 'eager';
  }
  const se = document.scrollingElement || document.documentElement;
  window.scrollBy(0, window.innerHeight);
  await new Promise((done) => {
    let n = 0;
    const frame = () => (++n >= 2 ? done() : requestAnimationFrame(frame));
    requestAnimationFrame(frame);
    setTimeout(done, 1000);
  });
  return {Y: se.scrollTop, H: se.scrollHeight, VH: window.innerHeight};
})()
