package waczpack

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/warcgen"
	"github.com/arcport/arcport/lib/store/s3test"
)

// collHosts are the hosts of the generated collection: a domain, its
// subdomains (www. is dropped from SURT keys), a sibling and others.
var collHosts = []string{"example.com", "www.example.com", "sub.example.com", "a.b.example.com", "example.org", "iana.org", "foo.net", "examples.com"}

// genCollection writes n small .warc.gz files (gzip per record) into dir:
// file i holds a warcinfo record and four responses for URLs spread over
// collHosts and paths, captured at dates that differ by file and record.
func genCollection(t testing.TB, dir string, n int) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range n {
		var recs [][]byte
		info := []byte("software: warcgen\r\nformat: WARC File Format 1.1\r\n")
		recs = append(recs, warcgen.Record(warcgen.Fields(
			"WARC-Type", "warcinfo",
			"WARC-Record-ID", fmt.Sprintf("<urn:uuid:%08d-0000-4000-8000-000000000000>", i),
			"WARC-Date", "2024-01-01T00:00:00Z",
			"WARC-Filename", fmt.Sprintf("coll-%03d.warc.gz", i),
			"Content-Type", "application/warc-fields"), info))
		for j := range 4 {
			host := collHosts[(i*3+j)%len(collHosts)]
			var u string
			switch j {
			case 0:
				u = "http://" + host + "/"
			case 1:
				u = fmt.Sprintf("https://%s/p/%d/", host, i%13)
			case 2:
				u = fmt.Sprintf("http://%s/p/%d/page-%d.html?b=%d&a=%d", host, i%13, i%7, i, j)
			default:
				u = fmt.Sprintf("http://%s/img/%d.png", host, i%5)
			}
			body := fmt.Appendf(nil, "<html>file %d record %d %s</html>", i, j, u)
			msg, _ := warcgen.HTTP(body, i%9 == 0)
			date := fmt.Sprintf("20%02d-%02d-%02dT%02d:%02d:%02dZ", 10+i%14, 1+(i+j)%12, 1+(i*7+j)%28, (i+j)%24, (i*j)%60, (i+3*j)%60)
			fs := warcgen.Fields(
				"WARC-Type", "response",
				"WARC-Record-ID", fmt.Sprintf("<urn:uuid:%08d-%04d-4000-8000-000000000000>", i, j),
				"WARC-Date", date,
				"WARC-Target-URI", u,
				"Content-Type", "application/http;msgtype=response",
				"WARC-Payload-Digest", warcgen.B32("sha1", "sha1", body))
			recs = append(recs, warcgen.Record(fs, msg))
		}
		name := filepath.Join(dir, fmt.Sprintf("coll-%03d.warc.gz", i))
		if err := os.WriteFile(name, warcgen.Gzip(recs...), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

var (
	collOnce  sync.Once
	collDir   string
	collFiles []string
	collWant  []string // sorted concatenation of warcio.js's per-file CDXJ
	collErr   string
)

// collection returns the generated 200-file collection (made once per test
// binary) and warcio.js's CDXJ of all of it, sorted in byte order.
func collection(t *testing.T) (string, []string, []string) {
	t.Helper()
	node, cli := peertest.WarcioCLI(t)
	collOnce.Do(func() {
		d, err := os.MkdirTemp("", "collidx-")
		if err != nil {
			collErr = err.Error()
			return
		}
		collDir = d
		collFiles = genCollection(t, filepath.Join(d, "warcs"), 200)
		// warcio.js prints the CDXJ of each file given in turn: its
		// output is the concatenation of the per-file indexes
		out, err := exec.Command(node, append([]string{cli, "cdx-index"}, collFiles...)...).Output()
		if err != nil {
			collErr = fmt.Sprintf("warcio cdx-index: %v", err)
			return
		}
		collWant = splitLines(string(out))
		slices.Sort(collWant)
	})
	if collErr != "" {
		t.Fatal(collErr)
	}
	return collDir, collFiles, collWant
}

func TestMain(m *testing.M) {
	code := m.Run()
	if collDir != "" {
		os.RemoveAll(collDir)
	}
	os.Exit(code)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// clusterLines reads every part of a cluster in cluster.loc order, as
// one would with zcat, and checks cluster.idx against the parts: its
// lines name the blocks in order, each block's first line, numbered on
// from 1 across parts.
func clusterLines(t *testing.T, dir string) []string {
	t.Helper()
	loc, err := os.ReadFile(filepath.Join(dir, cdx.ClusterLocName))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile(filepath.Join(dir, cdx.ClusterIdxName))
	if err != nil {
		t.Fatal(err)
	}
	idxLines := splitLines(string(idx))
	var all []string
	n := 0
	for _, l := range splitLines(string(loc)) {
		part, p, _ := strings.Cut(l, "\t")
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < len(data); {
			if n >= len(idxLines) {
				t.Fatalf("%s: data past the blocks of cluster.idx", part)
			}
			f := strings.Split(idxLines[n], "\t")
			if len(f) != 5 || f[1] != part || f[2] != strconv.Itoa(off) || f[4] != strconv.Itoa(n+1) {
				t.Fatalf("cluster.idx line %d = %q: want part %s, offset %d, number %d", n+1, idxLines[n], part, off, n+1)
			}
			length, _ := strconv.Atoi(f[3])
			zr, err := gzip.NewReader(bytes.NewReader(data[off : off+length]))
			if err != nil {
				t.Fatal(err)
			}
			zr.Multistream(false)
			b, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("%s block at %d: %v", part, off, err)
			}
			lines := splitLines(string(b))
			if first := lines[0]; !strings.HasPrefix(first, f[0]+" {") {
				t.Fatalf("cluster.idx line %d key %q, block starts %q", n+1, f[0], first)
			}
			all = append(all, lines...)
			off += length
			n++
		}
	}
	if n != len(idxLines) {
		t.Fatalf("cluster.idx has %d lines for %d blocks", len(idxLines), n)
	}
	return all
}

// grepKeys is what `grep` of a sorted CDXJ file gives for a lookup: the
// lines whose urlkey passes keep.
func grepKeys(lines []string, keep func(key string) bool) []string {
	var out []string
	for _, l := range lines {
		if keep(l[:strings.IndexByte(l, ' ')]) {
			out = append(out, l)
		}
	}
	return out
}

// lookupCases are lookups of the generated collection and the grep that
// must give the same lines.
var lookupCases = []struct {
	url, match string
	keep       func(string) bool
}{
	{"example.com", "domain", func(k string) bool {
		return strings.HasPrefix(k, "com,example)") || strings.HasPrefix(k, "com,example,")
	}},
	{"*.example.com", "", func(k string) bool {
		return strings.HasPrefix(k, "com,example)") || strings.HasPrefix(k, "com,example,")
	}},
	{"http://b.example.com/x", "domain", func(k string) bool {
		return strings.HasPrefix(k, "com,example,b,") || strings.HasPrefix(k, "com,example,b)")
	}},
	{"http://www.example.com/p/3/", "host", func(k string) bool { return strings.HasPrefix(k, "com,example)/") }},
	{"https://sub.example.com/", "host", func(k string) bool { return strings.HasPrefix(k, "com,example,sub)/") }},
	{"http://example.com/p/3/", "prefix", func(k string) bool { return strings.HasPrefix(k, "com,example)/p/3/") }},
	{"iana.org/p/1*", "", func(k string) bool { return strings.HasPrefix(k, "org,iana)/p/1") }},
	{"http://foo.net/", "exact", func(k string) bool { return k == "net,foo)/" }},
	{"https://www.examples.com/img/2.png", "", func(k string) bool { return k == "com,examples)/img/2.png" }},
	{"org", "domain", func(k string) bool { return strings.HasPrefix(k, "org,") }},
	{"http://nowhere.example/", "host", func(string) bool { return false }},
}

// TestIndexCollectionZipNum: 200 generated WARCs indexed with -j 2 into a
// ZipNum cluster of 1, 2 and 4 parts; the cluster's lines are warcio.js's
// per-file CDXJ concatenated and sorted (no field differs: warcio.js and
// arcport both write the file's base name as filename), and lookups give
// what a grep of that sorted file gives, whatever the number of parts.
func TestIndexCollectionZipNum(t *testing.T) {
	dir, _, want := collection(t)
	if len(want) != 800 {
		t.Fatalf("warcio.js gave %d lines, want 800 (4 responses x 200 files)", len(want))
	}
	var lookups map[string]string
	for _, shards := range []int{1, 2, 4} {
		out := filepath.Join(t.TempDir(), "cluster")
		so, se, code := run(t, nil, "index", "-j", "2", "--zipnum", out, "--shards", strconv.Itoa(shards), "--block-lines", "50", filepath.Join(dir, "warcs"))
		if code != 0 || so != "" || se != "" {
			t.Fatalf("%d shards: exit %d %q %q", shards, code, so, se)
		}
		got := clusterLines(t, out)
		if !slices.Equal(got, want) {
			t.Fatalf("%d shards: %d lines, want %d; first difference: %s", shards, len(got), len(want), firstDiff(got, want))
		}
		parts, _ := filepath.Glob(filepath.Join(out, "cdx-*.gz"))
		if len(parts) != shards {
			t.Errorf("%d shards: %d parts", shards, len(parts))
		}
		res := map[string]string{}
		for _, lc := range lookupCases {
			args := []string{"lookup", out, lc.url}
			if lc.match != "" {
				args = append(args, "--match", lc.match)
			}
			so, se, code := run(t, nil, args...)
			if code != 0 || se != "" {
				t.Fatalf("lookup %s %s: exit %d %q", lc.url, lc.match, code, se)
			}
			exp := grepKeys(want, lc.keep)
			if !slices.Equal(splitLines(so), exp) {
				t.Errorf("%d shards: lookup %s %s: %d lines, grep gives %d: %s", shards, lc.url, lc.match, len(splitLines(so)), len(exp), firstDiff(splitLines(so), exp))
			}
			res[lc.url+" "+lc.match] = so
		}
		if lookups == nil {
			lookups = res
		} else if !mapsEqual(lookups, res) {
			t.Errorf("%d shards: lookups differ from 1 shard", shards)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d vs %d lines)", len(got), len(want))
}

// TestLookupClosest: --ts orders an exact lookup's captures by distance
// from the timestamp, closest first, equal distances in index order (pywb's
// closest=); --limit keeps the first N.
func TestLookupClosest(t *testing.T) {
	dir, _, want := collection(t)
	out := filepath.Join(t.TempDir(), "cluster")
	if _, se, code := run(t, nil, "index", "--zipnum", out, "--shards", "2", filepath.Join(dir, "warcs")); code != 0 {
		t.Fatal(se)
	}
	all := grepKeys(want, func(k string) bool { return k == "com,example)/" })
	if len(all) < 10 {
		t.Fatalf("only %d captures of com,example)/", len(all))
	}
	ts := cdx.LineTimestamp([]byte(all[len(all)/2]))
	so, se, code := run(t, nil, "lookup", out, "http://example.com/", "--ts", ts[:8])
	if code != 0 {
		t.Fatal(se)
	}
	got := splitLines(so)
	if len(got) != len(all) || !strings.HasPrefix(cdx.LineTimestamp([]byte(got[0])), ts[:8]) {
		t.Fatalf("closest to %s: %d lines, first %q", ts[:8], len(got), got[0])
	}
	// the order: as pywb's closest sort puts them
	bl := make([][]byte, len(all))
	for i, l := range all {
		bl[i] = []byte(l)
	}
	cdx.SortLinesByClosest(bl, ts[:8])
	for i := range got {
		if got[i] != string(bl[i]) {
			t.Fatalf("line %d: %s, want %s", i, got[i], bl[i])
		}
	}
	so, _, _ = run(t, nil, "lookup", out, "http://example.com/", "--ts", ts, "--limit", "1")
	if l := splitLines(so); len(l) != 1 || cdx.LineTimestamp([]byte(l[0])) != ts {
		t.Errorf("--limit 1 closest to %s: %q", ts, so)
	}
	so, _, _ = run(t, nil, "lookup", out, "http://example.com/", "--limit", "3", "--json")
	if l := splitLines(so); len(l) != 3 || !strings.HasPrefix(l[0], `{"urlkey":"com,example)/","timestamp":"`) {
		t.Errorf("--limit 3 --json: %q", so)
	}
}

// TestIndexCollectionBatch runs the per-file job as a batch engine would:
// step 1 one `index --sort FILE -o FILE.cdxj` per WARC (run twice for some
// files: a retried task writes the same bytes), step 2 one `--shard K` task
// per part, step 3 `--finish`. The cluster equals the one a single
// `index --zipnum` makes from the same runs, byte for byte, and holds
// warcio.js's lines.
func TestIndexCollectionBatch(t *testing.T) {
	dir, files, want := collection(t)
	runs := filepath.Join(t.TempDir(), "runs")
	os.MkdirAll(runs, 0o755)
	for i, f := range files {
		run1 := filepath.Join(runs, filepath.Base(f)+".cdxj")
		if _, se, code := run(t, nil, "index", "--sort", f, "-o", run1); code != 0 {
			t.Fatal(se)
		}
		if i%50 == 0 {
			first, _ := os.ReadFile(run1)
			if _, se, code := run(t, nil, "index", "--sort", f, "-o", run1); code != 0 {
				t.Fatal(se)
			}
			again, _ := os.ReadFile(run1)
			if !bytes.Equal(first, again) || len(first) == 0 {
				t.Fatalf("%s: a retried task wrote other bytes", f)
			}
		}
	}
	const S = 4
	batch := filepath.Join(t.TempDir(), "batch")
	for k := S - 1; k >= 0; k-- { // tasks finish in any order
		if so, se, code := run(t, nil, "index", "--zipnum", batch, "--shards", strconv.Itoa(S), "--shard", strconv.Itoa(k), "--block-lines", "40", runs); code != 0 || so != "" {
			t.Fatalf("shard %d: exit %d %q", k, code, se)
		}
	}
	// the .part of a shard means that shard is whole; finish needs all
	if _, se, code := run(t, nil, "index", "--zipnum", batch, "--shards", strconv.Itoa(S+1), "--finish"); code != 1 || !strings.Contains(se, "part 4 of the cluster is not written") {
		t.Errorf("finish with a part missing: exit %d %q", code, se)
	}
	if _, se, code := run(t, nil, "index", "--zipnum", batch, "--shards", strconv.Itoa(S), "--finish"); code != 0 {
		t.Fatal(se)
	}
	// a retried task writes the same part
	p2, _ := os.ReadFile(filepath.Join(batch, cdx.PartName(2)))
	if _, se, code := run(t, nil, "index", "--zipnum", batch, "--shards", strconv.Itoa(S), "--shard", "2", "--block-lines", "40", runs); code != 0 {
		t.Fatal(se)
	}
	if again, _ := os.ReadFile(filepath.Join(batch, cdx.PartName(2))); !bytes.Equal(p2, again) {
		t.Error("a retried shard task wrote other bytes")
	}
	if got := clusterLines(t, batch); !slices.Equal(got, want) {
		t.Fatalf("batch cluster: %d lines, want %d: %s", len(got), len(want), firstDiff(got, want))
	}
	one := filepath.Join(t.TempDir(), "one")
	if _, se, code := run(t, nil, "index", "-j", "2", "--zipnum", one, "--shards", strconv.Itoa(S), "--block-lines", "40", runs); code != 0 {
		t.Fatal(se)
	}
	for _, name := range []string{cdx.ClusterIdxName, cdx.ClusterLocName, cdx.PartName(0), cdx.PartName(1), cdx.PartName(2), cdx.PartName(3)} {
		a, _ := os.ReadFile(filepath.Join(batch, name))
		b, _ := os.ReadFile(filepath.Join(one, name))
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs between the batch and the one-process cluster (%d vs %d bytes)", name, len(a), len(b))
		}
	}
	// the parts are balanced: none holds more than half the lines
	for k := range S {
		data, _ := os.ReadFile(filepath.Join(batch, cdx.PartName(k)))
		zr, _ := gzip.NewReader(bytes.NewReader(data))
		b, _ := io.ReadAll(zr)
		if n := len(splitLines(string(b))); n == 0 || n > len(want)/2 {
			t.Errorf("part %d holds %d of %d lines", k, n, len(want))
		}
	}
	// the sorted run of the whole collection is the same lines too
	so, se, code := run(t, nil, "index", "--sort", "-j", "2", filepath.Join(dir, "warcs"))
	if code != 0 || !slices.Equal(splitLines(so), want) {
		t.Errorf("index --sort of the folder: exit %d %q, %d lines", code, se, len(splitLines(so)))
	}
	// a run out of order is refused, naming it and the line
	bad := filepath.Join(t.TempDir(), "bad.cdxj")
	os.WriteFile(bad, []byte(want[5]+"\n"+want[1]+"\n"), 0o644)
	out := filepath.Join(t.TempDir(), "x")
	if _, se, code := run(t, nil, "index", "--zipnum", out, bad); code != 1 || se != "waczpack: "+bad+": line 2: not sorted: it sorts before the line above it\n" {
		t.Errorf("unsorted run: exit %d %q", code, se)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failure", out)
	}
}

// TestIndexCollectionBadFile: one damaged WARC among 200 → a one-line
// error naming it, exit 1, and no cluster folder (nor temporary folder)
// left beside.
func TestIndexCollectionBadFile(t *testing.T) {
	dir := t.TempDir()
	files := genCollection(t, filepath.Join(dir, "warcs"), 200)
	b, _ := os.ReadFile(files[137])
	os.WriteFile(files[137], b[:len(b)-40], 0o644) // cut inside the last member
	parent := filepath.Join(dir, "out")
	os.Mkdir(parent, 0o755)
	out := filepath.Join(parent, "cluster")
	so, se, code := run(t, nil, "index", "-j", "2", "--zipnum", out, "--shards", "2", filepath.Join(dir, "warcs"))
	if code != 1 || so != "" || strings.Count(se, "\n") != 1 || !strings.HasPrefix(se, "waczpack: "+files[137]+": ") {
		t.Fatalf("exit %d stdout %q stderr %q", code, so, se)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	// an existing cluster is replaced only by a whole new one
	if _, se, code := run(t, nil, "index", "--zipnum", out, files[0]); code != 0 {
		t.Fatal(se)
	}
	before, _ := os.ReadFile(filepath.Join(out, cdx.ClusterIdxName))
	if _, _, code := run(t, nil, "index", "--zipnum", out, files[0], files[137]); code != 1 {
		t.Fatal("damaged input accepted")
	}
	if after, _ := os.ReadFile(filepath.Join(out, cdx.ClusterIdxName)); !bytes.Equal(before, after) {
		t.Error("the failed run changed the existing cluster")
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
	// a folder that is not a cluster is not replaced
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "keep.txt"), []byte("x"), 0o644)
	if _, se, code := run(t, nil, "index", "--zipnum", other, files[0]); code != 1 || !strings.Contains(se, "holds no cluster.idx") {
		t.Errorf("non-cluster folder: exit %d %q", code, se)
	}
}

// TestLookupPywbCluster reads a cluster laid out as pywb's own sample
// (sample_archive/zipcdx: CDX-11 lines, part "zipnum", a .loc whose first
// path is wrong and is skipped for the next): lookup finds the lines
// pywb's tests find.
func TestLookupPywbCluster(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		"com,example)/ 20140127171200 http://example.com text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1046 334 dupes.warc.gz",
		"org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 2258 334 iana.warc.gz",
		"org,iana)/ 20140127171238 http://iana.org unk 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 343 1858 dupes.warc.gz",
		"org,iana)/domains/arpa 20140126201248 http://www.iana.org/domains/arpa text/html 200 QOFZZRN6JIKAL2JRL6ZC2VVG42SPKGHT - - 2939 759039 iana.warc.gz",
		"org,iana)/domains/example 20140128051539 http://www.iana.org/domains/example text/html 302 JZ622UA23G5ZU6Y3XAKH4LINONUEICEG - - 577 2907 example.warc.gz",
		"org,iana)/time-zones 20140126200737 http://www.iana.org/time-zones text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz",
	}
	var data, idx bytes.Buffer
	for i := 0; i < len(lines); i += 2 {
		zw := gzip.NewWriter(&data)
		off := data.Len()
		zw.Write([]byte(lines[i] + "\n" + lines[i+1] + "\n"))
		zw.Close()
		f := strings.Fields(lines[i])
		fmt.Fprintf(&idx, "%s %s\tzipnum\t%d\t%d\t%d\n", f[0], f[1], off, data.Len()-off, i/2+1)
	}
	os.WriteFile(filepath.Join(dir, "zipnum-sample.cdx.gz"), data.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "zipnum-sample.idx"), idx.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "zipnum-sample.loc"), []byte("zipnum\tx-bad-path-to-ignore-x\tzipnum-sample.cdx.gz\n"), 0o644)
	for _, c := range []struct {
		url, match string
		want       []string
	}{
		{"http://iana.org", "", lines[1:3]},
		{"iana.org/domains/*", "", lines[3:5]},
		{"http://iana.org/domains/", "domain", lines[1:]},
		{"example.com", "host", lines[:1]},
	} {
		args := []string{"lookup", filepath.Join(dir, "zipnum-sample.idx"), c.url}
		if c.match != "" {
			args = append(args, "--match", c.match)
		}
		so, se, code := run(t, nil, args...)
		if code != 0 || !slices.Equal(splitLines(so), c.want) {
			t.Errorf("%s %s: exit %d %q\n%s", c.url, c.match, code, se, so)
		}
	}
}

