package htcache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/arcport/arcport/lib/htcache"
)

// TestExportSpoolMax: a cache.zip of about 40 KB holding a page whose
// body inflates to 40 MiB; `htcache export --spool-max 8M` (WARC and ARC)
// exits 1 with one line naming the cache, the entry offset and the cap,
// writes no output and leaves $TMPDIR empty; the default cap (4 GiB) lets
// it through; a bad size is a usage error.
func TestExportSpoolMax(t *testing.T) {
	zp := filepath.Join(t.TempDir(), "new.zip")
	f, err := os.Create(zp)
	if err != nil {
		t.Fatal(err)
	}
	zw := htcache.NewWriter(f)
	small := "<p>hi</p>"
	m := htcache.Meta{InCache: true, StatusCode: 200, StatusMessage: "OK", Size: int64(len(small)), ContentType: "text/html",
		Addr: "example.com", Fil: "/a.html", Save: "example.com/a.html"}
	if err := zw.Add("http://example.com/a.html", &m, bytes.NewReader([]byte(small))); err != nil {
		t.Fatal(err)
	}
	const big = 40 << 20
	m = htcache.Meta{InCache: true, StatusCode: 200, StatusMessage: "OK", Size: big, ContentType: "application/octet-stream",
		Addr: "example.com", Fil: "/bomb.bin", Save: "example.com/bomb.bin"}
	if err := zw.Add("http://example.com/bomb.bin", &m, bytes.NewReader(make([]byte, big))); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, _ := os.ReadFile(zp)
	if len(data) > 1<<20 {
		t.Fatalf("cache is %d bytes", len(data))
	}
	// the second local header
	second := bytes.Index(data[4:], []byte("PK\x03\x04")) + 4
	for _, format := range []string{"warc", "arc"} {
		t.Run(format, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			out := filepath.Join(t.TempDir(), "out."+format+".gz")
			_, errs, code := run("export", "--format", format, "--spool-max", "8M", "-o", out, zp)
			want := fmt.Sprintf("htcache: %s: entry at offset %d (http://example.com/bomb.bin): record block larger than the spool limit of 8 MiB (raise it with --spool-max)\n", zp, second)
			if code != 1 || errs != want {
				t.Errorf("--spool-max 8M: exit %d, stderr\n%q\nwant exit 1,\n%q", code, errs, want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written", out)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("left in TMPDIR: %s", ents[0].Name())
			}
			if _, errs, code := run("export", "--format", format, "-o", out, zp); code != 0 {
				t.Errorf("default cap: exit %d, %s", code, errs)
			}
			if _, errs, code := run("export", "--spool-max", "0", zp); code != 2 {
				t.Errorf("--spool-max 0: exit %d, %s", code, errs)
			}
		})
	}
}
