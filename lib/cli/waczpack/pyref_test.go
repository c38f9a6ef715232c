package waczpack

// Comparisons with the Python reference tools that `make peers` installs in
// scripts/venv (docs/reference-tools.md has the table): warcio 1.8.1 and
// cdxj-indexer 1.5.0 for `index`, warcio for `check`, py-wacz 0.6.0 for
// WACZ files both ways.

import (
	"archive/zip"
	"bytes"
	"crypto/elliptic"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/warc"
)

// pyFixture is one WARC or ARC file the comparisons run on.
type pyFixture struct {
	name string // shown and used as the key of the expectation tables
	path string
}

// pyFixtures lists every WARC and ARC fixture: testdata/arc, testdata/warc,
// testdata/cdx, testdata/tampered, and ../shared/fixtures (arc, warc and
// pywb's sample_archive/warcs) when it is there.
func pyFixtures(t *testing.T) []pyFixture {
	t.Helper()
	testdata := filepath.Dir(filepath.Dir(samples.Path("x.warc")))
	shared := filepath.Join(filepath.Dir(testdata), "..", "shared", "fixtures")
	var out []pyFixture
	add := func(prefix, dir string, globs ...string) {
		for _, g := range globs {
			ms, _ := filepath.Glob(filepath.Join(dir, g))
			for _, m := range ms {
				if strings.HasSuffix(m, ".expected") || strings.HasSuffix(m, ".cjs") || strings.HasSuffix(m, ".py") {
					continue
				}
				out = append(out, pyFixture{prefix + filepath.Base(m), m})
			}
		}
	}
	add("testdata/arc/", filepath.Join(testdata, "arc"), "*.arc*")
	add("testdata/warc/", filepath.Join(testdata, "warc"), "*.warc*")
	add("testdata/cdx/", filepath.Join(testdata, "cdx"), "*.warc*")
	add("testdata/tampered/", filepath.Join(testdata, "tampered"), "*.warc*")
	if _, err := os.Stat(shared); err == nil {
		add("shared/arc/", filepath.Join(shared, "arc"), "*.arc*")
		add("shared/warc/", filepath.Join(shared, "warc"), "*.warc*")
		add("shared/pywb/", filepath.Join(shared, "pywb", "sample_archive", "warcs"), "*")
	} else {
		t.Logf("no %s: comparing on testdata/ only", shared)
	}
	if len(out) < 20 {
		t.Fatalf("only %d fixtures found", len(out))
	}
	return out
}

// runIn runs cmd with args in dir and returns its stdout, stderr and
// whether it exited 0.
func runIn(t *testing.T, dir, cmd string, args ...string) (string, string, bool) {
	t.Helper()
	c := exec.Command(cmd, args...)
	c.Dir = dir
	var so, se bytes.Buffer
	c.Stdout, c.Stderr = &so, &se
	err := c.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s: %v", cmd, err)
	}
	return so.String(), se.String(), err == nil
}

// cdxjIndexerRuns caches cdxj-indexer -p's output per file: two tests
// compare with it, and each run starts a Python.
var cdxjIndexerRuns struct {
	sync.Mutex
	m map[string][3]string
}

// cdxjIndexerRun runs cdxj-indexer -p on path (in its folder, so that the
// filename field is its base name) and returns its stdout, stderr and
// whether it exited 0.
func cdxjIndexerRun(t *testing.T, indexer, path string) (string, string, bool) {
	t.Helper()
	cdxjIndexerRuns.Lock()
	defer cdxjIndexerRuns.Unlock()
	if r, ok := cdxjIndexerRuns.m[path]; ok {
		return r[0], r[1], r[2] == "ok"
	}
	out, se, ok := runIn(t, filepath.Dir(path), indexer, "-p", filepath.Base(path))
	if cdxjIndexerRuns.m == nil {
		cdxjIndexerRuns.m = map[string][3]string{}
	}
	st := ""
	if ok {
		st = "ok"
	}
	cdxjIndexerRuns.m[path] = [3]string{out, se, st}
	return out, se, ok
}

// kv is one field of a CDXJ line's JSON block, in order.
type kv struct{ k, v string }

// cdxjLine is a CDXJ line split into key, timestamp and ordered fields.
type cdxjLine struct {
	key, ts string
	fields  []kv
}

func (l cdxjLine) get(k string) string {
	for _, f := range l.fields {
		if f.k == k {
			return f.v
		}
	}
	return ""
}

func (l *cdxjLine) set(k, v string) {
	for i := range l.fields {
		if l.fields[i].k == k {
			l.fields[i].v = v
		}
	}
}

