package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/htcache"
)

// TestMirrorgetAfterInterruptedHTTrackUpdate: a mirror made by the real
// httrack, then a real `httrack --update` killed half-way, which leaves
// new.zip (the pages it fetched again) beside old.zip (the whole first
// crawl). The site then drops the links to the pages the update had not
// reached, and mirrorget updates the mirror: its cache must still hold
// those pages, from old.zip (it keeps what it did not visit), instead of
// losing them when new.zip is renamed over old.zip.
func TestMirrorgetAfterInterruptedHTTrackUpdate(t *testing.T) {
	if _, err := exec.LookPath("httrack"); err != nil {
		t.Skip("httrack not installed (Debian package httrack)")
	}
	mg := bin(t, "mirrorget")
	const pages = 12
	var holding, dropped atomic.Bool // pages >= 5: held back / unlinked
	release := make(chan struct{})
	held := make(chan struct{}, 64)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body string
		switch {
		case r.URL.Path == "/":
			for i := 0; i < pages; i++ {
				if i < 5 || !dropped.Load() {
					body += fmt.Sprintf(`<a href="p%d.html">p%d</a> `, i, i)
				}
			}
		case strings.HasPrefix(r.URL.Path, "/p"):
			var i int
			if _, err := fmt.Sscanf(r.URL.Path, "/p%d.html", &i); err != nil {
				http.NotFound(w, r)
				return
			}
			if holding.Load() && i >= 5 {
				held <- struct{}{}
				<-release
				return
			}
			body = fmt.Sprintf("<p>page %d</p>", i)
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>"+body+"</body></html>")
	}))
	defer srv.Close()
	defer once.Do(func() { close(release) })
	dir := t.TempDir()
	httrack := func(extra ...string) *exec.Cmd {
		cmd := exec.Command("httrack", append([]string{srv.URL + "/", "-O", dir, "-q", "-%v0", "-c4", "-%!", "-s0"}, extra...)...)
		cmd.Dir = dir
		return cmd
	}
	if out, err := httrack().CombinedOutput(); err != nil {
		t.Fatalf("httrack: %v\n%s", err, out)
	}
	holding.Store(true)
	upd := httrack("--update")
	if err := upd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(time.Minute):
		upd.Process.Kill()
		t.Fatal("the update never reached a held page")
	}
	time.Sleep(time.Second) // let httrack write what it has
	upd.Process.Kill()
	upd.Wait()
	once.Do(func() { close(release) })
	holding.Store(false)

	dropped.Store(true)
	if _, stderr, code := run(t, mg, nil, "-q", "-O", dir, "-o", dir+"/update.arc.gz", srv.URL+"/"); code != 0 {
		t.Fatalf("mirrorget update: exit %d: %s", code, stderr)
	}
	c, err := htcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.OldPath != "" {
		t.Errorf("old.zip still there after a finished mirrorget update")
	}
	for i := 0; i < pages; i++ {
		u := fmt.Sprintf("%s/p%d.html", srv.URL, i)
		e, err := c.Find(u)
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if want := fmt.Sprintf("page %d", i); e.Meta.StatusCode != 200 || !strings.Contains(string(cacheBody(t, c, e)), want) {
			t.Errorf("%s: status %d, body without %q", u, e.Meta.StatusCode, want)
		}
	}
}

func cacheBody(t *testing.T, c *htcache.Cache, e *htcache.Entry) []byte {
	t.Helper()
	rc, _, err := c.Body(e)
	if err != nil {
		t.Fatalf("%s: %v", e.URI(), err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return b
}
