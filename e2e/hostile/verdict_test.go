package hostile

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// One verdict everywhere (issue 30, docs/damaged-input.md): a command that
// reads a file and finds what the tool's check command reports as damage
// exits 1, with each problem on one line of stderr naming the same problem
// at the same offset as the check command; warnings that are not damage
// leave the exit status 0. TestOneVerdict holds every reading command to
// its check command over every hostile input of the repository:
//
//	WARC/ARC  testdata/warc, testdata/arc, testdata/tampered, testdata/cdx,
//	          warcCrafted and arcCrafted (lying lengths, huge lines, bombs),
//	          cuts and bit flips of the fixtures, and the WARC.gz
//	          whose only record (4 GiB of body, one gzip member) has no
//	          CRLF CRLF trailer
//	          check: waczpack check, waczpack index, arc2warc --strict
//	          readers: waczpack create (plain, --verify, --lenient),
//	          waczpack add, arc2warc
//	HTTrack   the garden cache, its new.zip cut and flipped, the issue's
//	          central directory listing 50,000 entries of which 1 can be
//	          read, and entries whose metadata is unreadable
//	          check: htcache check; reader: htcache export (WARC and ARC)
//	ZIM       testdata/zim (libzim's invalid archives), zimCases, cuts and
//	          flips of small.zim, and the archive whose path
//	          pointers all point at one dirent
//	          check: zimdump check; reader: zimdump warc (stdout and -o)
//
// zimdump's openzim commands (list, dump, show, info) are not held to it:
// they reproduce openzim's zimdump byte for byte, exit statuses included,
// and openzim's zimdump does not run zimcheck's checks.
func TestOneVerdict(t *testing.T) {
	t.Run("warc", verdictWARC)
	t.Run("htcache", verdictHtcache)
	t.Run("zim", verdictZim)
}

// ---- WARC and ARC ----

// verdictInput is one input file: a path, or a generator for shared().
type verdictInput struct {
	name string
	path func(t testing.TB) string
	// mustFail, when not "", is a problem every command must report
	// (exit 1): the cases.
	mustFail string
}

func fileInput(rel string) verdictInput {
	return verdictInput{name: strings.ReplaceAll(rel, "/", "_"), path: func(testing.TB) string { return filepath.Join(repo, "testdata", rel) }}
}