func (l cdxjLine) String() string {
	var b strings.Builder
	b.WriteString(l.key + " " + l.ts + " {")
	for i, f := range l.fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		v, _ := json.Marshal(f.v)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// parseCDXJLine reads "key ts {json}" keeping the fields' order (the key
// may hold spaces: the JSON block starts at the last " {" before it).
func parseCDXJLine(t *testing.T, s string) cdxjLine {
	t.Helper()
	i := strings.Index(s, " {")
	if i < 0 {
		t.Fatalf("not a CDXJ line: %q", s)
	}
	head := s[:i]
	j := strings.LastIndexByte(head, ' ')
	l := cdxjLine{key: head[:j], ts: head[j+1:]}
	dec := json.NewDecoder(strings.NewReader(s[i+1:]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("bad JSON in %q", s)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatalf("bad JSON in %q: %v", s, err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("bad JSON in %q: %v", s, err)
		}
		l.fields = append(l.fields, kv{k.(string), fmt.Sprint(v)})
	}
	return l
}

func cdxjLines(t *testing.T, out string) []cdxjLine {
	var ls []cdxjLine
	for _, s := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if s != "" {
			ls = append(ls, parseCDXJLine(t, s))
		}
	}
	return ls
}

// emptySHA1 is the base32 SHA-1 of no bytes.
const emptySHA1 = "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"

// cdxjIndexerRules are the known, justified differences between a line of
// `waczpack index` (ours: warcio.js's form, what ReplayWeb.page reads) and
// the line cdxj-indexer 1.5.0 -p writes for the same record (theirs). Each
// rule, when it applies, rewrites theirs toward ours and returns true; a
// difference left after the rules fails the test. Rules not in
// pyIndexUniversal are counted per fixture in pyIndexExpect.
var cdxjIndexerRules = []struct {
	name string
	fn   func(file string, ours cdxjLine, theirs *cdxjLine) bool
}{
	// cdxj-indexer writes WARC-Payload-Digest whole ("sha1:B32"); warcio.js
	// (and so arcport) the part after "algorithm:". pywb reads both.
	{"digest-algorithm-prefix", func(_ string, o cdxjLine, p *cdxjLine) bool {
		d := p.get("digest")
		if _, rest, ok := strings.Cut(d, ":"); ok && rest == o.get("digest") {
			p.set("digest", rest)
			return true
		}
		return false
	}},
	// records without a WARC-Payload-Digest (ARC records, wget's and
	// wpull's metadata and resource records): cdxj-indexer writes the SHA-1
	// of no bytes, whatever the payload (it hashes the payload stream after
	// it was read: a cdxj-indexer bug). warcio.js writes no digest for a
	// WARC record without one; arcport computes the payload's SHA-1 for ARC
	// records (as WARC-Payload-Digest when it converts them).
	{"digest-of-nothing", func(f string, o cdxjLine, p *cdxjLine) bool {
		if p.get("digest") != "sha1:"+emptySHA1 || o.get("digest") == emptySHA1 {
			return false
		}
		if d := o.get("digest"); d != "" {
			p.set("digest", d)
			return true
		}
		var keep []kv
		for _, f := range p.fields {
			if f.k != "digest" {
				keep = append(keep, f)
			}
		}
		p.fields = keep
		return true
	}},
	// Uncompressed ARC: warcio.js counts the "\n" that ends a record in
	// its length, warcio (Python) does not.
	{"arc-plain-length-newline", func(f string, o cdxjLine, p *cdxjLine) bool {
		if strings.HasSuffix(f, ".arc") && p.get("length") != o.get("length") && fmt.Sprint(atoi(p.get("length"))+1) == o.get("length") {
			p.set("length", o.get("length"))
			return true
		}
		return false
	}},
	// resource and metadata records: cdxj-indexer keeps the media type of
	// Content-Type without its parameters; warcio.js the whole value.
	{"resource-mime-parameters", func(_ string, o cdxjLine, p *cdxjLine) bool {
		om, pm := o.get("mime"), p.get("mime")
		if om != pm && strings.Contains(om, ";") && strings.TrimSpace(strings.SplitN(om, ";", 2)[0]) == pm {
			p.set("mime", om)
			return true
		}
		return false
	}},
	// spaces in WARC-Target-URI: cdxj-indexer replaces them by %20 in url
	// (and key); warcio.js keeps the header's value.
	{"url-spaces-escaped", func(_ string, o cdxjLine, p *cdxjLine) bool {
		if ou := o.get("url"); strings.Contains(ou, " ") && strings.ReplaceAll(ou, " ", "%20") == p.get("url") {
			p.set("url", ou)
			return true
		}
		return false
	}},
	// keys of URLs that are not http(s): warcio.js keeps the URL as the
	// key; Python's surt lower-cases it and, for scheme://host/ URLs,
	// reverses the host as for http (metadata://gnu.org/x -> org,gnu)/x).
	{"surt-non-http-url", func(_ string, o cdxjLine, p *cdxjLine) bool {
		u := o.get("url")
		if o.key != p.key && !strings.HasPrefix(u, "http:") && !strings.HasPrefix(u, "https:") && o.key == u && p.key == strings.ToLower(p.key) {
			p.key = o.key
			return true
		}
		return false
	}},
	// Python's surt (IA canonicalisation) strips a path's trailing slash
	// ("/domains/root/db/" -> "/domains/root/db"); warcio.js keeps it. pywb
	// canonicalises its queries the same way, so either index answers
	// lookups made with the same library that wrote it.
	{"surt-trailing-slash", func(_ string, o cdxjLine, p *cdxjLine) bool {
		k, q, _ := strings.Cut(o.key, "?")
		pk, pq, _ := strings.Cut(p.key, "?")
		if o.key != p.key && q == pq && strings.HasSuffix(k, "/") && !strings.HasSuffix(k, ")/") && strings.TrimSuffix(k, "/") == pk {
			p.key = o.key
			return true
		}
		return false
	}},
	// POST/PUT lines: warcio.js adds "method" then "requestBody",
	// cdxj-indexer "requestBody" then "method".
	{"post-field-order", func(_ string, o cdxjLine, p *cdxjLine) bool {
		if len(o.fields) != len(p.fields) {
			return false
		}
		same := true
		for i := range o.fields {
			same = same && o.fields[i].k == p.fields[i].k
		}
		if same {
			return false
		}
		byKey := map[string]string{}
		for _, f := range p.fields {
			byKey[f.k] = f.v
		}
		var re []kv
		for _, f := range o.fields {
			v, ok := byKey[f.k]
			if !ok {
				return false
			}
			re = append(re, kv{f.k, v})
		}
		p.fields = re
		return true
	}},
}

// pyIndexUniversal are the rules that apply to (nearly) every line and are
// not counted per fixture: besides them, every cdxj-indexer line is Python
// json.dumps output (", " and ": " separators, non-ASCII as \u escapes)
// where arcport writes JSON.stringify's compact form.
var pyIndexUniversal = map[string]bool{"digest-algorithm-prefix": true}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// pyIndexOutcome is what is expected of one fixture: "" when both index
// it; otherwise which side refuses it and why, and the rules that fire.
type pyIndexOutcome struct {
	oursErr   string         // substring of waczpack's error; "" when it indexes the file
	theirsErr string         // substring of cdxj-indexer's stderr; "" when it indexes the file
	rules     map[string]int // non-universal rules and how many lines they fire on
	why       string
}

// pyIndexExpect holds every fixture that is not "both index it, lines
// equal up to the universal rules". Files that waczpack refuses are
// damaged or off the spec: waczpack index reads with the Fail policy (a
// WACZ's index must address every record exactly), where cdxj-indexer
// warns and goes on; `arc2warc` or `waczpack check` say what is wrong.
var pyIndexExpect = map[string]pyIndexOutcome{
	"testdata/arc/bad.arc":                              {oursErr: `bad length "-1"`, why: "ARC lengths -1 and \"abc\": warcio reads on by the next header line"},
	"testdata/arc/example-space-in-url.arc":             {oursErr: "URL holds spaces", why: "ARC v1 URL with spaces: the header line's fields cannot be told apart in general; warcio guesses"},
	"testdata/arc/example.arc":                          {rules: map[string]int{"digest-of-nothing": 1, "arc-plain-length-newline": 1}},
	"testdata/arc/example.arc.gz":                       {rules: map[string]int{"digest-of-nothing": 1}},
	"testdata/warc/example-bad-non-chunked.warc.gz":     {oursErr: "gzip member holds more than one record", theirsErr: "non-chunked gzip file detected", why: "one gzip member for the whole file: not addressable by offset; both refuse"},
	"testdata/warc/example-trunc.warc":                  {oursErr: "record not followed by CRLF CRLF", why: "truncated record: warcio warns and indexes on"},
	"testdata/warc/example-wrong-chunks.warc.gz":        {oursErr: "block continues in the next gzip member", theirsErr: "Unknown archive format", why: "a record split over two gzip members: both refuse"},
	"testdata/warc/example-resource.warc.gz":            {rules: map[string]int{"resource-mime-parameters": 1}},
	"testdata/warc/example-space-in-target-uri.warc.gz": {rules: map[string]int{"url-spaces-escaped": 1, "surt-non-http-url": 1, "digest-of-nothing": 1}},
	"testdata/warc/example-wget-bad-target-uri.warc.gz": {rules: map[string]int{"surt-non-http-url": 3, "digest-of-nothing": 3}},
	"testdata/cdx/quirks.warc":                          {oursErr: "missing WARC-Record-ID", theirsErr: "function missing required argument 'month'", why: "hand-made hostile records: both refuse (waczpack at a record without WARC-Record-ID, cdxj-indexer crashes on a WARC-Date of one number)"},
	"testdata/cdx/quirks.warc.gz":                       {oursErr: "missing WARC-Record-ID", theirsErr: "function missing required argument 'month'", why: "as quirks.warc"},
	"testdata/tampered/truncated.warc.gz":               {oursErr: "truncated block", why: "last gzip member cut: warcio indexes what it can"},
	"testdata/tampered/warc-header-byte.warc":           {oursErr: "record not followed by CRLF CRLF", theirsErr: "Unknown archive format", why: "Content-Length off by a digit: both refuse"},
	"testdata/warc/post-test.warc.gz":                   {rules: map[string]int{"post-field-order": 3}},
	"shared/pywb/post-test.warc.gz":                     {rules: map[string]int{"post-field-order": 3}},
	"shared/pywb/bad.arc":                               {oursErr: `bad length "-1"`, why: "as testdata/arc/bad.arc"},
	"shared/pywb/example-extra.warc":                    {oursErr: "record not followed by CRLF CRLF", why: "a record ends with one CRLF, not two: warcio accepts it"},
	"shared/pywb/example-url-agnostic-orig.warc.gz":     {oursErr: "record not followed by CRLF CRLF", why: "gzip members without the CRLF CRLF after the block: warcio accepts them"},
	"shared/pywb/example-url-agnostic-revisit.warc.gz":  {oursErr: "record not followed by CRLF CRLF", why: "as example-url-agnostic-orig"},
	"shared/pywb/example-wget-1-14.warc.gz":             {rules: map[string]int{"surt-non-http-url": 3, "digest-of-nothing": 3}},
	"shared/pywb/example-wpull.warc.gz":                 {rules: map[string]int{"surt-non-http-url": 1, "digest-of-nothing": 1}},
	"shared/pywb/example.arc":                           {rules: map[string]int{"digest-of-nothing": 1, "arc-plain-length-newline": 1}},
	"shared/pywb/example.arc.gz":                        {rules: map[string]int{"digest-of-nothing": 1}},
	"shared/pywb/example.warc":                          {oursErr: "record not followed by CRLF CRLF", why: "a Content-Length one byte short (pywb's sample): warcio warns and indexes on"},
	"shared/pywb/iana.warc.gz":                          {rules: map[string]int{"surt-trailing-slash": 1}},
	"shared/pywb/missing-status-text.warc":              {oursErr: "truncated WARC header", why: "a file cut inside a record's block with no blank line after the WARC header: warcio indexes it"},
}

// TestIndexAgainstCdxjIndexer runs `waczpack index` and cdxj-indexer
// 1.5.0 -p (POST/PUT bodies folded into the key, as warcio.js and waczpack
// do) on every WARC/ARC fixture: the same files indexed, the same number
// of lines in the same order, and each line equal once the known,
// justified differences (cdxjIndexerRules) are applied; pyIndexExpect
// lists every fixture where a rule other than the universal ones fires or
// one side refuses the file, and the test fails when that list is not
// exactly what happens.
func TestIndexAgainstCdxjIndexer(t *testing.T) {
	indexer := peertest.NeedPy(t, "cdxj-indexer")
	fixtures := pyFixtures(t)
	seen := map[string]bool{}
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			want := pyIndexExpect[strings.Replace(fx.name, "shared/arc/", "testdata/arc/", 1)]
			if w, ok := pyIndexExpect[strings.Replace(fx.name, "shared/warc/", "testdata/warc/", 1)]; ok {
				want = w
			}
			seen[fx.name] = true
			ours, oursErr, code := run(t, nil, "index", fx.path)
			theirs, theirsErr, ok := cdxjIndexerRun(t, indexer, fx.path)
			switch {
			case want.oursErr == "" && code != 0:
				t.Fatalf("waczpack index: exit %d: %s", code, oursErr)
			case want.oursErr != "" && (code == 0 || !strings.Contains(oursErr, want.oursErr)):
				t.Fatalf("waczpack index: exit %d %q, want an error with %q", code, oursErr, want.oursErr)
			case want.theirsErr == "" && !ok:
				t.Fatalf("cdxj-indexer fails: %s", lastLines(theirsErr, 3))
			case want.theirsErr != "" && (ok || !strings.Contains(theirsErr, want.theirsErr)):
				t.Fatalf("cdxj-indexer: ok=%v %s, want a failure with %q", ok, lastLines(theirsErr, 3), want.theirsErr)
			}
			if want.oursErr != "" || want.theirsErr != "" {
				t.Logf("waczpack: %s; cdxj-indexer: %s", firstLine(oursErr), lastLines(theirsErr, 1))
				return
			}
			ol, pl := cdxjLines(t, ours), cdxjLines(t, theirs)
			if len(ol) != len(pl) {
				t.Fatalf("%d lines, cdxj-indexer %d", len(ol), len(pl))
			}
			fired := map[string]int{}
			for i := range ol {
				p := pl[i]
				for _, r := range cdxjIndexerRules {
					if r.fn(fx.name, ol[i], &p) && !pyIndexUniversal[r.name] {
						fired[r.name]++
					}
				}
				if o, ps := ol[i].String(), p.String(); o != ps {
					t.Errorf("line %d differs beyond the known differences:\n waczpack:     %.400s\n cdxj-indexer: %.400s", i+1, o, ps)
				}
			}
			if fmt.Sprint(fired) != fmt.Sprint(want.rules) && !(len(fired) == 0 && len(want.rules) == 0) {
				t.Errorf("differences %v, want %v", fired, want.rules)
			}
			t.Logf("%d lines equal (%v)", len(ol), fired)
		})
	}
	for name := range pyIndexExpect {
		if len(seen) == len(fixtures) && !seen[name] {
			t.Errorf("pyIndexExpect names %s, which is not a fixture", name)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// TestIndexAgainstWarcio checks the records waczpack index addresses
// against `warcio index` (warcio 1.8.1, which prints JSON lines of chosen
// WARC header fields rather than CDXJ): for every fixture both read, each
// CDXJ line's offset is a record's offset in warcio's listing, with the
// same length (up to the ARC newline, as for cdxj-indexer), the same
// WARC-Target-URI, WARC-Date (as the 14-digit time-stamp) and HTTP status,
// and a type that is indexed (not warcinfo or request).
func TestIndexAgainstWarcio(t *testing.T) {
	warcio := peertest.NeedPy(t, "warcio")
	for _, fx := range pyFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			ours, _, code := run(t, nil, "index", fx.path)
			if code != 0 {
				t.Skip("waczpack refuses the file (TestIndexAgainstCdxjIndexer lists why)")
			}
			out, se, ok := runIn(t, filepath.Dir(fx.path), warcio, "index", "-f", "offset,length,warc-type,warc-target-uri,warc-date,http:status", filepath.Base(fx.path))
			if !ok {
				t.Fatalf("warcio index fails where waczpack indexes: %s", lastLines(se, 2))
			}
			recs := map[string]map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var m map[string]string
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("warcio index line %q: %v", l, err)
				}
				recs[m["offset"]] = m
			}
			lines := cdxjLines(t, ours)
			for _, l := range lines {
				r, ok := recs[l.get("offset")]
				if !ok {
					t.Errorf("offset %s: no record there in warcio's listing", l.get("offset"))
					continue
				}
				length := r["length"]
				if strings.HasSuffix(fx.path, ".arc") {
					length = fmt.Sprint(atoi(length) + 1)
				}
				ts := strings.Map(func(c rune) rune {
					if c >= '0' && c <= '9' {
						return c
					}
					return -1
				}, r["warc-date"])
				switch {
				case length != l.get("length"):
					t.Errorf("offset %s: length %s, warcio %s", l.get("offset"), l.get("length"), r["length"])
				case strings.Trim(r["warc-target-uri"], "<>") != strings.ReplaceAll(l.get("url"), " ", "%20"):
					// warcio replaces spaces in WARC-Target-URI by %20
					t.Errorf("offset %s: url %q, warcio %q", l.get("offset"), l.get("url"), r["warc-target-uri"])
				case !strings.HasPrefix(ts, l.ts):
					t.Errorf("offset %s: time-stamp %s, warcio's WARC-Date %s", l.get("offset"), l.ts, r["warc-date"])
				case r["http:status"] != l.get("status"):
					t.Errorf("offset %s: status %q, warcio %q", l.get("offset"), l.get("status"), r["http:status"])
				case r["warc-type"] == "warcinfo" || r["warc-type"] == "request":
					t.Errorf("offset %s: a %s record indexed", l.get("offset"), r["warc-type"])
				}
			}
			var types []string
			for _, r := range recs {
				types = append(types, r["warc-type"])
			}
			sort.Strings(types)
			t.Logf("%d lines on %d records (%s)", len(lines), len(recs), strings.Join(types, " "))
		})
	}
}

