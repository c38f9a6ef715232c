package waczpack

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/arcport/arcport/lib/internal/warcgen"
	"github.com/arcport/arcport/lib/store/s3test"
)

// TestCheckS3: check reads s3:// objects and prefixes (a real versitygw on
// loopback): the valid WARC passes, the tampered one fails with its line.
func TestCheckS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "coll")
	srv.Setenv(t, srv.URL)
	body, msg, _, _ := checkBodies()
	good := checkRec(warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg)
	dir := filepath.Join(srv.Dir, "coll", "warcs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a-good.warc.gz"), warcgen.Gzip(good), 0o644)
	os.WriteFile(filepath.Join(dir, "b-bad.warc.gz"), warcgen.Gzip(warcgen.Flip(good, "Server: warcgen", "Server: warcgem")), 0o644)
	so, se, code := run(t, nil, "check", "s3://coll/warcs/")
	want := "s3://coll/warcs/a-good.warc.gz: ok: 1 records, 2 digests checked, 0 records without digests\n" +
		"s3://coll/warcs/b-bad.warc.gz: record at offset 0: WARC-Block-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", msg) +
		", computed " + warcgen.B32("sha1", "sha1", warcgen.Flip(msg, "Server: warcgen", "Server: warcgem")) + "\n"
	if code != 1 || so != want || se != "waczpack check: 1 problem(s) in 1 of 2 file(s)\n" {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr %q", code, so, want, se)
	}
	if so, se, code := run(t, nil, "check", "s3://coll/warcs/a-good.warc.gz"); code != 0 || so != "s3://coll/warcs/a-good.warc.gz: ok: 1 records, 2 digests checked, 0 records without digests\n" {
		t.Errorf("one object: exit %d %q %q", code, so, se)
	}
}