func genInput(name string, gen func() []byte) verdictInput {
	return verdictInput{name: name, path: func(t testing.TB) string {
		return shared(t, "verdict-"+name, func(t testing.TB, p string) {
			if err := os.WriteFile(p, gen(), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}}
}

// noTrailer4G is the WARC.gz: one gzip member holding one resource
// record of 4 GiB (zeros) with no CRLF CRLF after it (about 4 MB on disk).
func noTrailer4G(t testing.TB) string {
	return shared(t, "verdict-no-trailer-4g.warc.gz", func(t testing.TB, p string) {
		const n = 4 << 30
		head := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:6f1a5bd2-7a4b-4f30-9a49-000000000004>\r\n" +
			"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.test/zeros\r\nContent-Type: application/octet-stream\r\n" +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", n)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := writeGzipBomb(f, []byte(head), n, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func verdictWARCInputs(t *testing.T) []verdictInput {
	var ins []verdictInput
	for _, pat := range []string{"warc/*.warc*", "arc/*.arc*", "tampered/*.warc*", "cdx/*.warc*"} {
		m, _ := filepath.Glob(filepath.Join(repo, "testdata", pat))
		for _, p := range m {
			if strings.HasSuffix(p, ".expected") {
				continue
			}
			rel, _ := filepath.Rel(filepath.Join(repo, "testdata"), p)
			ins = append(ins, fileInput(rel))
		}
	}
	for _, cr := range append(warcCrafted(), arcCrafted()...) {
		cr := cr
		ins = append(ins, verdictInput{name: "crafted_" + cr.name, path: cr.path})
	}
	// cuts and flips of the fixtures (the sweep of the other hostile
	// tests, fewer of them)
	for _, rel := range []string{"warc/example.warc.gz", "warc/example.warc", "arc/example.arc.gz", "arc/example.arc"} {
		data := fixture(t, rel)
		base := filepath.Base(rel)
		for _, cut := range cutOffsets(base, len(data), 0, 8, nil) {
			cut := cut
			ins = append(ins, genInput(fmt.Sprintf("cut%d_%s", cut, base), func() []byte { return data[:cut] }))
		}
		for i, f := range flips(base, 0, len(data), 8) {
			f := f
			ins = append(ins, genInput(fmt.Sprintf("flip%d@%d_%s", i, f.off, base), func() []byte { return f.apply(data) }))
		}
	}
	// damage the readers repair: an ARC date of 18 digits, a bare CR in a
	// WARC field name (every check command stops at them)
	ins = append(ins, genInput("repaired-date.arc", func() []byte {
		return []byte(arcHead + strings.Replace(arcRec(fmt.Sprint(len(arcBody))), "20200101000001", "202001010000010000", 1))
	}))
	ins = append(ins, genInput("bare-cr.warc", func() []byte {
		return []byte(warcInfo + strings.Replace(warcResource("5"), "WARC-Target-URI", "WARC-Target\rURI", 1))
	}))
	// the same records in one gzip member (whole-file gzip): not damage
	ins = append(ins, genInput("whole-file.warc.gz", func() []byte {
		var b bytes.Buffer
		gzipMembers(string(fixture(t, "warc/example.warc")))(&b)
		return b.Bytes()
	}))
	ins = append(ins, verdictInput{name: "no-trailer-4g.warc.gz", path: noTrailer4G,
		mustFail: `record at offset 0: record not followed by CRLF CRLF (found "")`})
	return ins
}

var (
	// problemRE is a problem line: "FILE: record at offset N: reason"
	// (FILE may itself hold ": " for a record inside a WACZ).
	problemRE = regexp.MustCompile(`^(.*): record at offset (\d+): (.*)$`)
	// digestRE: problems of the digests, which only check and create
	// --verify compute.
	digestRE = regexp.MustCompile(`WARC-(Block|Payload)-Digest`)
)

// lines splits s into its non-empty lines, each with prefix removed.
func lines(s, prefix string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, strings.TrimPrefix(l, prefix))
		}
	}
	return out
}

// problems keeps the problem lines of ls.
func problems(ls []string) []string {
	var out []string
	for _, l := range ls {
		if problemRE.MatchString(l) && !strings.HasPrefix(l, "warning: ") {
			out = append(out, l)
		}
	}
	return out
}

func contains(ls []string, l string) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

// sameWording are the problems worded two ways: by a reader stopping at
// them (index, --strict: what is there) and by one going on past them
// (check, create --lenient, arc2warc: what was skipped).
var sameWording = []*regexp.Regexp{
	regexp.MustCompile(`^(garbage where a record should start: |skipped \d+ bytes of garbage before the next record)`),
	regexp.MustCompile(`^(not a URL-record line: |skipped \d+ bytes that are not ARC records)`),
}

// sameProblem reports whether problem lines a and b name the same problem
// at the same offset of the same file: the same reason, or one reason
// followed by what was done about it (": 1228 bytes skipped up to the next
// member", " (skipped)"), or the two wordings of sameWording.
func sameProblem(a, b string) bool {
	if a == b {
		return true
	}
	ma, mb := problemRE.FindStringSubmatch(a), problemRE.FindStringSubmatch(b)
	if ma == nil || mb == nil || ma[1] != mb[1] || ma[2] != mb[2] {
		return false
	}
	x, y := ma[3], mb[3]
	if len(x) > len(y) {
		x, y = y, x
	}
	if strings.HasPrefix(y, x) && (strings.HasPrefix(y[len(x):], ": ") || strings.HasPrefix(y[len(x):], " (")) {
		return true
	}
	for _, re := range sameWording {
		if re.MatchString(x) && re.MatchString(y) {
			return true
		}
	}
	return false
}

// hasProblem reports whether one of ls is the same problem as l.
func hasProblem(ls []string, l string) bool {
	for _, x := range ls {
		if sameProblem(x, l) {
			return true
		}
	}
	return false
}

// wholeFile reports whether line is about the file as a whole rather than
// a record (not a gzip file, empty...): no offset to compare.
func wholeFile(line string) bool { return !problemRE.MatchString(line) }

func verdictWARC(t *testing.T) {
	wp, a2w := bin(t, "waczpack"), bin(t, "arc2warc")
	// the WACZ add appends to
	var base []byte
	{
		c := newCase(t)
		p := filepath.Join(c.out, "base.wacz")
		if res := c.cmd(wp, "create", "-o", p, filepath.Join(repo, "testdata/warc/example.warc.gz")).exec(t); res.code != 0 {
			t.Fatalf("base WACZ: %s", res)
		}
		base, _ = os.ReadFile(p)
	}
	for _, in := range verdictWARCInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			acquire(t)
			c := newCase(t)
			p := in.path(t)
			exec := func(args ...string) *result {
				res := c.cmd(args[0], args[1:]...).exec(t)
				if res.timedOut || res.signal != 0 || panicRE.MatchString(res.stderr) || res.code > 1 {
					t.Fatalf("did not end with a verdict:\n  %s", res)
				}
				return res
			}
			chk := exec(wp, "check", p)
			chkLines := problems(lines(string(chk.out), ""))
			if chk.code == 1 && len(chkLines) == 0 {
				chkLines = lines(string(chk.out), "") // a whole-file reason
			}
			if (chk.code == 1) != (len(chkLines) > 0) {
				t.Fatalf("waczpack check: exit %d with problems %q\n  %s", chk.code, chkLines, chk)
			}
			idx := exec(wp, "index", p)
			idxLine := ""
			if idx.code == 1 {
				idxLine = lines(idx.stderr, "waczpack: ")[0]
			}
			// The three check commands agree with each other: index
			// stops at the first problem check reports (check goes on;
			// it computes digests, which index does not).
			multi := strings.Contains(idxLine, "member holds more than one record")
			var structural []string // check's problems without the digests'
			for _, l := range chkLines {
				if !digestRE.MatchString(l) {
					structural = append(structural, l)
				}
			}
			switch {
			case multi:
				// index cannot address the records of such a member:
				// it refuses the file, which is not damage (check warns)
			case idx.code == 1 && !hasProblem(chkLines, idxLine) && !wholeFile(idxLine):
				t.Errorf("waczpack index reports %q, which check does not: %q", idxLine, chkLines)
			case idx.code == 0 && len(structural) > 0:
				t.Errorf("waczpack index exits 0, check reports %q", structural)
			}
			structVerdict := 0
			if len(structural) > 0 || (idx.code == 1 && !multi) {
				structVerdict = 1
			}
			if in.mustFail != "" {
				if want := p + ": " + in.mustFail; idxLine != want || !hasProblem(chkLines, want) {
					t.Errorf("the issue's case: index %q, check %q; want both %q", idxLine, chkLines, want)
				}
			}

			// create: the verdict of index (of check's structure for a
			// member of many records), the same first line.
			out := filepath.Join(c.out, "x.wacz")
			cr := exec(wp, "create", "-o", out, p)
			crLine := ""
			if cr.code == 1 {
				crLine = lines(cr.stderr, "waczpack: ")[0]
			}
			switch {
			case cr.code != structVerdict:
				t.Errorf("create exits %d, the check commands %d (index %q, check %q)\n  %s", cr.code, structVerdict, idxLine, chkLines, cr)
			case cr.code == 1 && !multi && !sameProblem(crLine, idxLine) && !(wholeFile(idxLine) && crLine == idxLine):
				t.Errorf("create reports %q, index %q", crLine, idxLine)
			case cr.code == 1 && multi && !hasProblem(chkLines, crLine):
				t.Errorf("create reports %q, which check does not: %q", crLine, chkLines)
			}
			if _, err := os.Stat(out); (err == nil) != (cr.code == 0) {
				t.Errorf("create exit %d, output there: %v", cr.code, err == nil)
			}
			os.Remove(out)

			// create --verify: the verdict of check, its problems
			crv := exec(wp, "create", "--verify", "-o", out, p)
			if crv.code != chk.code {
				t.Errorf("create --verify exits %d, check %d (%q)\n  %s", crv.code, chk.code, chkLines, crv)
			} else if crv.code == 1 {
				got := problems(lines(crv.stderr, "waczpack: "))
				if len(got) == 0 && !wholeFile(chkLines[0]) {
					t.Errorf("create --verify gives no problem line\n  %s", crv)
				}
				for _, l := range got {
					if !hasProblem(chkLines, l) {
						t.Errorf("create --verify reports %q, which check does not: %q", l, chkLines)
					}
				}
			}
			os.Remove(out)

			// create --lenient: the same verdict; the WACZ of the rest
			// is written; the problems are check's
			crl := exec(wp, "create", "--lenient", "-o", out, p)
			if crl.code != cr.code {
				t.Errorf("create --lenient exits %d, create %d\n  %s", crl.code, cr.code, crl)
			}
			if crl.code == 1 && strings.Contains(crl.stderr, "(--lenient): the rest is written") {
				got := problems(lines(crl.stderr, "waczpack: "))
				if len(got) == 0 || !multi && !sameProblem(got[0], idxLine) {
					t.Errorf("create --lenient reports %q, index %q", got, idxLine)
				}
				for _, l := range got {
					if !hasProblem(chkLines, l) {
						t.Errorf("create --lenient reports %q, which check does not: %q", l, chkLines)
					}
				}
				if _, err := os.Stat(out); err != nil {
					t.Errorf("create --lenient: no WACZ of the rest: %v", err)
				}
			}
			os.Remove(out)

			// add: as create
			site := filepath.Join(c.out, "site.wacz")
			if err := os.WriteFile(site, base, 0o644); err != nil {
				t.Fatal(err)
			}
			ad := exec(wp, "add", site, p)
			if ad.code != cr.code {
				t.Errorf("add exits %d, create %d\n  %s", ad.code, cr.code, ad)
			} else if ad.code == 1 && !hasProblem(lines(ad.stderr, "waczpack: "), crLine) && !contains(lines(ad.stderr, "waczpack: "), crLine) {
				t.Errorf("add does not report %q\n  %s", crLine, ad)
			}

			// arc2warc: the verdict of its strict reading
			xs := exec(a2w, "--strict", "-o", filepath.Join(c.out, "s.warc.gz"), p)
			x := exec(a2w, "-o", filepath.Join(c.out, "x.warc.gz"), p)
			if x.code != xs.code {
				t.Errorf("arc2warc exits %d, arc2warc --strict %d\n  %s\n  %s", x.code, xs.code, x, xs)
			} else if x.code == 1 {
				sl := lines(xs.stderr, "arc2warc: ")[0]
				if !hasProblem(lines(x.stderr, "arc2warc: "), sl) && !wholeFile(sl) {
					t.Errorf("arc2warc --strict reports %q; arc2warc does not:\n%s", sl, x.stderr)
				}
			}
			if in.mustFail != "" {
				for _, res := range []*result{cr, crv, crl, ad} {
					if !strings.Contains(res.stderr, p+": "+in.mustFail) || res.code != 1 {
						t.Errorf("the issue's case: want exit 1 with %q\n  %s", in.mustFail, res)
					}
				}
			}
		})
	}
}