// TestIndexCdxjIndexerFlag: `waczpack index --cdxj-indexer` prints, byte
// for byte, what cdxj-indexer 1.5.0 -p prints, on every fixture waczpack
// indexes (ARC, plain and gzip WARC, stdin); it refuses to combine with
// --sort, --zipnum and --cdx11.
func TestIndexCdxjIndexerFlag(t *testing.T) {
	indexer := peertest.NeedPy(t, "cdxj-indexer")
	same, lines := 0, 0
	for _, fx := range pyFixtures(t) {
		if _, _, code := run(t, nil, "index", fx.path); code != 0 {
			continue // refused: TestIndexAgainstCdxjIndexer lists why
		}
		ours, se, code := run(t, nil, "index", "--cdxj-indexer", fx.path)
		if code != 0 {
			t.Errorf("%s: index --cdxj-indexer: exit %d: %s", fx.name, code, se)
			continue
		}
		theirs, tse, ok := cdxjIndexerRun(t, indexer, fx.path)
		if !ok {
			t.Fatalf("%s: cdxj-indexer: %s", fx.name, lastLines(tse, 2))
		}
		if ours != theirs {
			ol, tl := strings.Split(ours, "\n"), strings.Split(theirs, "\n")
			for i := range min(len(ol), len(tl)) {
				if ol[i] != tl[i] {
					t.Errorf("%s: line %d:\n waczpack:     %.400s\n cdxj-indexer: %.400s", fx.name, i+1, ol[i], tl[i])
					break
				}
			}
			if len(ol) != len(tl) {
				t.Errorf("%s: %d lines, cdxj-indexer %d", fx.name, len(ol)-1, len(tl)-1)
			}
			continue
		}
		same++
		lines += strings.Count(ours, "\n")
	}
	// from a pipe (cdxj-indexer reads files only): its lines for the file,
	// with the input named "-"
	arcPath := samples.Path("example.arc")
	theirs, _, _ := runIn(t, filepath.Dir(arcPath), indexer, "-p", filepath.Base(arcPath))
	ours, se, code := run(t, mustRead(t, "example.arc"), "index", "--cdxj-indexer", "-")
	if want := strings.Replace(theirs, `"filename": "example.arc"`, `"filename": "-"`, 1); code != 0 || ours != want {
		t.Errorf("plain ARC from stdin: exit %d %s\n%q\nwant %q", code, se, ours, want)
	}
	for _, f := range []string{"--sort", "--cdx11", "--zipnum=" + t.TempDir()} {
		if _, se, code := run(t, nil, "index", "--cdxj-indexer", f, samples.Path("example.warc.gz")); code != 2 || !strings.Contains(se, "does not combine") {
			t.Errorf("index --cdxj-indexer %s: exit %d %q, want 2", f, code, se)
		}
	}
	t.Logf("%d files, %d lines: byte for byte the same", same, lines)
	if same < 30 {
		t.Errorf("only %d files compared", same)
	}
}

