package zimdump

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/store/s3test"
)

// TestIndexS3: zimdump index reads OLD.zim from s3:// (a real versitygw)
// in place and writes NEW.zim to s3:// or to a local file: the same
// indexes and entries as from the local copy of OLD.zim; a missing key is
// one line naming it, exit 1, and nothing written. zimdump runs in a child
// process: the store client is made once per process.
func TestIndexS3(t *testing.T) {
	site := writeSite(t, indexSite)
	srv := s3test.Start(t)
	srv.Bucket(t, "coll")
	srv.Setenv(t, srv.URL)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.zim")
	if r := ours("create", "--no-index", "-q", "-o", plain, "--date", "2026-11-27", site); r.rc != 0 {
		t.Fatalf("create: %+v", r)
	}
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(srv.Dir, "coll", "plain.zim"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "local.zim")
	if r := ours("index", "-q", plain, "-o", local); r.rc != 0 || r.stderr != "" {
		t.Fatalf("index of the local copy: %+v", r)
	}
	fromS3 := filepath.Join(dir, "from-s3.zim")
	if r := viaMain(t, "index", "-q", "s3://coll/plain.zim", "-o", fromS3); r.rc != 0 || r.stderr != "" {
		t.Fatalf("index s3:// to a local file: %+v", r)
	}
	if r := viaMain(t, "index", "-q", "s3://coll/plain.zim", "-o", "s3://coll/indexed.zim"); r.rc != 0 || r.stderr != "" {
		t.Fatalf("index s3:// to s3://: %+v", r)
	}
	want := xapianBlobs(t, local)
	for _, got := range []string{fromS3, filepath.Join(srv.Dir, "coll", "indexed.zim")} {
		blobs := xapianBlobs(t, got)
		for _, kind := range []string{"fulltext", "title"} {
			if len(blobs[kind]) == 0 || !bytes.Equal(blobs[kind], want[kind]) {
				t.Errorf("%s: X/%s/xapian (%d bytes) differs from the local run's (%d bytes)", got, kind, len(blobs[kind]), len(want[kind]))
			}
		}
		sameEntries(t, zimContents(t, local), zimContents(t, got))
		zimcheckA(t, got)
	}
	// a missing key: one line naming it, nothing written
	missing := filepath.Join(dir, "missing.zim")
	r := viaMain(t, "index", "s3://coll/nothere.zim", "-o", missing)
	if r.rc != 1 || !strings.Contains(r.stderr, "s3://coll/nothere.zim") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("missing key: %+v", r)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("%s written for a missing input", missing)
	}
}