// TestLookupS3: the cluster written to and read from s3:// on a real
// versitygw: `index --zipnum s3://…/` from an s3:// prefix of WARCs, the
// batch steps over s3:// runs, and lookups that read cluster.idx,
// cluster.loc and only the blocks they need, with the answers of the
// local cluster.
func TestLookupS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "coll")
	srv.Setenv(t, srv.URL)
	cliutil.ResetStore() // another test's server may be the one in use
	t.Cleanup(cliutil.ResetStore)
	local := t.TempDir()
	files := genCollection(t, filepath.Join(srv.Dir, "coll", "warcs"), 40)
	if _, se, code := run(t, nil, "index", "-j", "2", "--zipnum", filepath.Join(local, "c"), "--shards", "3", "--block-lines", "20", "s3://coll/warcs/"); code != 0 {
		t.Fatal(se)
	}
	if so, se, code := run(t, nil, "index", "-j", "2", "--zipnum", "s3://coll/idx/", "--shards", "3", "--block-lines", "20", "s3://coll/warcs/"); code != 0 || so != "" {
		t.Fatalf("exit %d %q", code, se)
	}
	for _, name := range []string{cdx.ClusterIdxName, cdx.ClusterLocName, cdx.PartName(1)} {
		a, _ := os.ReadFile(filepath.Join(local, "c", name))
		b, err := os.ReadFile(filepath.Join(srv.Dir, "coll", "idx", name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: s3 and local clusters differ (%v)", name, err)
		}
	}
	// the batch steps over s3:// runs
	for _, f := range files {
		if _, se, code := run(t, nil, "index", "--sort", "s3://coll/warcs/"+filepath.Base(f), "-o", "s3://coll/runs/"+filepath.Base(f)+".cdxj"); code != 0 {
			t.Fatal(se)
		}
	}
	for k := range 2 {
		if _, se, code := run(t, nil, "index", "--zipnum", "s3://coll/batch/", "--shards", "2", "--shard", strconv.Itoa(k), "s3://coll/runs/"); code != 0 {
			t.Fatal(se)
		}
	}
	if _, se, code := run(t, nil, "index", "--zipnum", "s3://coll/batch/", "--shards", "2", "--finish"); code != 0 {
		t.Fatal(se)
	}
	for _, lc := range lookupCases {
		args := []string{lc.url}
		if lc.match != "" {
			args = append(args, "--match", lc.match)
		}
		want, _, _ := run(t, nil, append([]string{"lookup", filepath.Join(local, "c")}, args...)...)
		for _, idx := range []string{"s3://coll/idx/", "s3://coll/idx", "s3://coll/batch/", "s3://coll/batch/cluster.idx"} {
			got, se, code := run(t, nil, append([]string{"lookup", idx}, args...)...)
			if code != 0 || got != want {
				t.Errorf("lookup %s %s %s: exit %d %q\n%s\nwant\n%s", idx, lc.url, lc.match, code, se, got, want)
			}
		}
	}
	if _, se, code := run(t, nil, "lookup", "s3://coll/nothing/", "example.com"); code != 1 || strings.Count(se, "\n") != 1 {
		t.Errorf("missing cluster: exit %d %q", code, se)
	}
}