// ---- HTTrack caches ----

type htInput struct {
	name     string
	zip      []byte // new.zip of a copy of the garden mirror; nil: the mirror as it is
	mustFail string
}

// gardenZip50k is the cache: its first entry, then a central
// directory listing 50,000 entries (the first one's header 50,000 times).
func gardenZip50k(t testing.TB, data []byte) []byte {
	locals, central := localStarts(t, data)
	eocd := bytes.LastIndex(data, []byte("PK\x05\x06"))
	h := data[central:]
	n := 46 + int(binary.LittleEndian.Uint16(h[28:])) + int(binary.LittleEndian.Uint16(h[30:])) + int(binary.LittleEndian.Uint16(h[32:]))
	local := data[locals[0]:locals[1]]
	dir := bytes.Repeat(h[:n], 50000)
	end := bytes.Clone(data[eocd : eocd+22])
	binary.LittleEndian.PutUint16(end[8:], 50000)
	binary.LittleEndian.PutUint16(end[10:], 50000)
	binary.LittleEndian.PutUint32(end[12:], uint32(len(dir)))
	binary.LittleEndian.PutUint32(end[16:], uint32(len(local)))
	binary.LittleEndian.PutUint16(end[20:], 0)
	return append(append(append([]byte(nil), local...), dir...), end...)
}