// checkResult is a checker's verdict on a file and the digest mismatches
// it reports, as "OFFSET block|payload VALUE" (VALUE: the header's digest).
type checkResult struct {
	flagged bool
	digests []string
}

var (
	warcioRecordRE  = regexp.MustCompile(`^\s+offset (\d+) WARC-Record-ID`)
	warcioFailedRE  = regexp.MustCompile(`^\s+(block|payload) digest failed:? (\S+)`)
	oursMismatchRE  = regexp.MustCompile(`record at offset (\d+): WARC-(Block|Payload)-Digest mismatch for .*: header (\S+),`)
	oursBadDigestRE = regexp.MustCompile(`record at offset (\d+): bad WARC-(Block|Payload)-Digest "([^"]+)"`)
)

func warcioCheck(t *testing.T, warcio, path string) checkResult {
	out, se, ok := runIn(t, filepath.Dir(path), warcio, "check", "-v", filepath.Base(path))
	r := checkResult{flagged: !ok}
	off := ""
	for _, l := range strings.Split(out+se, "\n") {
		if m := warcioRecordRE.FindStringSubmatch(l); m != nil {
			off = m[1]
		} else if m := warcioFailedRE.FindStringSubmatch(l); m != nil {
			r.digests = append(r.digests, off+" "+m[1]+" "+m[2])
		}
	}
	sort.Strings(r.digests)
	return r
}

func oursCheck(t *testing.T, path string) checkResult {
	out, se, code := run(t, nil, "check", path)
	r := checkResult{flagged: code != 0}
	for _, l := range strings.Split(out+se, "\n") {
		m := oursMismatchRE.FindStringSubmatch(l)
		if m == nil {
			m = oursBadDigestRE.FindStringSubmatch(l)
		}
		if m != nil {
			r.digests = append(r.digests, m[1]+" "+strings.ToLower(m[2])+" "+m[3])
		}
	}
	sort.Strings(r.digests)
	return r
}

