package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStorageExtract: `waczpack extract s3://coll/big.warc.gz OFFSET`
// prints what the local extract prints, reading only the record's member
// by ranged GETs: a few requests and well under the object's size.
func TestStorageExtract(t *testing.T) {
	e := newS3(t, "coll")
	dir := t.TempDir()
	warcPath := filepath.Join(dir, "big.warc.gz")
	gen := exec.Command("go", "run", "./scripts/arcgen", "-format", "warc", "-records", "3000", "-o", warcPath)
	gen.Dir = repoRoot()
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("arcgen: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(warcPath)
	e.put(t, "coll", "big.warc.gz", data)
	idx, se, code := run(t, bin(t, "waczpack"), nil, "index", warcPath)
	if code != 0 {
		t.Fatalf("index: %s", se)
	}
	offs := regexp.MustCompile(`"offset":"(\d+)"`).FindAllStringSubmatch(string(idx), -1)
	if len(offs) < 100 {
		t.Fatalf("%d index lines", len(offs))
	}
	for _, o := range []string{offs[len(offs)/2][1], offs[len(offs)-1][1]} {
		for _, mode := range []string{"", "--headers", "--payload"} {
			args := []string{"extract", warcPath, o}
			if mode != "" {
				args = append(args, mode)
			}
			want, se, code := run(t, bin(t, "waczpack"), nil, args...)
			if code != 0 || len(want) == 0 {
				t.Fatalf("local %v: exit %d: %s", args, code, se)
			}
			e.proxy.Reset()
			args[1] = "s3://coll/big.warc.gz"
			got, se, code := e.run(t, "waczpack", nil, args...)
			s := e.proxy.Stats()
			t.Logf("waczpack %s: %d requests, %d bytes (object %d bytes, output %d bytes)", strings.Join(args, " "), s.Requests, s.Bytes, len(data), len(got))
			if code != 0 || !bytes.Equal(got, want) {
				t.Fatalf("remote %v: exit %d (%s): %d bytes, want %d", args, code, se, len(got), len(want))
			}
			if s.Requests > 3 || s.Bytes > 256<<10 {
				t.Errorf("remote extract took %d requests and %d bytes: want at most 3 and 256 KiB", s.Requests, s.Bytes)
			}
		}
	}
}