// gardenBadMeta makes the metadata (HTTP headers in the local header's
// extra field) of the entries from the second on unreadable: their
// extra field is overwritten with 0xff.
func gardenBadMeta(t testing.TB, data []byte) []byte {
	locals, _ := localStarts(t, data)
	out := bytes.Clone(data)
	for _, off := range locals[1:3] {
		nl := int64(binary.LittleEndian.Uint16(out[off+26:]))
		xl := int64(binary.LittleEndian.Uint16(out[off+28:]))
		for i := off + 30 + nl; i < off+30+nl+xl; i++ {
			out[i] = 0xff
		}
	}
	return out
}

func verdictHtcache(t *testing.T) {
	ht := bin(t, "htcache")
	data := fixture(t, gardenDir+"/hts-cache/new.zip")
	if _, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	ins := []htInput{
		{name: "garden"},
		{name: "central-50000", zip: gardenZip50k(t, data), mustFail: "central directory lists 50000 entries, 1 read from local headers"},
		{name: "bad-metadata", zip: gardenBadMeta(t, data)},
	}
	locals, central := localStarts(t, data)
	for _, cut := range cutOffsets("new.zip", len(data), 0, 12, append(locals, central)) {
		ins = append(ins, htInput{name: fmt.Sprintf("cut%d", cut), zip: data[:cut]})
	}
	for i, f := range flips("new.zip", 0, len(data), 16) {
		ins = append(ins, htInput{name: fmt.Sprintf("flip%d@%d", i, f.off), zip: f.apply(data)})
	}
	for _, in := range ins {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			acquire(t)
			c := newCase(t)
			root := filepath.Join(repo, "testdata", gardenDir)
			if in.zip != nil {
				root = c.mirrorWith(t, in.zip)
			}
			chk := c.cmd(ht, "check", root).exec(t)
			fold := func(ls []string) []string {
				for i, l := range ls {
					ls[i] = strings.Join(strings.Fields(l), " ")
				}
				return ls
			}
			chkLines := fold(lines(string(chk.out), ""))
			if chk.code > 1 || (chk.code == 1) != (len(chkLines) > 0 || chk.stderr != "") {
				t.Fatalf("htcache check: exit %d, lines %q\n  %s", chk.code, chkLines, chk)
			}
			if chk.code == 1 && len(chkLines) == 0 {
				chkLines = lines(chk.stderr, "htcache: ") // the cache cannot be opened
			}
			for _, args := range [][]string{{"export", "-o", filepath.Join(c.out, "x.warc.gz"), root}, {"export", "--format", "arc", root}} {
				res := c.cmd(ht, args...).exec(t)
				what := strings.Join(args[:2], " ")
				if res.code != chk.code {
					t.Errorf("%s exits %d, htcache check %d (%q)\n  %s", what, res.code, chk.code, chkLines, res)
					continue
				}
				// the problems export reports that are damage are
				// check's, and it reports each of check's
				var got []string
				for _, l := range fold(lines(res.stderr, "htcache: ")) {
					// not damage: an entry of a failed fetch; a cache without
					// its central directory (an interrupted crawl, whose
					// complete entries are all recovered); the summary
					if strings.Contains(l, "(no HTTP response) not exported") || strings.Contains(l, "no central directory (interrupted crawl): recovered") ||
						strings.Contains(l, "of damaged input: the rest is written") {
						continue
					}
					got = append(got, strings.TrimSuffix(l, "; entry not exported"))
				}
				sort.Strings(got)
				want := append([]string(nil), chkLines...)
				sort.Strings(want)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s reports\n  %s\nhtcache check\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
				}
				if in.mustFail != "" && !strings.Contains(res.stderr, in.mustFail) {
					t.Errorf("the issue's case: %s does not report %q\n  %s", what, in.mustFail, res)
				}
			}
			if in.mustFail != "" && (chk.code != 1 || !strings.Contains(string(chk.out), in.mustFail)) {
				t.Errorf("the issue's case: htcache check does not report %q\n  %s\n%s", in.mustFail, chk, chk.out)
			}
		})
	}
}

