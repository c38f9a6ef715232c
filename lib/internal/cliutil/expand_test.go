package cliutil

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestExpandFolder: a folder argument is the WARC/ARC files in it, in name
// order, without the CDXJ files and NAME.open files of a crawl's folder; a
// folder with none is an error naming it; files named explicitly are kept.
func TestExpandFolder(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.warc.gz", "a.cdxj", "a.warc.gz", "c.warc.gz.open", "d.ARC", "e.warc.zst", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub.warc.gz"), 0o755)
	got, err := ExpandInputs([]string{dir, filepath.Join(dir, "a.cdxj"), "-"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range []string{"a.warc.gz", "b.warc.gz", "d.ARC", "e.warc.zst"} {
		want = append(want, filepath.Join(dir, n))
	}
	want = append(want, filepath.Join(dir, "a.cdxj"), "-")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	empty := t.TempDir()
	if _, err := ExpandInputs([]string{empty}); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty folder: %v", err)
	}
}
