// One scroll step: lazy images and frames are made eager, then the page is
// scrolled down by a viewport. Returns where it stands.
(() => {
  for (const e of document.querySelectorAll('img[loading="lazy"],iframe[loading="lazy"]')) {
    e.loading = 'eager';
  }
  const se = document.scrollingElement || document.documentElement;
  window.scrollBy(0, window.innerHeight);
  return {Y: se.scrollTop, H: se.scrollHeight, VH: window.innerHeight};
})()
