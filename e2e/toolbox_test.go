package e2e

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
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
	var httpReqs, httpBytes atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpReqs.Add(1)
		cw := &countingResponse{ResponseWriter: w, n: &httpBytes}
		http.ServeContent(cw, r, "big.warc.gz", time.Time{}, bytes.NewReader(data))
	}))
	defer web.Close()
	// arc2warc --max-size into s3://: numbered objects, each committed
	if _, se, code := e.run(t, "arc2warc", nil, "--max-size", "10M", "-o", "s3://coll/parts/p.warc.gz", "s3://coll/big.warc.gz"); code != 0 {
		t.Fatalf("arc2warc --max-size to s3: exit %d: %s", code, se)
	}
	var total int
	for i := 0; ; i++ {
		obj := e.object(t, "coll", "parts/p-0000"+itoa(i)+".warc.gz")
		if obj == nil {
			if i < 3 {
				t.Errorf("%d parts in s3://coll/parts/, want 3", i)
			}
			break
		}
		total += len(obj)
		if len(obj) > 10<<20+1<<20 {
			t.Errorf("part %d: %d bytes", i, len(obj))
		}
	}
	t.Logf("arc2warc --max-size 10M to s3://: %d bytes in parts from a %d-byte WARC", total, len(data))
	if u := e.uploads(t, "coll"); len(u) != 0 {
		t.Errorf("incomplete uploads left: %v", u)
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
			if s.Requests > 2 || s.Bytes > 128<<10 {
				t.Errorf("remote extract took %d requests and %d bytes: want at most 2 (HEAD, GET) and 128 KiB", s.Requests, s.Bytes)
			}
			httpReqs.Store(0)
			httpBytes.Store(0)
			args[1] = web.URL + "/big.warc.gz"
			got, se, code = run(t, bin(t, "waczpack"), nil, args...)
			t.Logf("waczpack %s: %d requests, %d bytes", strings.Join(args, " "), httpReqs.Load(), httpBytes.Load())
			if code != 0 || !bytes.Equal(got, want) {
				t.Fatalf("http %v: exit %d (%s): %d bytes, want %d", args, code, se, len(got), len(want))
			}
			if httpReqs.Load() > 2 || httpBytes.Load() > 128<<10 {
				t.Errorf("extract over http took %d requests and %d bytes: want at most 2 and 128 KiB", httpReqs.Load(), httpBytes.Load())
			}
		}
	}
}

