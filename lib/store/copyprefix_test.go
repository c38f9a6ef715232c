package store

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestCreateAfterCopy: an object rewritten as its first 7 MiB (copied by
// the server, versitygw's UploadPartCopy) and a new tail reads back as
// those bytes and the tail, none of the copied bytes having crossed the
// network; a source changed since its ETag was read is not copied and no
// upload is left; a prefix below 5 MiB is refused.
func TestCreateAfterCopy(t *testing.T) {
	e := setup(t, Options{})
	data := random(12<<20, 3)
	e.put(t, "obj", data)
	ctx := context.Background()
	f, err := e.st.OpenAt(ctx, "s3://bkt/obj")
	if err != nil {
		t.Fatal(err)
	}
	etag := f.ETag()
	f.Close()
	if etag == "" {
		t.Fatal("no ETag")
	}
	n := int64(7<<20 + 123)
	tail := bytes.Repeat([]byte("new tail "), 1000)
	e.proxy.Reset()
	w, err := e.st.CreateAfterCopy(ctx, "s3://bkt/obj", "s3://bkt/obj", n, etag)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(tail); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, e.st, "s3://bkt/obj"); !bytes.Equal(got, data) {
		t.Fatal("the object changed before Commit")
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	var copies, uploaded int64
	for _, r := range e.proxy.Log() {
		if r.Method != "PUT" {
			continue
		}
		if r.Header.Get("X-Amz-Copy-Source") != "" {
			copies++
			if r.Header.Get("X-Amz-Copy-Source-Range") != "bytes=0-7340154" || r.Header.Get("X-Amz-Copy-Source-If-Match") != etag {
				t.Errorf("copy request headers %v", r.Header)
			}
		} else if n, _ := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64); n > 0 {
			uploaded += n
		}
	}
	t.Logf("prefix of %d bytes: %d server-side copy request(s), %d bytes uploaded", n, copies, uploaded)
	if copies != 1 || uploaded != int64(len(tail)) {
		t.Errorf("%d copy requests, %d bytes uploaded: want 1 and the tail's %d", copies, uploaded, len(tail))
	}
	want := append(append([]byte(nil), data[:n]...), tail...)
	if got := readAll(t, e.st, "s3://bkt/obj"); !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes, want %d (prefix + tail)", len(got), len(want))
	}

	// the source changed since: refused, nothing left
	if _, err := e.st.CreateAfterCopy(ctx, "s3://bkt/obj", "s3://bkt/obj", n, etag); err == nil {
		t.Error("copy of a changed source accepted")
	} else {
		t.Logf("changed source: %v", err)
	}
	if ups := e.uploads(t); len(ups) != 0 {
		t.Errorf("uploads left: %v", ups)
	}
	if _, err := e.st.CreateAfterCopy(ctx, "s3://bkt/x", "s3://bkt/obj", 1<<20, ""); err == nil || !strings.Contains(err.Error(), "smallest part") {
		t.Errorf("1 MiB prefix: %v", err)
	}
}
