package e2e

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// emitLine is one --emit jsonl line.
type emitLine struct {
	Input, Output, Status, SHA256, Error string
	Records, Bytes                       int64
}

func emitLines(t *testing.T, out []byte) []emitLine {
	t.Helper()
	var res []emitLine
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l == "" {
			continue
		}
		var r emitLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("--emit line %q: %v", l, err)
		}
		res = append(res, r)
	}
	return res
}

// zipEntries returns the entries of a zip file by name.
func zipEntries(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a zip (%d bytes): %v", len(data), err)
	}
	m := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		m[f.Name] = b
	}
	return m
}

// TestBatchCreate is the shard contract of issue 28 for `waczpack create
// --inputs LIST -o TEMPLATE` on a real S3 server (versitygw, a counting
// proxy in front): the WARC and ARC samples in s3://, a plan for 4
// shards, the shards run in shuffled order, one of them twice at once:
// one WACZ per input, byte for byte the one a local one-process batch run
// writes, and a rerun writes the same bytes; every WACZ is valid
// (waczpack validate) and holds the archive, indexes and pages `waczpack
// create -o OUT INPUT` writes (only datapackage.json's dates differ: a
// batch WACZ is dated from its input); a damaged input gets no WACZ and
// exits 65, or with --on-bad-input record an _errors object and exit 0;
// --emit's records are the records of the WACZ's WARC; a rerun with
// --skip-existing makes no PUT.
func TestBatchCreate(t *testing.T) {
	e := newS3(t, "coll")
	var names []string
	for _, g := range []string{"testdata/warc/*.warc*", "testdata/arc/*.arc*"} {
		m, _ := filepath.Glob(filepath.Join(repoRoot(), g))
		names = append(names, m...)
	}
	if len(names) < 12 {
		t.Fatalf("%d samples", len(names))
	}
	dir := t.TempDir()
	var list, localList strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(n)
		e.sdkPut(t, "coll", "in/"+base, data)
		fmt.Fprintf(&list, "s3://coll/in/%s\n", base)
		os.WriteFile(filepath.Join(dir, base), data, 0o644)
		fmt.Fprintf(&localList, "%s\n", filepath.Join(dir, base))
	}
	e.sdkPut(t, "coll", "lists/in.txt", []byte(list.String()))
	os.WriteFile(filepath.Join(dir, "list.txt"), []byte(localList.String()), 0o644)
	if _, se, code := e.run(t, "waczpack", nil, "plan", "--inputs", "s3://coll/lists/in.txt", "--shard-count", "4", "-o", "s3://coll/lists/plan.jsonl"); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, se)
	}

	task := func(i int, extra ...string) []string {
		return append([]string{"create", "--inputs", "s3://coll/lists/plan.jsonl", "--shard-index", strconv.Itoa(i),
			"-o", "s3://coll/wacz/{name}.wacz", "-q", "--emit", "jsonl"}, extra...)
	}
	results := map[string]emitLine{}
	var mu sync.Mutex
	order := rand.New(rand.NewSource(5)).Perm(4)
	t.Logf("shard order %v; shard %d run twice at once", order, order[1])
	for _, i := range order {
		n := 1
		if i == order[1] {
			n = 2
		}
		var wg sync.WaitGroup
		for k := 0; k < n; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, se, code := e.run(t, "waczpack", nil, task(i)...)
				rs := emitLines(t, out)
				nbad := 0
				mu.Lock()
				for _, r := range rs {
					if r.Status == "bad" {
						nbad++
					}
					results[r.Input] = r
				}
				mu.Unlock()
				if code != 0 && code != 65 || (code == 65) != (nbad > 0) {
					t.Errorf("shard %d: exit %d with %d bad inputs: %s", i, code, nbad, se)
				}
			}()
		}
		wg.Wait()
	}
	if len(results) != len(names) {
		t.Fatalf("%d results for %d inputs", len(results), len(names))
	}

	// the same list, local, in one process
	lout, se, code := run(t, bin(t, "waczpack"), nil, "create", "--inputs", filepath.Join(dir, "list.txt"), "-o", filepath.Join(dir, "out/{name}.wacz"), "-q", "--emit", "jsonl")
	if code != 65 {
		t.Fatalf("local batch run: exit %d, want 65 (damaged samples): %s", code, se)
	}
	local := map[string]emitLine{}
	for _, r := range emitLines(t, lout) {
		local[filepath.Base(r.Input)] = r
	}

	var want []string
	good, bad := 0, 0
	for _, n := range names {
		base := filepath.Base(n)
		r := results["s3://coll/in/"+base]
		got := e.object(t, "coll", "wacz/"+base+".wacz")
		lb, lerr := os.ReadFile(filepath.Join(dir, "out", base+".wacz"))
		single := filepath.Join(dir, "single-"+base+".wacz")
		_, sse, scode := run(t, bin(t, "waczpack"), nil, "create", "-q", "-o", single, filepath.Join(dir, base))
		if r.Status == "bad" {
			bad++
			if got != nil || lerr == nil || local[base].Status != "bad" || scode == 0 {
				t.Errorf("%s: bad in the S3 run, yet a WACZ (%t), local: %s, create exit %d", base, got != nil, local[base].Status, scode)
			}
			continue
		}
		good++
		want = append(want, "wacz/"+base+".wacz", "wacz/_done/"+base+".wacz.json")
		sum := sha256.Sum256(got)
		if r.Status != "done" || r.SHA256 != hex.EncodeToString(sum[:]) || r.Bytes != int64(len(got)) {
			t.Errorf("%s: result %+v, object %d bytes sha256 %x", base, r, len(got), sum)
		}
		if lerr != nil || !bytes.Equal(got, lb) {
			t.Errorf("%s: the S3 shards' WACZ (%d bytes) differs from the local run's (%d bytes, %v)", base, len(got), len(lb), lerr)
		}
		// valid, unless the input's own digests are wrong (create keeps
		// the records as they are)
		_, _, ccode := run(t, bin(t, "waczpack"), nil, "check", n)
		if _, vse, vcode := e.run(t, "waczpack", nil, "validate", "s3://coll/wacz/"+base+".wacz"); (vcode == 0) != (ccode == 0) {
			t.Errorf("%s: waczpack validate: exit %d, check of the input: exit %d: %s", base, vcode, ccode, vse)
		}
		sb, err := os.ReadFile(single)
		if scode != 0 || err != nil {
			t.Errorf("%s: batch WACZ written, but waczpack create exits %d: %s", base, scode, sse)
			continue
		}
		ge, se := zipEntries(t, got), zipEntries(t, sb)
		var gn, sn []string
		for k := range ge {
			gn = append(gn, k)
		}
		for k := range se {
			sn = append(sn, k)
		}
		sort.Strings(gn)
		sort.Strings(sn)
		if strings.Join(gn, " ") != strings.Join(sn, " ") {
			t.Errorf("%s: entries %v, waczpack create writes %v", base, gn, sn)
			continue
		}
		dates := regexp.MustCompile(`"(created|modified)": "[^"]*"`)
		records := 0
		for _, k := range gn {
			g, s := ge[k], se[k]
			switch {
			case k == "datapackage.json":
				if strings.Contains(base, ".arc") {
					continue // the hashes of the entries below
				}
				g, s = dates.ReplaceAll(g, nil), dates.ReplaceAll(s, nil)
			case k == "datapackage-digest.json":
				continue // the digest of datapackage.json
			case strings.HasPrefix(k, "archive/"):
				records += countRecords(t, g)
				if strings.Contains(base, ".arc") {
					// an ARC's records get IDs derived from the input
					// in batch mode, random ones in a single run
					continue
				}
			case strings.HasPrefix(k, "indexes/") || strings.HasPrefix(k, "pages/"):
				if strings.Contains(base, ".arc") {
					continue // offsets and digests of the same records, other IDs
				}
			}
			if !bytes.Equal(g, s) {
				t.Errorf("%s: %s differs from waczpack create's", base, k)
			}
		}
		if int64(records) != r.Records || records == 0 {
			t.Errorf("%s: --emit says %d records, the WACZ's WARC holds %d", base, r.Records, records)
		}
		if dp := string(ge["datapackage.json"]); strings.Contains(dp, `"created": "20`) == false {
			t.Errorf("%s: datapackage.json not dated from the input:\n%s", base, dp)
		}
	}
	sort.Strings(want)
	if got := e.keys(t, "coll", "wacz"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("under wacz/:\n%v\nwant\n%v", got, want)
	}
	if u := e.uploads(t, "coll"); len(u) != 0 {
		t.Errorf("incomplete multipart uploads: %v", u)
	}
	if good < 8 || bad < 3 {
		t.Errorf("%d good and %d bad samples: want at least 8 and 3", good, bad)
	}
	t.Logf("%d inputs: %d WACZs equal to the local run's and valid, %d bad", len(names), good, bad)

	// a rerun: the same bytes
	before := map[string][]byte{}
	for _, k := range want {
		before[k] = e.object(t, "coll", k)
	}
	if _, se, code := run(t, bin(t, "waczpack"), nil, "create", "--inputs", filepath.Join(dir, "list.txt"), "-o", filepath.Join(dir, "again/{name}.wacz"), "-q"); code != 65 {
		t.Fatalf("second local run: exit %d: %s", code, se)
	}
	for _, k := range want {
		if strings.Contains(k, "/_done/") {
			continue
		}
		again, _ := os.ReadFile(filepath.Join(dir, "again", filepath.Base(k)))
		if !bytes.Equal(again, before[k]) {
			t.Errorf("%s: a second run wrote other bytes", k)
		}
	}

	// every shard again with --skip-existing and the bad ones recorded:
	// exit 0, no PUT but the _errors objects and their markers
	e.proxy.Reset()
	skipped := 0
	for i := 0; i < 4; i++ {
		out, se, code := e.run(t, "waczpack", nil, task(i, "--skip-existing", "--on-bad-input", "record")...)
		if code != 0 {
			t.Fatalf("shard %d, --skip-existing --on-bad-input record: exit %d: %s", i, code, se)
		}
		for _, r := range emitLines(t, out) {
			if r.Status == "skipped" {
				skipped++
			}
		}
	}
	n, what := puts(e.proxy)
	if skipped != good || n != 2*bad {
		t.Errorf("rerun: %d skipped (want %d), %d writes (want %d, the _errors objects and markers): %v", skipped, good, n, 2*bad, what)
	}
	if errs := e.keys(t, "coll", "wacz/_errors"); len(errs) != bad {
		t.Errorf("_errors: %v, want %d", errs, bad)
	}
	e.proxy.Reset()
	for i := 0; i < 4; i++ {
		out, se, code := e.run(t, "waczpack", nil, task(i, "--skip-existing", "--on-bad-input", "record")...)
		if code != 0 || strings.Contains(string(out), `"status":"done"`) {
			t.Errorf("shard %d, second rerun: exit %d: %s %s", i, code, out, se)
		}
	}
	if n, what := puts(e.proxy); n != 0 {
		t.Errorf("second rerun: %d writes: %v", n, what)
	}

	// bad usage
	for _, args := range [][]string{
		{"create", "--inputs", filepath.Join(dir, "list.txt"), "-o", filepath.Join(dir, "x.wacz")},
		{"create", "--inputs", filepath.Join(dir, "list.txt"), "-o", filepath.Join(dir, "u/{stem}.wacz"), "--pages", filepath.Join(dir, "list.txt")},
		{"create", "--inputs", filepath.Join(dir, "list.txt"), "-o", filepath.Join(dir, "u/{name}.wacz"), names[0]},
	} {
		if _, se, code := run(t, bin(t, "waczpack"), nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args[3:], code, se)
		}
	}
}