// pyCheckExpect lists every file where waczpack check and warcio check
// 1.8.1 do not flag the same files with the same digest mismatches (same
// record offset, block or payload, same header value): onlyOurs says that
// waczpack flags a file warcio passes, oursExtra the digest mismatches only
// waczpack names. Everywhere else they agree.
var pyCheckExpect = map[string]struct {
	onlyOurs  bool
	oursExtra []string
	why       string
}{
	"testdata/arc/bad.arc":                             {onlyOurs: true, why: `ARC lengths -1 and "abc": warcio check skips ARC files (it checks WARC digests only)`},
	"testdata/arc/example-space-in-url.arc":            {onlyOurs: true, why: "an ARC v1 URL with spaces: warcio check skips ARC files"},
	"testdata/tampered/truncated.warc.gz":              {onlyOurs: true, why: "last record cut 30 bytes short of its Content-Length: warcio says \"digest present but not checked\" and exits 0"},
	"shared/pywb/bad.arc":                              {onlyOurs: true, why: "as testdata/arc/bad.arc"},
	"shared/pywb/example.warc":                         {onlyOurs: true, why: "a Content-Length one byte short: warcio warns on stderr (\"Record not followed by newline\") and exits 0"},
	"shared/pywb/example-url-agnostic-orig.warc.gz":    {onlyOurs: true, why: "gzip members without the CRLF CRLF after the block: warcio accepts them silently"},
	"shared/pywb/example-url-agnostic-revisit.warc.gz": {onlyOurs: true, why: "as example-url-agnostic-orig"},
	"shared/pywb/missing-status-text.warc":             {onlyOurs: true, why: "no blank line after the last WARC header (the file ends there): warcio reads an empty block"},
	"testdata/cdx/quirks.warc": {oursExtra: []string{"31816 payload sha1:ONE:TWO", "32217 payload nocolon"},
		why: `hand-made records: warcio check crashes (binascii.Error: Incorrect padding) on the payload digest "sha1:ONE:TWO" and stops; waczpack names it and the next malformed one ("nocolon"); the 34 mismatches before are the same`},
	"testdata/cdx/quirks.warc.gz": {oursExtra: []string{"15243 payload sha1:ONE:TWO", "15613 payload nocolon"},
		why: "as quirks.warc"},
	"testdata/tampered/flipped-stored-byte.wacz!archive/good.warc.gz": {onlyOurs: true,
		why: `a byte flipped inside the first gzip member (its CRC fails): warcio check reads "WARC-Record-ID None", "no digest to check" and exits 0`},
	"testdata/warc/example-bad-non-chunked.warc.gz": {oursExtra: []string{"0 block sha1:DVRKRZEWKT4QEWGQOSFOA5KY5VDIWJLW"},
		why: "one gzip member for the whole file: warcio stops at it before checking a digest; waczpack reports it and reads on"},
	"testdata/warc/example-wrong-chunks.warc.gz": {oursExtra: []string{"0 block sha1:SDZIDCNQKX2AQDX3LC6EE2YTIHVLAXUK"},
		why: "a record split over two gzip members: warcio stops (\"Invalid WARC record\"); waczpack reports it and checks the block it has"},
}

// TestCheckAgainstWarcio runs `waczpack check` and `warcio check -v`
// (warcio 1.8.1) on every WARC/ARC fixture and on the WARCs inside every
// WACZ of testdata/tampered: the same files flagged and the same digest
// mismatches named (record offset, block or payload digest, the header's
// value), but for the differences pyCheckExpect lists.
func TestCheckAgainstWarcio(t *testing.T) {
	warcio := peertest.NeedPy(t, "warcio")
	fixtures := pyFixtures(t)
	// the WARCs stored in the tampered WACZ files
	tampered := filepath.Join(filepath.Dir(filepath.Dir(samples.Path("x.warc"))), "tampered")
	waczs, _ := filepath.Glob(filepath.Join(tampered, "*.wacz"))
	tmp := t.TempDir()
	for _, w := range waczs {
		zr, err := zip.OpenReader(w)
		if err != nil {
			t.Logf("%s: %v: no WARC to compare (waczpack validate's own test covers it)", filepath.Base(w), err)
			continue
		}
		for _, f := range zr.File {
			if !strings.HasPrefix(f.Name, "archive/") {
				continue
			}
			if f.Method != zip.Store {
				t.Fatalf("%s: %s is not stored", w, f.Name)
			}
			// raw: the zip CRC of a damaged WARC must not stop the read
			r, err := f.OpenRaw()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("%s: %s: %v", w, f.Name, err)
			}
			dir := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(w), ".wacz"))
			os.MkdirAll(dir, 0o755)
			p := filepath.Join(dir, filepath.Base(f.Name))
			os.WriteFile(p, b, 0o644)
			fixtures = append(fixtures, pyFixture{"testdata/tampered/" + filepath.Base(w) + "!" + f.Name, p})
		}
		zr.Close()
	}
	agree := 0
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			key := strings.NewReplacer("shared/arc/", "testdata/arc/", "shared/warc/", "testdata/warc/").Replace(fx.name)
			want := pyCheckExpect[key]
			w, o := warcioCheck(t, warcio, fx.path), oursCheck(t, fx.path)
			wantFlag := w.flagged || want.onlyOurs
			if o.flagged != wantFlag {
				t.Errorf("waczpack check flagged=%v, warcio check flagged=%v (expected difference: %v)", o.flagged, w.flagged, want.onlyOurs)
			}
			if want.onlyOurs && w.flagged {
				t.Errorf("warcio now flags the file too: drop it from pyCheckExpect")
			}
			wd := append(append([]string{}, w.digests...), want.oursExtra...)
			sort.Strings(wd)
			if fmt.Sprint(o.digests) != fmt.Sprint(wd) {
				t.Errorf("digest mismatches:\n waczpack: %q\n warcio:   %q (+ expected %q)", o.digests, w.digests, want.oursExtra)
			}
			if want.why == "" {
				agree++
			}
			t.Logf("flagged=%v, %d digest mismatches %q", o.flagged, len(o.digests), o.digests)
		})
	}
	t.Logf("%d of %d files: same verdict and mismatches", agree, len(fixtures))
}

// pyValidate runs py-wacz's `wacz validate -f` on a WACZ.
func pyValidate(t *testing.T, wacz, path string) (string, bool) {
	t.Helper()
	out, se, ok := runIn(t, filepath.Dir(path), wacz, "validate", "-f", path)
	return strings.TrimSpace(out + se), ok
}

// TestPyWACZValidatesOurs has py-wacz 0.6.0 `wacz validate` check the WACZ
// files waczpack writes: create (WARCs, an ARC, a gzip-less WARC), create
// from a pipe, create --split, add, merge, and create --sign-key. py-wacz
// must accept every one of them (frictionless schema, every resource hash,
// datapackage-digest.json, the signature's created time).
//
// With --draft-files waczpack also writes the seed draft's webarchive.yaml
// and pages.csv at the zip's root, which py-wacz refuses for a bug of its
// own: its check_file_paths and check_file_hashes name each extracted file
// by its last two path components, so a root file other than
// datapackage.json and datapackage-digest.json comes out as
// "tmpXXXX/webarchive.yaml", "not listed in the datapackage". The test
// asserts that this is then the only failure.
func TestPyWACZValidatesOurs(t *testing.T) {
	wacz := peertest.NeedPy(t, "wacz")
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	warcs := []string{samples.Path("example.warc.gz"), samples.Path("example-resource.warc.gz"), samples.Path("post-test.warc.gz"), samples.Path("example.arc.gz"), samples.Path("example-iana.org-chunked.warc")}
	mk := func(args ...string) {
		t.Helper()
		if _, se, code := run(t, nil, args...); code != 0 {
			t.Fatalf("waczpack %s: exit %d: %s", strings.Join(args, " "), code, se)
		}
	}
	mk(append([]string{"create", "-q", "-o", p("create.wacz"), "--title", "arcport vs py-wacz", "--url", "http://example.com/"}, warcs...)...)
	if _, se, code := run(t, mustRead(t, "example.warc.gz"), "create", "-q", "-o", p("pipe.wacz")); code != 0 {
		t.Fatalf("create from a pipe: exit %d: %s", code, se)
	}
	mk(append([]string{"create", "-q", "--split", "2K", "-o", p("split.wacz")}, warcs...)...)
	mk("create", "-q", "-o", p("add.wacz"), warcs[0])
	mk("add", p("add.wacz"), warcs[1], warcs[4])
	mk("merge", "-o", p("merge.wacz"), p("create.wacz"), p("pipe.wacz"), p("add.wacz"))
	mk("create", "-q", "-o", p("signed.wacz"), "--sign-key", writeKey(t, elliptic.P384()), warcs[0], warcs[2])
	mk(append([]string{"create", "-q", "--draft-files", "-o", p("draft.wacz")}, warcs...)...)

	for _, name := range []string{"create", "pipe", "split", "add", "merge", "signed", "draft"} {
		t.Run(name, func(t *testing.T) {
			f := p(name + ".wacz")
			if so, se, code := run(t, nil, "validate", f); code != 0 {
				t.Fatalf("waczpack validate: exit %d: %s%s", code, so, se)
			}
			out, ok := pyValidate(t, wacz, f)
			if name == "draft" {
				if ok || !regexp.MustCompile(`file [^/\s]+/(webarchive\.yaml|pages\.csv) is not listed in the datapackage\nValidation failed`).MatchString(out) {
					t.Fatalf("wacz validate of a --draft-files WACZ: ok=%v, want only its root-file failure:\n%s", ok, out)
				}
				t.Logf("py-wacz on --draft-files: %s", strings.ReplaceAll(out, "\n", " | "))
				return
			}
			if !ok || !strings.Contains(out, "Validation succeeded, the passed WACZ is valid") {
				t.Fatalf("wacz validate: ok=%v\n%s", ok, out)
			}
			if name == "signed" && !strings.Contains(out, "Has signature") {
				t.Errorf("wacz validate did not see the signature:\n%s", out)
			}
			t.Logf("py-wacz: %s", strings.ReplaceAll(out, "\n", " | "))
		})
	}
}

