package store

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestKindOfPaths: Windows paths (drive letters, backslashes, UNC) are
// local paths on every system, never URLs; only s3://, http:// and
// https:// (any case) are remote.
func TestKindOfPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind Kind
	}{
		{"-", Std},
		{"", Local},
		{"crawl.warc.gz", Local},
		{"/data/crawl.warc.gz", Local},
		{`C:\x\y.warc`, Local},
		{`c:\x\y.warc`, Local},
		{"C:/x", Local},
		{"C:/x/y.warc.gz", Local},
		{"C://x", Local}, // a drive letter, not a scheme
		{"c://x/y", Local},
		{`C:`, Local},
		{`C:y.warc`, Local}, // relative to drive C's current folder
		{`\\server\share\y.warc`, Local},
		{`\\?\C:\very\long\y.warc`, Local},
		{`.\s3:\\bucket\key`, Local},
		{"./s3://bucket/key", Local},
		{"dir/http://x", Local},
		{"1s3://bucket/key", Local}, // a scheme starts with a letter
		{"s 3://bucket/key", Local},
		{"file:///C:/x/y.warc", Local},
		{"s3://bucket/key", S3},
		{"S3://bucket/key", S3},
		{"s3://bucket", S3},
		{"http://h/x.warc", HTTP},
		{"HTTPS://h/x.warc", HTTP},
		{"ftp://h/x.warc", Local},
	} {
		if got := KindOf(tc.name); got != tc.kind {
			t.Errorf("KindOf(%q) = %v, want %v", tc.name, got, tc.kind)
		}
		if IsRemote(tc.name) != (tc.kind == S3 || tc.kind == HTTP) {
			t.Errorf("IsRemote(%q) = %v", tc.name, IsRemote(tc.name))
		}
		if tc.kind == Local {
			if got := Redact(tc.name); got != tc.name {
				t.Errorf("Redact(%q) = %q: a local path is shown as it is", tc.name, got)
			}
		}
	}
}

// TestOpenLocalBackslash: on Unix a name with a backslash or a colon is a
// file name like any other, read and written locally.
func TestOpenLocalBackslash(t *testing.T) {
	if filepath.Separator == '\\' {
		t.Skip("backslash is the separator here")
	}
	dir := t.TempDir()
	for _, base := range []string{`C:\x\y.warc`, "C:", "s3:x"} {
		name := filepath.Join(dir, base)
		w, err := Default.Create(context.Background(), name)
		if err != nil {
			t.Fatalf("Create(%q): %v", name, err)
		}
		io.WriteString(w, "data")
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		r, err := Default.Open(context.Background(), name)
		if err != nil {
			t.Fatalf("Open(%q): %v", name, err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		if string(b) != "data" {
			t.Fatalf("%q read back %q", name, b)
		}
		if _, err := os.Stat(name); err != nil {
			t.Fatal(err)
		}
	}
}
