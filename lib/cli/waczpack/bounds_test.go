package waczpack

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/samples"
)

// exampleWACZ creates a WACZ of example.warc.gz with waczpack create.
func exampleWACZ(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ex.wacz")
	if _, se, code := run(t, nil, "create", "-o", p, samples.Path("example.warc.gz")); code != 0 {
		t.Fatalf("create: %s", se)
	}
	return p
}

// withIndex copies the WACZ at src, its index replaced by the CDXJ lines
// edit makes of the original ones (indexes/index.cdx.gz written as one
// gzip member, indexes/index.idx left out so every reader scans it).
func withIndex(t *testing.T, src string, edit func(line string) string) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dst := filepath.Join(t.TempDir(), "crafted.wacz")
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		if e.Name == "indexes/index.idx" {
			continue
		}
		rc, _ := e.Open()
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if e.Name == "indexes/index.cdx.gz" {
			gr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := io.ReadAll(gr)
			var lines []string
			for _, l := range strings.Split(strings.TrimSuffix(string(plain), "\n"), "\n") {
				lines = append(lines, edit(l))
			}
			var b bytes.Buffer
			gw := gzip.NewWriter(&b)
			gw.Write([]byte(strings.Join(lines, "\n") + "\n"))
			gw.Close()
			data = b.Bytes()
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.Name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

var (
	offsetRE = regexp.MustCompile(`"offset":"(-?\d+)"`)
	lengthRE = regexp.MustCompile(`"length":"(-?\d+)"`)
)

// setOffLen sets a CDXJ line's offset and length; fn gets the line's own.
func setOffLen(fn func(off, n int64) (string, string)) func(string) string {
	return func(l string) string {
		off, _ := strconv.ParseInt(offsetRE.FindStringSubmatch(l)[1], 10, 64)
		n, _ := strconv.ParseInt(lengthRE.FindStringSubmatch(l)[1], 10, 64)
		o, m := fn(off, n)
		l = offsetRE.ReplaceAllString(l, `"offset":"`+o+`"`)
		return lengthRE.ReplaceAllString(l, `"length":"`+m+`"`)
	}
}

// TestIndexBoundsCLI: index lines whose offset or length is 2^63-1,
// negative, or whose offset+length ends one byte past the WARC: validate
// exits 1 naming the line, get and ls fail with one line (get), never a
// panic or a capture read from the wrong bytes. offset+length used to
// overflow in validate's bounds check, so 2^63-1 was accepted.
func TestIndexBoundsCLI(t *testing.T) {
	good := exampleWACZ(t)
	const warcSize = 3816 // archive/example.warc.gz in the WACZ
	if st := archiveSize(t, good); st != warcSize {
		t.Fatalf("archive/example.warc.gz is %d bytes, the test expects %d", st, warcSize)
	}
	max := strconv.FormatInt(1<<63-1, 10)
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	cases := []struct {
		name    string
		fn      func(off, n int64) (string, string)
		problem string // validate's problem (a regexp), on every line
	}{
		{"length 2^63-1", func(off, n int64) (string, string) { return itoa(off), max },
			`line \d: http://example.com/ offset \d+ \+ length ` + max + ` is past the end of archive/example.warc.gz \(3816 bytes\)`},
		{"offset 2^63-1", func(off, n int64) (string, string) { return max, itoa(n) },
			`line \d: http://example.com/ offset ` + max + ` \+ length \d+ is past the end of archive/example.warc.gz \(3816 bytes\)`},
		{"both 2^63-1", func(off, n int64) (string, string) { return max, max },
			`line \d: http://example.com/ offset ` + max + ` \+ length ` + max + ` is past the end of archive/example.warc.gz \(3816 bytes\)`},
		{"offset+length one past the end", func(off, n int64) (string, string) { return itoa(off), itoa(warcSize - off + 1) },
			`line \d: http://example.com/ offset \d+ \+ length \d+ is past the end of archive/example.warc.gz \(3816 bytes\)`},
		{"negative length", func(off, n int64) (string, string) { return itoa(off), "-1" },
			`line \d: bad length "-1"`},
		{"negative offset", func(off, n int64) (string, string) { return "-784", itoa(n) },
			`line \d: bad offset "-784"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := withIndex(t, good, setOffLen(c.fn))
			_, se, code := run(t, nil, "validate", bad)
			if code != 1 {
				t.Errorf("validate: exit %d, want 1; stderr %q", code, se)
			}
			re := regexp.MustCompile(`(?m)^(waczpack: )?` + regexp.QuoteMeta(bad) + `: indexes/index.cdx.gz: ` + c.problem + `$`)
			if n := len(re.FindAllString(se, -1)); n != 2 {
				t.Errorf("validate: %d lines match %s, want 2 (one per capture):\n%s", n, re, se)
			}
			out := filepath.Join(t.TempDir(), "page.html")
			so, se, code := run(t, nil, "get", bad, "http://example.com/", "--ts", "20170306040206", "-o", out)
			if code != 1 || so != "" || strings.Count(se, "\n") != 1 || !strings.HasPrefix(se, "waczpack: "+bad+": ") || strings.Contains(se, "panic") {
				t.Errorf("get: exit %d, stdout %q, stderr %q; want exit 1 and one line naming %s", code, so, se, bad)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("get: -o file written")
			}
			if _, se, code := run(t, nil, "ls", bad); code > 1 || strings.Contains(se, "panic") {
				t.Errorf("ls: exit %d, %q", code, se)
			}
		})
	}
}

func archiveSize(t *testing.T, p string) int64 {
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	return int64(zr.File[0].UncompressedSize64)
}

// TestZipDirectoryBoundsCLI: a central directory entry whose sizes or
// local header offset point past the end of the file is an error naming
// the entry, for validate, get and ls alike (get read captures of an
// entry whose directory claimed 4 GB more than the file holds).
func TestZipDirectoryBoundsCLI(t *testing.T) {
	good := exampleWACZ(t)
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// the central directory header of archive/example.warc.gz
	cd := bytes.Index(b, append([]byte("PK\x01\x02"), b[bytes.Index(b, []byte("PK\x01\x02"))+4:][:24]...))
	if cd < 0 || string(b[cd+46:cd+46+23]) != "archive/example.warc.gz" {
		t.Fatalf("no central directory entry for archive/example.warc.gz")
	}
	patch := func(at int, v uint32) func([]byte) {
		return func(d []byte) { binary.LittleEndian.PutUint32(d[cd+at:], v) }
	}
	cases := []struct {
		name string
		edit []func([]byte)
		msg  string
	}{
		{"sizes 0xfffffff0", []func([]byte){patch(20, 0xfffffff0), patch(24, 0xfffffff0)}, "data at offset 53, 4294967280 bytes, is past the end of the file"},
		{"sizes one byte too many", []func([]byte){patch(20, uint32(len(b))), patch(24, uint32(len(b)))}, fmt.Sprintf("is past the end of the file (%d bytes)", len(b))},
		{"stored sizes disagree", []func([]byte){patch(24, 3817)}, "stored entry of 3816 bytes says it holds 3817"},
		{"local header past the end", []func([]byte){patch(42, 0x7ffffff0)}, "local header: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := append([]byte(nil), b...)
			for _, e := range c.edit {
				e(d)
			}
			bad := filepath.Join(t.TempDir(), "bad.wacz")
			os.WriteFile(bad, d, 0o644)
			want := "waczpack: " + bad + ": archive/example.warc.gz: "
			// (ls reads only the index and pages, not the damaged
			// archive entry: a remote WACZ costs no request per entry)
			for _, args := range [][]string{{"validate", bad}, {"get", bad, "http://example.com/"}} {
				so, se, code := run(t, nil, args...)
				if code != 1 || so != "" || strings.Count(se, "\n") != 1 || !strings.HasPrefix(se, want) || !strings.Contains(se, c.msg) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, one line starting %q holding %q", args[0], code, clipS(so), se, want, c.msg)
				}
			}
		})
	}
}

// TestZip64SizesCLI: ZIP64 extra fields (2^63-1, 2^64-1, 2^40 bytes) in
// the directory entry of archive/example.warc.gz, whose data is really
// 3816 bytes: validate, get and ls fail with one line naming the entry.
func TestZip64SizesCLI(t *testing.T) {
	good := exampleWACZ(t)
	for _, size := range []uint64{1<<63 - 1, 1<<64 - 1, 1 << 40} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			zr, err := zip.OpenReader(good)
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			bad := filepath.Join(t.TempDir(), "zip64.wacz")
			f, _ := os.Create(bad)
			zw := zip.NewWriter(f)
			for _, e := range zr.File {
				fh := e.FileHeader
				if e.Name == "archive/example.warc.gz" {
					fh.CompressedSize64, fh.UncompressedSize64 = size, size // written as ZIP64 fields
				}
				fh.Flags &^= 0x8 // sizes in the headers, no data descriptor
				w, err := zw.CreateRaw(&fh)
				if err != nil {
					t.Fatal(err)
				}
				rc, _ := e.OpenRaw()
				io.Copy(w, rc)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			want := "waczpack: " + bad + ": archive/example.warc.gz: "
			for _, args := range [][]string{{"validate", bad}, {"get", bad, "http://example.com/"}, {"ls", bad}} {
				so, se, code := run(t, nil, args...)
				if code != 1 || so != "" || strings.Count(se, "\n") != 1 || !strings.HasPrefix(se, want) || !strings.Contains(se, "past the end of the file") {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, one line starting %q", args[0], code, clipS(so), se, want)
				}
			}
		})
	}
}

func clipS(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
