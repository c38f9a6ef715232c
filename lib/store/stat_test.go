package store

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestStat: the size and ETag of an object (one HEAD: S3's ETag of a
// single PUT is the MD5 of its bytes, quoted), a local file's size and
// mtime, and ErrNotFound for what is not there.
func TestStat(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.arc")
	os.WriteFile(p, []byte("12345"), 0o644)
	st := New(Options{})
	info, err := st.Stat(ctx, p)
	fi, _ := os.Stat(p)
	if err != nil || info.Size != 5 || info.ETag != "" || !info.ModTime.Equal(fi.ModTime()) {
		t.Errorf("local: %+v %v", info, err)
	}
	if _, err := st.Stat(ctx, filepath.Join(dir, "none")); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing local file: %v", err)
	}
	if _, err := st.Stat(ctx, dir); err == nil {
		t.Error("a folder: no error")
	}
	if _, err := st.Stat(ctx, "-"); err == nil {
		t.Error("-: no error")
	}

	e := setup(t, Options{})
	data := []byte("an object of some bytes")
	e.put(t, "x/obj", data)
	e.proxy.Reset()
	info, err = e.st.Stat(ctx, "s3://bkt/x/obj")
	sum := md5.Sum(data)
	if err != nil || info.Size != int64(len(data)) || info.ETag != `"`+hex.EncodeToString(sum[:])+`"` {
		t.Errorf("s3: %+v %v", info, err)
	}
	if n := e.proxy.Stats().Requests; n != 1 {
		t.Errorf("s3 Stat: %d requests, want 1 (HEAD)", n)
	}
	if _, err := e.st.Stat(ctx, "s3://bkt/x/none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing object: %v", err)
	}
}