// waczPages reads pages/pages.jsonl of a WACZ as "URL TS" -> title ("" when
// the entry has no pages list).
func waczPages(t *testing.T, path string) (map[string]string, bool) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open("pages/pages.jsonl")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	pages := map[string]string{}
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: pages.jsonl line %d: %v", path, i+1, err)
		}
		if i == 0 {
			continue // header
		}
		title, _ := m["title"].(string)
		pages[fmt.Sprint(m["url"], " ", m["ts"])] = title
	}
	return pages, true
}

// pyCreateCase is one set of inputs packed by both `wacz create -d` and
// `waczpack create`, with what is expected of the comparison.
type pyCreateCase struct {
	name     string
	inputs   []string
	ourErr   string   // what waczpack validate says of py-wacz's WACZ ("" : valid)
	onlyPy   []string // "URL TS" pages py-wacz lists and waczpack does not
	onlyOurs []string // and the other way
	why      string
	titled   bool // every page waczpack lists has a <title>
}

// TestOursValidatesPyWACZ packs the same WARCs with py-wacz 0.6.0 `wacz
// create -d` (page detection) and `waczpack create`, has `waczpack
// validate` check py-wacz's WACZ and compares the two page lists.
//
// waczpack validate accepts py-wacz's WACZ but where py-wacz writes one
// that WACZ 1.1.1 does not allow: without pages/pages.jsonl when it
// detects no page, and with an ARC file in archive/ (waczpack create
// converts ARC records to WARC). The page lists differ by design: py-wacz
// -d lists every capture time of an HTML page (revisits too) with the URL
// as its title (titles only with -t), and, unless the WARC's warcinfo is a
// Webrecorder recording, only pages that another record names as its
// Referer; waczpack lists a URL once, at its first HTML capture, titled
// from <title>. So for every case: the same URLs but where listed, and
// every waczpack page is one of py-wacz's capture times or a listed
// difference. On pywb's iana.warc.gz, whose responses say
// "Transfer-Encoding: chunked" over bodies that are not chunked, every
// waczpack page has its title: the bodies are read as they are, as warcio
// reads them (TestPayloadAgainstWarcio).
func TestOursValidatesPyWACZ(t *testing.T) {
	wacz := peertest.NeedPy(t, "wacz")
	testdata := filepath.Dir(filepath.Dir(samples.Path("x.warc")))
	pywb := filepath.Join(filepath.Dir(testdata), "..", "shared", "fixtures", "pywb", "sample_archive", "warcs")
	cases := []pyCreateCase{
		{name: "example", inputs: []string{samples.Path("example.warc.gz")},
			onlyPy: []string{"http://example.com/ 2017-03-06T04:03:48Z"}, why: "py-wacz lists the revisit's capture time too"},
		{name: "resource", inputs: []string{samples.Path("example-resource.warc.gz")}},
		{name: "several", inputs: []string{samples.Path("example.warc.gz"), samples.Path("example-iana.org-chunked.warc"), samples.Path("post-test.warc.gz")},
			onlyPy: []string{"http://example.com/ 2017-03-06T04:03:48Z"}, why: "as example"},
		{name: "no-pages", inputs: []string{filepath.Join(pywb, "httpbin-resource.warc.gz")}, ourErr: "pages/pages.jsonl: missing (WACZ 1.1.1 requires it)",
			why: "no HTML page: py-wacz writes no pages/pages.jsonl"},
		{name: "arc", inputs: []string{samples.Path("example.arc.gz")}, ourErr: "archive/example.arc.gz: not a .warc or .warc.gz file",
			onlyOurs: []string{"http://example.com/ 2014-02-16T05:02:21Z"},
			why:      "py-wacz stores the ARC file as it is, and detects no page in ARC records (so writes no pages.jsonl)"},
		{name: "iana", inputs: []string{filepath.Join(pywb, "iana.warc.gz")}, titled: true},
		{name: "dupes", inputs: []string{filepath.Join(pywb, "dupes.warc.gz")},
			onlyPy:   []string{"http://www.iana.org/ 2014-01-27T17:12:38Z"},
			onlyOurs: []string{"http://example.com 2014-01-27T17:12:00Z"},
			why:      "py-wacz: no record names http://example.com as Referer, so it is dropped; www.iana.org/ is a revisit of a capture not in the file, which waczpack does not list (no HTML to read a title from or to tell a page by)"},
		{name: "example2", inputs: []string{filepath.Join(pywb, "example2.warc.gz")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, in := range c.inputs {
				if _, err := os.Stat(in); err != nil {
					t.Skipf("no %s", in)
				}
			}
			dir := t.TempDir()
			py, ours := filepath.Join(dir, "py.wacz"), filepath.Join(dir, "ours.wacz")
			if out, se, ok := runIn(t, dir, wacz, append([]string{"create", "-d", "-o", py}, c.inputs...)...); !ok {
				t.Fatalf("wacz create: %s%s", out, se)
			}
			so, se, code := run(t, nil, "validate", py)
			switch {
			case c.ourErr == "" && code != 0:
				t.Errorf("waczpack validate of py-wacz's WACZ: exit %d: %s%s", code, so, se)
			case c.ourErr != "" && (code == 0 || !strings.Contains(so+se, c.ourErr)):
				t.Errorf("waczpack validate of py-wacz's WACZ: exit %d %q, want an error with %q", code, so+se, c.ourErr)
			}
			if _, se, code := run(t, nil, append([]string{"create", "-q", "-o", ours}, c.inputs...)...); code != 0 {
				t.Fatalf("waczpack create: %s", se)
			}
			pp, _ := waczPages(t, py)
			op, _ := waczPages(t, ours)
			var onlyPy, onlyOurs []string
			for k := range pp {
				if _, ok := op[k]; !ok {
					onlyPy = append(onlyPy, k)
				}
			}
			for k := range op {
				if _, ok := pp[k]; !ok {
					onlyOurs = append(onlyOurs, k)
				}
			}
			sort.Strings(onlyPy)
			sort.Strings(onlyOurs)
			if fmt.Sprint(onlyPy) != fmt.Sprint(c.onlyPy) || fmt.Sprint(onlyOurs) != fmt.Sprint(c.onlyOurs) {
				t.Errorf("pages only py-wacz lists: %q (want %q)\npages only waczpack lists: %q (want %q)", onlyPy, c.onlyPy, onlyOurs, c.onlyOurs)
			}
			if c.titled {
				for k, title := range op {
					if title == "" {
						t.Errorf("waczpack page %s has no title", k)
					}
				}
			}
			var titles []string
			for k, title := range op {
				if pt, ok := pp[k]; ok && pt != title {
					titles = append(titles, fmt.Sprintf("%s: %q / py-wacz %q", k, title, pt))
				}
			}
			sort.Strings(titles)
			t.Logf("%d pages (py-wacz %d); titles waczpack/py-wacz: %s", len(op), len(pp), strings.Join(titles, "; "))
		})
	}
}

