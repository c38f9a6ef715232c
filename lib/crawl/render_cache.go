package crawl

import (
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"weak"
)

// What the pages' requests already captured, per crawl: a URL a page asks
// for again (a script or an icon every page loads, a video read by
// ranges, a request repeated by a script) is answered from its first
// capture instead of being fetched and recorded again, as the browser's
// own cache would answer it; the capture is made once.
//
// The cache is the crawl's, kept beside it (the Crawler itself knows
// nothing of it) and dropped with it.

const (
	renderCacheEntry = 8 << 20  // the largest body kept
	renderCacheTotal = 64 << 20 // bodies kept in all; the oldest go first
)

type renderAnswer struct {
	status int
	header http.Header
	body   []byte
}

type renderCache struct {
	mu    sync.Mutex
	m     map[string]*renderAnswer
	order []string
	size  int
	// got holds every URL a page's request captured (GET, answered):
	// links to them found in the pages' HTML are not queued again.
	got map[string]bool
	id  int64
}

var (
	renderCaches sync.Map // weak.Pointer[Crawler] -> *renderCache
	cachesByID   sync.Map // renderCache.id -> *renderCache
	cacheIDs     atomic.Int64
)

func (c *Crawler) renderCache() *renderCache {
	k := weak.Make(c)
	if v, ok := renderCaches.Load(k); ok {
		return v.(*renderCache)
	}
	rc := &renderCache{m: map[string]*renderAnswer{}, got: map[string]bool{}, id: cacheIDs.Add(1)}
	v, loaded := renderCaches.LoadOrStore(k, rc)
	if !loaded {
		cachesByID.Store(rc.id, rc)
		runtime.AddCleanup(c, func(rc *renderCache) {
			renderCaches.Delete(k)
			cachesByID.Delete(rc.id)
		}, rc)
	}
	return v.(*renderCache)
}

// markPrefix starts the URL of the link render adds last (with a
// Frontier) to ask mergeLinks to leave out the links of the page's HTML
// to URLs the pages' requests captured: it names the crawl's cache.
const markPrefix = "\x00captured:"

func (rc *renderCache) mark() Link {
	return Link{URL: markPrefix + strconv.FormatInt(rc.id, 10)}
}

// markedCache returns the cache a mark names, or nil when l is no mark.
func markedCache(l Link) *renderCache {
	s, ok := strings.CutPrefix(l.URL, markPrefix)
	if !ok {
		return nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil
	}
	if v, ok := cachesByID.Load(id); ok {
		return v.(*renderCache)
	}
	return nil
}

func (rc *renderCache) get(key string) *renderAnswer {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.m[key]
}

// put keeps an answer that a later request of a page may be given: a
// final status (no 206, no 304) and no Cache-Control: no-store.
func (rc *renderCache) put(key string, status int, h http.Header, body []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.got[key] = true
	switch {
	case status == http.StatusPartialContent || status == http.StatusNotModified || status >= 500:
		return
	case len(body) > renderCacheEntry || rc.m[key] != nil:
		return
	case strings.Contains(strings.ToLower(strings.Join(h.Values("Cache-Control"), ",")), "no-store"):
		return
	}
	rc.m[key] = &renderAnswer{status, h, body}
	rc.order = append(rc.order, key)
	rc.size += len(body)
	for rc.size > renderCacheTotal && len(rc.order) > 0 {
		old := rc.order[0]
		rc.order = rc.order[1:]
		rc.size -= len(rc.m[old].body)
		delete(rc.m, old)
	}
}

func (rc *renderCache) captured(key string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.got[key]
}
