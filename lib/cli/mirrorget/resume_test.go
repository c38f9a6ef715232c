package mirrorget

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/internal/httracktest"
)

// TestMirrorgetAfterInterruptedHTTrackUpdate: a mirror made by the real
// httrack, then a real `httrack --update` killed half-way, which leaves
// new.zip (the pages it fetched again) beside old.zip (the whole first
// crawl). The site then drops the links to the pages the update had not
// reached, and mirrorget updates the mirror with --purge=off: its cache
// must still hold those pages, from old.zip (it keeps what it did not
// visit), instead of losing them when new.zip is renamed over old.zip.
// (With purge on, the default, they are purged: TestUpdatePurges.)
func TestMirrorgetAfterInterruptedHTTrackUpdate(t *testing.T) {
	httracktest.Need(t)
	s := httracktest.NewSite(t, 12, 5)
	dir := t.TempDir()
	s.Mirror(t, dir)
	s.Interrupt(t, dir)
	s.Drop(true)
	if err := App().Run([]string{"mirrorget", "-q", "--purge=off", "-O", dir, "-o", dir + "/update.arc.gz", s.URL + "/"}); err != nil {
		t.Fatalf("mirrorget update: %v", err)
	}
	c, err := htcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.OldPath != "" {
		t.Errorf("old.zip still there after a finished mirrorget update")
	}
	for i := 0; i < s.Pages; i++ {
		u := s.PageURL(i)
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