// warcioPayloads is a Python script printing, for every response and
// resource record of each file, "URI DATE SHA1" of what warcio's
// content_stream() reads (the payload with transfer and content codings
// undone), or "error NAME".
const warcioPayloads = `
import sys, hashlib
from warcio.archiveiterator import ArchiveIterator
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type not in ('response', 'resource'):
                continue
            try:
                h = hashlib.sha1(rec.content_stream().read()).hexdigest()
            except Exception as e:
                h = 'error ' + type(e).__name__
            print(rec.rec_headers.get_header('WARC-Target-URI'), rec.rec_headers.get_header('WARC-Date'), h)
`

// TestPayloadAgainstWarcio reads the payload of every response and
// resource record as `waczpack get`, page detection and `zimdump create`
// read it (wacz.Payload, codings undone) and compares it with warcio
// 1.8.1's content_stream(). pywb's iana.warc.gz is the case in point: its
// responses say "Transfer-Encoding: chunked" over bodies that are not
// chunked, which warcio (and arcport) read as they are; the testdata WARC
// example-iana.org-chunked.warc is really chunked.
func TestPayloadAgainstWarcio(t *testing.T) {
	warcio := peertest.NeedPy(t, "warcio")
	python := filepath.Join(filepath.Dir(warcio), "python")
	testdata := filepath.Dir(filepath.Dir(samples.Path("x.warc")))
	pywb := filepath.Join(filepath.Dir(testdata), "..", "shared", "fixtures", "pywb", "sample_archive", "warcs")
	files := []string{
		filepath.Join(pywb, "iana.warc.gz"), filepath.Join(pywb, "dupes.warc.gz"), filepath.Join(pywb, "example2.warc.gz"),
		filepath.Join(pywb, "httpbin-resource.warc.gz"), filepath.Join(pywb, "example-wget-1-14.warc.gz"), filepath.Join(pywb, "example-wpull.warc.gz"),
		samples.Path("example.warc.gz"), samples.Path("example-iana.org-chunked.warc"), samples.Path("post-test.warc.gz"), samples.Path("example-resource.warc.gz"),
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("no %s", f)
		}
	}
	script := filepath.Join(t.TempDir(), "payloads.py")
	os.WriteFile(script, []byte(warcioPayloads), 0o644)
	total, nonEmpty := 0, 0
	for _, path := range files {
		so, se, ok := runIn(t, t.TempDir(), python, append([]string{script}, path)...)
		if !ok {
			t.Fatalf("warcio on %s: %s", path, se)
		}
		theirs := strings.Split(strings.TrimSpace(so), "\n")
		var ours []string
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := warc.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if typ := rec.Type(); typ != "response" && typ != "resource" {
				continue
			}
			h := sha1.New()
			sum := ""
			body, _, err := wacz.Payload(rec, true)
			if err == nil {
				_, err = io.Copy(h, body)
			}
			if err != nil {
				sum = "error " + err.Error()
			} else {
				sum = hex.EncodeToString(h.Sum(nil))
			}
			ours = append(ours, fmt.Sprintf("%s %s %s", rec.Header.Get("WARC-Target-URI"), rec.Header.Get("WARC-Date"), sum))
		}
		f.Close()
		if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
			t.Errorf("%s: payloads differ\narcport:\n%s\nwarcio:\n%s", filepath.Base(path), strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
		}
		total += len(ours)
		for _, l := range ours {
			if !strings.HasSuffix(l, " da39a3ee5e6b4b0d3255bfef95601890afd80709") {
				nonEmpty++
			}
		}
	}
	t.Logf("%d files, %d response/resource payloads equal to warcio's (%d not empty)", len(files), total, nonEmpty)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startWayback starts pywb's wayback in dir (its config.yaml and
// collections/) on a free loopback port, waits until it answers and stops
// it when the test ends. It returns the server's base URL.
func startWayback(t *testing.T, wayback, dir string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(wayback, "-p", fmt.Sprint(port), "-b", "127.0.0.1")
	cmd.Dir = dir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get(base + "/"); err == nil {
			resp.Body.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("wayback did not answer on %s within 60 s:\n%s", base, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func httpGet(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s\n%.300s", u, resp.Status, b)
	}
	return b
}

// cdxJSON parses lines of pywb's output=json (or waczpack lookup --json)
// into maps, leaving out the keys pywb adds about its own sources.
func cdxJSON(t *testing.T, b []byte) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("CDX JSON line %q: %v", l, err)
		}
		delete(m, "source")
		delete(m, "source-coll")
		delete(m, "access")
		out = append(out, m)
	}
	return out
}