// ---- ZIM ----

type zimInput struct {
	name     string
	path     func(t testing.TB, c *caseDir) string
	mustFail string
}

// oneDirent points every path pointer of small.zim at its first dirent
// (the case).
func oneDirent(data []byte) []byte {
	b := bytes.Clone(data)
	n := binary.LittleEndian.Uint32(b[24:])
	pp := binary.LittleEndian.Uint64(b[32:])
	first := binary.LittleEndian.Uint64(b[pp:])
	for i := uint64(0); i < uint64(n); i++ {
		binary.LittleEndian.PutUint64(b[pp+8*i:], first)
	}
	return b
}

func verdictZim(t *testing.T) {
	zd := bin(t, "zimdump")
	var ins []zimInput
	m, _ := filepath.Glob(filepath.Join(repo, "testdata/zim/*/*.zim"))
	for _, p := range m {
		p := p
		rel, _ := filepath.Rel(filepath.Join(repo, "testdata"), p)
		ins = append(ins, zimInput{name: strings.ReplaceAll(rel, "/", "_"), path: func(testing.TB, *caseDir) string { return p }})
	}
	for _, zc := range zimCases() {
		zc := zc
		ins = append(ins, zimInput{name: "crafted_" + zc.name, path: func(t testing.TB, c *caseDir) string {
			return shared(t, "verdict-"+zc.name, func(t testing.TB, p string) {
				if err := os.WriteFile(p, zc.spec(c).build(), 0o644); err != nil {
					t.Fatal(err)
				}
			})
		}})
	}
	small := fixture(t, "zim/nons/small.zim")
	gen := func(name string, b []byte) func(t testing.TB, c *caseDir) string {
		return func(t testing.TB, c *caseDir) string { return c.put(t, name, b) }
	}
	ins = append(ins, zimInput{name: "one-dirent.zim", path: gen("one-dirent.zim", oneDirent(small)),
		mustFail: "Dirent table is not properly sorted"})
	for _, cut := range cutOffsets("small.zim", len(small), 0, 8, nil) {
		ins = append(ins, zimInput{name: fmt.Sprintf("cut%d.zim", cut), path: gen("small.zim", small[:cut])})
	}
	for i, f := range flips("small.zim", 0, len(small), 12) {
		ins = append(ins, zimInput{name: fmt.Sprintf("flip%d@%d.zim", i, f.off), path: gen("small.zim", f.apply(small))})
	}
	for _, in := range ins {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			acquire(t)
			c := newCase(t)
			p := in.path(t, c)
			chk := c.cmd(zd, "check", p).exec(t)
			chkLines := lines(string(chk.out), "")
			if chk.code > 1 || (chk.code == 1) != (len(chkLines) > 0) {
				t.Fatalf("zimdump check: exit %d, lines %q\n  %s", chk.code, chkLines, chk)
			}
			out := filepath.Join(c.out, "x.warc.gz")
			for _, args := range [][]string{{"warc", p}, {"warc", "-o", out, p}} {
				res := c.cmd(zd, args...).exec(t)
				what := strings.Join(args[:len(args)-1], " ")
				if res.timedOut || res.signal != 0 || panicRE.MatchString(res.stderr) {
					t.Fatalf("%s did not end with a verdict\n  %s", what, res)
				}
				if res.code != chk.code {
					t.Errorf("%s exits %d, zimdump check %d (%q)\n  %s", what, res.code, chk.code, chkLines, res)
					continue
				}
				if res.code == 0 {
					continue
				}
				// each problem check reports, as check words it; what
				// only decompressing a cluster finds (check does it for
				// every cluster, warc for those it reads) at least at
				// the same offset
				got := lines(res.stderr, "zimdump: ")
				all := strings.Join(got, "\n")
				for _, l := range chkLines {
					if contains(got, l) {
						continue
					}
					_, rest, _ := strings.Cut(l, ": offset ")
					if at, _, ok := strings.Cut(rest, ": "); !ok || !strings.Contains(all, "offset "+at+": ") {
						t.Errorf("%s does not report %q\n  %s", what, l, res)
					}
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s: exit 1 and %s written", what, out)
				}
			}
			if in.mustFail != "" && (chk.code != 1 || !strings.Contains(string(chk.out), in.mustFail)) {
				t.Errorf("the issue's case: zimdump check does not report %q\n  %s\n%s", in.mustFail, chk, chk.out)
			}
		})
	}
}
