package replay

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/samples"
)

// TestARCFolderReplay serves a folder of ARC files (plain and gzip per
// record) and replays every capture the CDX API lists with id_: a record
// in the middle of an ARC starts with its URL line, not "filedesc:", and
// must be read as ARC all the same.
func TestARCFolderReplay(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"example.arc", "example.arc.gz"} {
		b, err := os.ReadFile(samples.Path(n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	c, err := Open(context.Background(), "arcs", dir, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewServer(c)
	ts := httptest.NewServer(s)
	defer ts.Close()
	r, err := http.Get(ts.URL + "/arcs/cdx?url=example.com&matchType=domain&output=json&fl=url,timestamp,filename,offset,status")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	var caps []map[string]string
	for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("cdx line %q: %v", l, err)
		}
		caps = append(caps, m)
	}
	files := map[string]bool{}
	for _, m := range caps {
		files[m["filename"]] = true
		r, err := http.Get(ts.URL + "/arcs/" + m["timestamp"] + "id_/" + m["url"])
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode/100 != 2 && r.StatusCode/100 != 3 {
			t.Errorf("%s %s (%s at %s): %d %s", m["timestamp"], m["url"], m["filename"], m["offset"], r.StatusCode, b)
		}
	}
	if len(caps) < 2 || len(files) != 2 {
		t.Fatalf("%d captures in %d files: %s", len(caps), len(files), body)
	}
	t.Logf("%d captures from %d ARC files replayed", len(caps), len(files))
}