// TestPywbReadsOurs has pywb 2.10.0 serve what arcport writes, through its
// own HTTP server (wayback) on a loopback port:
//
//   - a ZipNum cluster written by `waczpack index --zipnum` (pywb's
//     ZipNumIndexSource reads cluster.idx and cluster.loc): the CDX API's
//     answers, exact, prefix, host and domain queries and closest=, are
//     the lines `waczpack lookup` prints for the same query, in the same
//     order;
//   - a WACZ written by `waczpack create`, added with `wb-manager add
//     --unpack-wacz` (pywb takes its WARCs and index lines as they are):
//     every index line is found by an exact CDX query for its URL at its
//     time-stamp, but where pywb canonicalises the URL otherwise (Python
//     surt strips a path's trailing slash: see docs/reference-tools.md);
//   - a cluster of `waczpack index --cdxj-indexer` lines: every line is
//     found, that one too;
//   - a page replayed from each (id_ mode, the payload as archived, content
//     coding undone) is the body `waczpack get` prints.
func TestPywbReadsOurs(t *testing.T) {
	wbManager := peertest.NeedPy(t, "wb-manager")
	wayback := peertest.NeedPy(t, "wayback")
	testdata := filepath.Dir(filepath.Dir(samples.Path("x.warc")))
	iana := filepath.Join(filepath.Dir(testdata), "..", "shared", "fixtures", "pywb", "sample_archive", "warcs", "iana.warc.gz")
	if _, err := os.Stat(iana); err != nil {
		t.Skipf("no %s", iana)
	}
	dir := t.TempDir()
	warcs := filepath.Join(dir, "warcs")
	os.Mkdir(warcs, 0o755)
	for _, src := range []string{iana, samples.Path("example.warc.gz"), samples.Path("post-test.warc.gz")} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(warcs, filepath.Base(src)), b, 0o644)
	}
	inputs, _ := filepath.Glob(filepath.Join(warcs, "*.warc.gz"))
	cluster := filepath.Join(dir, "cluster")
	if _, se, code := run(t, nil, append([]string{"index", "--zipnum", cluster + "/", "--block-lines", "20"}, inputs...)...); code != 0 {
		t.Fatalf("waczpack index --zipnum: %s", se)
	}
	wacz := filepath.Join(dir, "ours.wacz")
	if _, se, code := run(t, nil, append([]string{"create", "-q", "-o", wacz}, inputs...)...); code != 0 {
		t.Fatalf("waczpack create: %s", se)
	}
	for _, args := range [][]string{{"init", "wacz"}, {"add", "--unpack-wacz", "wacz", wacz}} {
		if out, se, ok := runIn(t, dir, wbManager, args...); !ok {
			t.Fatalf("wb-manager %s: %s%s", strings.Join(args, " "), out, se)
		}
	}
	// a cluster of --cdxj-indexer lines (Python surt keys), sorted in byte order
	pyLines, se, code := run(t, nil, append([]string{"index", "--cdxj-indexer"}, inputs...)...)
	if code != 0 {
		t.Fatalf("waczpack index --cdxj-indexer: %s", se)
	}
	sorted := strings.Split(strings.TrimSpace(pyLines), "\n")
	sort.Strings(sorted)
	runFile := filepath.Join(dir, "py.cdxj")
	os.WriteFile(runFile, []byte(strings.Join(sorted, "\n")+"\n"), 0o644)
	pyCluster := filepath.Join(dir, "pycluster")
	if _, se, code := run(t, nil, "index", "--zipnum", pyCluster+"/", "--block-lines", "20", runFile); code != 0 {
		t.Fatalf("waczpack index --zipnum of the --cdxj-indexer lines: %s", se)
	}
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(fmt.Sprintf(
		"collections:\n  zn:\n    index_paths: %s\n    archive_paths: %s/\n  znpy:\n    index_paths: %s\n    archive_paths: %s/\n",
		filepath.Join(cluster, "cluster.idx"), warcs, filepath.Join(pyCluster, "cluster.idx"), warcs)), 0o644)
	base := startWayback(t, wayback, dir)

	t.Run("zipnum-cdx-api", func(t *testing.T) {
		for _, q := range []struct{ url, match, ts string }{
			{"http://www.iana.org/about", "", ""},
			{"http://www.iana.org/", "", "20140126200700"},
			{"http://example.com/", "", "20170306040300"},
			{"www.iana.org/_css/", "prefix", ""},
			{"www.iana.org/domains/", "prefix", "20140126201000"},
			{"www.iana.org", "host", ""},
			{"iana.org", "domain", ""},
			{"example.com", "domain", ""},
			{"http://httpbin.org/post", "prefix", ""},
		} {
			v := url.Values{"url": {q.url}, "output": {"json"}}
			args := []string{"lookup", cluster, q.url, "--json"}
			if q.match != "" {
				v.Set("matchType", q.match)
				args = append(args, "--match", q.match)
			}
			if q.ts != "" {
				v.Set("closest", q.ts)
				v.Set("sort", "closest")
				args = append(args, "--ts", q.ts)
			}
			theirs := cdxJSON(t, httpGet(t, base+"/zn/cdx?"+v.Encode()))
			so, se, code := run(t, nil, args...)
			if code != 0 {
				t.Fatalf("waczpack %s: %s", strings.Join(args, " "), se)
			}
			ours := cdxJSON(t, []byte(so))
			if len(ours) == 0 || fmt.Sprint(ours) != fmt.Sprint(theirs) {
				t.Errorf("%s %s ts=%s: waczpack lookup %d lines, pywb %d\n waczpack: %.600v\n pywb:     %.600v", q.url, q.match, q.ts, len(ours), len(theirs), ours, theirs)
				continue
			}
			t.Logf("%s %s ts=%s: %d captures, equal", q.url, q.match, q.ts, len(ours))
		}
	})

	t.Run("wacz-cdx-api", func(t *testing.T) {
		so, se, code := run(t, nil, append([]string{"index"}, inputs...)...)
		if code != 0 {
			t.Fatalf("waczpack index: %s", se)
		}
		found, lines := 0, cdxjLines(t, so)
		var missed []string
		for _, l := range lines {
			if l.get("method") != "" {
				continue // POST captures are looked up by pywb with the request body
			}
			v := url.Values{"url": {l.get("url")}, "output": {"json"}, "closest": {l.ts}, "sort": {"closest"}, "limit": {"1"}}
			got := cdxJSON(t, httpGet(t, base+"/wacz/cdx?"+v.Encode()))
			if len(got) == 1 && got[0]["timestamp"] == l.ts && got[0]["offset"] == l.get("offset") && got[0]["urlkey"] == l.key {
				found++
				continue
			}
			missed = append(missed, l.key)
		}
		// the one URL whose path ends in "/" (not the root) in iana.warc.gz
		if want := []string{"org,iana)/domains/root/db/"}; fmt.Sprint(missed) != fmt.Sprint(want) {
			t.Errorf("lines pywb's CDX API does not find: %q, want %q", missed, want)
		}
		t.Logf("%d of %d GET lines found by pywb at their time-stamp; not found: %q (pywb looks for the key without the trailing slash)", found, found+len(missed), missed)
	})

	t.Run("cdxj-indexer-cluster", func(t *testing.T) {
		// every GET line, the trailing-slash one too, is found under the
		// key pywb computes
		n := 0
		for _, l := range sorted {
			cl := parseCDXJLine(t, l)
			if cl.get("method") != "" {
				continue
			}
			v := url.Values{"url": {cl.get("url")}, "output": {"json"}, "closest": {cl.ts}, "sort": {"closest"}, "limit": {"1"}}
			got := cdxJSON(t, httpGet(t, base+"/znpy/cdx?"+v.Encode()))
			if len(got) != 1 || got[0]["urlkey"] != cl.key || got[0]["timestamp"] != cl.ts || got[0]["offset"] != cl.get("offset") {
				t.Errorf("%s %s: pywb answers %v", cl.key, cl.ts, got)
				continue
			}
			n++
		}
		t.Logf("%d GET lines of a cluster of --cdxj-indexer lines: all found by pywb at their time-stamp", n)
	})

	t.Run("replay", func(t *testing.T) {
		want, se, code := run(t, nil, "get", wacz, "http://example.com/", "--ts", "20170306040206")
		if code != 0 {
			t.Fatalf("waczpack get: %s", se)
		}
		for _, coll := range []string{"wacz", "zn"} {
			got := httpGet(t, base+"/"+coll+"/20170306040206id_/http://example.com/")
			if string(got) != want {
				t.Errorf("%s: pywb replays %d bytes, waczpack get prints %d\n%.200s", coll, len(got), len(want), got)
			}
		}
		page := httpGet(t, base+"/zn/20140126200624mp_/http://www.iana.org/")
		if !bytes.Contains(page, []byte("<title>Internet Assigned Numbers Authority</title>")) {
			t.Errorf("the iana.org home page replayed by pywb (mp_: rewritten, no frame) has no title:\n%.300s", page)
		}
		t.Logf("http://example.com/ replayed from both collections: %d bytes, equal to waczpack get", len(want))
	})
}