// TestBatchEmitRecords: --emit jsonl's records of `waczpack check` are
// the records `waczpack check FILE` counts ("ok: N records"), and those of
// `zimdump warc` the records of the WARC written.
func TestBatchEmitRecords(t *testing.T) {
	dir := t.TempDir()
	wp := bin(t, "waczpack")
	names, _ := filepath.Glob(filepath.Join(repoRoot(), "testdata/warc/*.warc*"))
	out, se, code := run(t, wp, []byte(strings.Join(names, "\n")), "check", "--inputs", "-", "-o", filepath.Join(dir, "chk/{name}.txt"), "--emit", "jsonl")
	if code != 65 {
		t.Fatalf("check: exit %d: %s", code, se)
	}
	okRE := regexp.MustCompile(`: ok: (\d+) records`)
	checked := 0
	for _, r := range emitLines(t, out) {
		rep, _, _ := run(t, wp, nil, "check", r.Input)
		m := okRE.FindSubmatch(rep)
		if m == nil {
			if r.Status != "bad" {
				t.Errorf("%s: %s, but waczpack check reports %s", r.Input, r.Status, rep)
			}
			continue
		}
		if n, _ := strconv.ParseInt(string(m[1]), 10, 64); n != r.Records || n == 0 {
			t.Errorf("%s: --emit says %d records, waczpack check %d", r.Input, r.Records, n)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d clean inputs compared", checked)
	}

	var zims []string
	filepath.Walk(filepath.Join(repoRoot(), "testdata/zim"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".zim") {
			zims = append(zims, p)
		}
		return nil
	})
	out, se, code = run(t, bin(t, "zimdump"), []byte(strings.Join(zims, "\n")), "warc", "--inputs", "-", "-o", filepath.Join(dir, "zw/{index}-{stem}.warc.gz"), "--emit", "jsonl")
	if code != 0 && code != 65 {
		t.Fatalf("zimdump warc: exit %d: %s", code, se)
	}
	converted := 0
	for _, r := range emitLines(t, out) {
		if r.Status != "done" {
			continue
		}
		b, err := os.ReadFile(r.Output)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(readWARC(t, b)); int64(n) != r.Records || n < 2 {
			t.Errorf("%s: --emit says %d records, the WARC holds %d", filepath.Base(r.Input), r.Records, n)
		}
		converted++
	}
	if converted == 0 {
		t.Error("no ZIM converted")
	}
	t.Logf("records of --emit: %d check reports, %d ZIM→WARC equal to the counts", checked, converted)
}

// countRecords counts the records of a WARC (digests not checked).
func countRecords(t *testing.T, data []byte) int {
	t.Helper()
	r, err := warc.NewReader(bytes.NewReader(data), warc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
}