// TestMergeReplay: three WACZ (from an ARC, a plain WARC with a chunked
// response, and a WARC made here) merged with `waczpack merge` validate,
// and ReplayWeb.page replays a page of each from the merged WACZ.
func TestMergeReplay(t *testing.T) {
	wzReplayPeers(t)
	dir := t.TempDir()
	third := filepath.Join(dir, "third.warc.gz")
	f, err := os.Create(third)
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f)
	html := "<!doctype html><html><head><title>Merged Third</title></head><body><p>third collection</p></body></html>"
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " + itoa(len(html)) + "\r\n\r\n" + html
	err = w.WriteRecord(&record.Record{
		Header: record.Header{
			{Name: record.FieldType, Value: "response"},
			{Name: record.FieldDate, Value: "2021-05-06T07:08:09Z"},
			{Name: record.FieldTargetURI, Value: "http://third.example/"},
			{Name: record.FieldContentType, Value: "application/http; msgtype=response"},
		},
		Block: strings.NewReader(http),
	})
	if err != nil || w.Close() != nil || f.Close() != nil {
		t.Fatal(err)
	}
	wp := bin(t, "waczpack")
	var parts []string
	for i, in := range []string{sample("example.arc.gz"), filepath.Join(repoRoot(), "testdata/warc/example-iana.org-chunked.warc"), third} {
		out := filepath.Join(dir, "part"+itoa(i)+".wacz")
		if _, se, code := run(t, wp, nil, "create", "-q", "-o", out, in); code != 0 {
			t.Fatalf("create %s: %s", in, se)
		}
		parts = append(parts, out)
	}
	all := filepath.Join(dir, "all.wacz")
	if _, se, code := run(t, wp, nil, append([]string{"merge", "-o", all}, parts...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, se)
	}
	if so, se, code := run(t, wp, nil, "validate", all); code != 0 {
		t.Fatalf("validate: %s%s", so, se)
	}
	for _, c := range []struct{ url, title string }{
		{"http://example.com/", "Example Domain"},
		{"http://www.iana.org/", "Internet Assigned Numbers Authority"},
		{"http://third.example/", "Merged Third"},
	} {
		if got := wzReplayTitle(t, all, c.url); got != c.title {
			t.Errorf("ReplayWeb.page shows %q for %s in the merged WACZ, want %q", got, c.url, c.title)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// countingResponse counts the body bytes a handler writes.
type countingResponse struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countingResponse) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// TestStorageMerge: `waczpack merge -o s3://coll/all.wacz s3://coll/a.wacz
// s3://coll/b.wacz` writes the WACZ a local merge writes (the same
// entries), read in large ranges and uploaded in one pass; `waczpack add`
// works on a WACZ in s3:// too.
func TestStorageMerge(t *testing.T) {
	e := newS3(t, "coll")
	dir := t.TempDir()
	wp := bin(t, "waczpack")
	var locals []string
	for _, f := range []string{"example.warc.gz", "example-resource.warc.gz"} {
		out := filepath.Join(dir, strings.TrimSuffix(f, ".warc.gz")+".wacz")
		if _, se, code := run(t, wp, nil, "create", "-q", "-o", out, filepath.Join(repoRoot(), "testdata/warc", f)); code != 0 {
			t.Fatalf("create: %s", se)
		}
		data, _ := os.ReadFile(out)
		e.put(t, "coll", filepath.Base(out), data)
		locals = append(locals, out)
	}
	e.proxy.Reset()
	if _, se, code := e.run(t, "waczpack", nil, "merge", "-o", "s3://coll/all.wacz", "s3://coll/example.wacz", "s3://coll/example-resource.wacz"); code != 0 {
		t.Fatalf("merge to s3: exit %d: %s", code, se)
	}
	s := e.proxy.Stats()
	t.Logf("waczpack merge s3:// -> s3://: %d requests, %d bytes", s.Requests, s.Bytes)
	all := filepath.Join(dir, "all.wacz")
	os.WriteFile(all, e.object(t, "coll", "all.wacz"), 0o644)
	localAll := filepath.Join(dir, "local-all.wacz")
	if _, se, code := run(t, wp, nil, append([]string{"merge", "-q", "-o", localAll}, locals...)...); code != 0 {
		t.Fatalf("local merge: %s", se)
	}
	if so, se, code := run(t, wp, nil, "validate", all); code != 0 {
		t.Fatalf("validate: %s%s", so, se)
	}
	for _, entry := range []string{"archive/example.warc.gz", "archive/example-resource.warc.gz", "indexes/index.cdx.gz", "indexes/index.idx", "pages/pages.jsonl"} {
		a, err1 := exec.Command("unzip", "-p", all, entry).Output()
		b, err2 := exec.Command("unzip", "-p", localAll, entry).Output()
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs between the merge to s3:// and the local one (%v, %v)", entry, err1, err2)
		}
	}
	if _, se, code := e.run(t, "waczpack", nil, "add", "s3://coll/example.wacz", filepath.Join(repoRoot(), "testdata/warc/example-iana.org-chunked.warc")); code != 0 {
		t.Fatalf("add to s3: exit %d: %s", code, se)
	}
	added := filepath.Join(dir, "added.wacz")
	os.WriteFile(added, e.object(t, "coll", "example.wacz"), 0o644)
	if so, se, code := run(t, wp, nil, "validate", added); code != 0 {
		t.Fatalf("validate after add: %s%s", so, se)
	}
	if got, se, code := run(t, wp, nil, "get", added, "http://www.iana.org/"); code != 0 || len(got) == 0 {
		t.Errorf("get the added page: exit %d: %s", code, se)
	}
	if u := e.uploads(t, "coll"); len(u) != 0 {
		t.Errorf("incomplete uploads left: %v", u)
	}
}
