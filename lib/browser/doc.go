// Package browser renders pages in headless Chromium for a crawler, through
// the Chrome DevTools Protocol (github.com/chromedp/chromedp and
// github.com/chromedp/cdproto; the protocol is described at
// https://chromedevtools.github.io/devtools-protocol/).
//
// The browser is a renderer, never a second network stack. Start turns on
// the Fetch domain for the whole browser at the request stage, so every
// request of every tab, frame (cross-site frames included) and worker is
// paused before it leaves Chromium; Render answers each one from the
// caller's FetchFunc (mirrorget's own HTTP client), with Fetch.fulfillRequest.
// Service workers are bypassed (Network.setBypassServiceWorker) and Chromium
// is given a loopback proxy of this package's that hangs up on every
// connection, loopback not bypassed, so nothing that is not intercepted can
// reach a server either.
//
// Render loads a page in a new tab, waits until the network has been idle
// for PageOptions.Idle (counted from the intercepted requests themselves),
// scrolls until the page height is stable (bounded by ScrollMax), dismisses
// dialogs, and returns the rendered DOM of every frame, the links found in
// them, the text and a PNG screenshot. A page that never goes idle is taken
// as it stands after three quarters of its Timeout; one that hangs ends
// with its Timeout, a tab that crashes, a browser that dies or a DOM past
// MaxDOM end it with a one-line error (ErrTimeout, ErrCrashed, ErrGone,
// ErrTooLarge); Close always stops Chromium and every process it started.
//
// The package knows nothing of crawls, scopes or archives: the caller
// decides what is fetched and what is kept, the browser only renders.
package browser
