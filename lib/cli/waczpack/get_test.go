package waczpack

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/samples"
)

// TestGetDamaged: get on a capture whose gzip member in the WACZ is
// damaged fails with one line naming the .wacz, the WARC in it and the
// record's offset (it named the WARC alone, at "record at offset 0", or
// printed the damaged body).
func TestGetDamaged(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ex.wacz")
	if _, se, code := run(t, nil, "create", "-o", good, samples.Path("example.warc.gz")); code != 0 {
		t.Fatalf("create: %s", se)
	}
	zr, err := zip.OpenReader(good)
	if err != nil {
		t.Fatal(err)
	}
	start, err := zr.File[0].DataOffset()
	name := zr.File[0].Name
	zr.Close()
	if err != nil || name != "archive/example.warc.gz" {
		t.Fatalf("first entry %s: %v", name, err)
	}
	b, _ := os.ReadFile(good)
	for _, off := range []int64{784 + 3, 784 + 400} { // the member's header, its deflate data
		bad := filepath.Join(dir, "bad.wacz")
		d := append([]byte(nil), b...)
		d[start+off] ^= 0x10
		os.WriteFile(bad, d, 0o644)
		so, se, code := run(t, nil, "get", bad, "http://example.com/", "--ts", "20170306040206", "-o", filepath.Join(dir, "page.html"))
		want := "waczpack: " + bad + ": archive/example.warc.gz: record at offset 784: "
		if code != 1 || !strings.HasPrefix(se, want) || strings.Count(se, "\n") != 1 || so != "" {
			t.Errorf("byte %d flipped: exit %d, stderr %q, want it to start with %q", off, code, se, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "page.html")); err == nil {
			t.Errorf("byte %d flipped: -o file written", off)
		}
	}
	if so, se, code := run(t, nil, "get", good, "http://example.com/", "--ts", "20170306040206"); code != 0 || !strings.Contains(so, "<title>Example Domain</title>") {
		t.Errorf("undamaged: exit %d, %q", code, se)
	}
}
