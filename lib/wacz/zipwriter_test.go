package wacz

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
)

type zipCase struct {
	name    string
	method  uint16
	hash    string
	content []byte
	// cut, when > 0, writes junk after content then truncates back
	cut int
}

// fixedModTime is the modification time of the zips that tests compare byte for byte.
var fixedModTime = time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)

func writeZip(t *testing.T, path string, cases []zipCase) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := NewZipWriter(f)
	zw.SetModTime(fixedModTime)
	for _, c := range cases {
		e, err := zw.Create(c.name, c.method, c.hash)
		if err != nil {
			t.Fatal(err)
		}
		// write in uneven pieces so checkpoints fall mid-content
		for i := 0; i < len(c.content); i += 300007 {
			j := min(i+300007, len(c.content))
			if _, err := e.Write(c.content[i:j]); err != nil {
				t.Fatal(err)
			}
		}
		if c.cut > 0 {
			junk := bytes.Repeat([]byte("junk"), c.cut)
			if _, err := e.Write(junk); err != nil {
				t.Fatal(err)
			}
			if err := e.Truncate(int64(len(c.content))); err != nil {
				t.Fatal(err)
			}
			// the bytes read back must be the content
			back := make([]byte, len(c.content))
			if _, err := e.ReadAt(back, 0); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if !bytes.Equal(back, c.content) {
				t.Fatalf("%s: ReadAt after Truncate differs", c.name)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		var want string
		if c.hash == "md5" {
			s := md5.Sum(c.content)
			want = "md5:" + hex.EncodeToString(s[:])
		} else {
			s := sha256.Sum256(c.content)
			want = "sha256:" + hex.EncodeToString(s[:])
		}
		if e.Hash() != want {
			t.Errorf("%s: hash %s, want %s", c.name, e.Hash(), want)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

func checkZip(t *testing.T, path string, cases []zipCase) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != len(cases) {
		t.Fatalf("%d entries, want %d", len(zr.File), len(cases))
	}
	for i, f := range zr.File {
		c := cases[i]
		if f.Name != c.name || f.Method != c.method {
			t.Errorf("entry %d: %s method %d, want %s method %d", i, f.Name, f.Method, c.name, c.method)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc) // archive/zip checks the CRC at EOF
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !bytes.Equal(got, c.content) {
			t.Errorf("%s: content differs (%d bytes, want %d)", f.Name, len(got), len(c.content))
		}
		if c.method == Store {
			// stored data sits at DataOffset, as ReplayWeb.page computes it:
			// local header 30 bytes + name, no extra field
			off, _ := f.DataOffset()
			raw, _ := os.ReadFile(path)
			if int(off)+len(c.content) > len(raw) || !bytes.Equal(raw[off:int(off)+len(c.content)], c.content) {
				t.Errorf("%s: stored bytes not at data offset %d", f.Name, off)
			}
		}
	}
}

func pseudoRandom(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func TestZipWriter(t *testing.T) {
	big := pseudoRandom(3<<20 + 12345)
	cases := []zipCase{
		{name: "archive/data.warc.gz", method: Store, content: big, cut: 700000},
		{name: "archive/small.warc.gz", method: Store, content: []byte("WARC/1.0\r\n"), cut: 3},
		{name: "indexes/index.idx", method: Deflate, content: bytes.Repeat([]byte("com,example)/ 2020 {}\n"), 1000)},
		{name: "empty.txt", method: Store, content: nil},
		{name: "pages/pages.jsonl", method: Deflate, hash: "md5", content: []byte(`{"format":"json-pages-1.0"}` + "\n")},
		{name: "répertoire/été.txt", method: Store, content: []byte("utf-8 name")},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.zip")
	writeZip(t, path, cases)
	checkZip(t, path, cases)
	checkZipPython(t, path, cases)
}

func TestZipWriterZip64(t *testing.T) {
	// Lower the thresholds so the ZIP64 paths run on small data; the
	// layout is the same one a 4 GiB entry or 65535 entries get.
	defer func(a uint64, b int) { zip64Threshold, zip64Records = a, b }(zip64Threshold, zip64Records)
	zip64Threshold, zip64Records = 1000, 3
	var cases []zipCase
	for i := range 5 {
		cases = append(cases, zipCase{name: fmt.Sprintf("archive/%d.warc.gz", i), method: Store, content: pseudoRandom(1500 + i)})
	}
	cases = append(cases, zipCase{name: "small", method: Store, content: []byte("x")})
	path := filepath.Join(t.TempDir(), "z64.zip")
	writeZip(t, path, cases)
	checkZip(t, path, cases)
	raw, _ := os.ReadFile(path)
	if !bytes.Contains(raw, []byte{0x50, 0x4b, 0x06, 0x06}) || !bytes.Contains(raw, []byte{0x50, 0x4b, 0x06, 0x07}) {
		t.Error("no ZIP64 end record / locator")
	}
	checkZipPython(t, path, cases)
}

// zipfileList has Python's zipfile test every CRC (python3 -m zipfile -t)
// and list each entry: its name (as UTF-8, hex: a name without the UTF-8
// flag would be read as CP437), method, size and the SHA-256 of its bytes.
const zipfileList = `
import hashlib, json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    if bad is not None:
        sys.exit("zipfile testzip: first bad entry: " + bad)
    for i in z.infolist():
        print(json.dumps([i.filename.encode("utf-8").hex(), i.compress_type, i.file_size, hashlib.sha256(z.read(i)).hexdigest()]))
`

// checkZipPython checks path with Python's zipfile (a peer: peertest.Need,
// so it fails under CI when python3 is missing): python3 -m zipfile -t
// says only "Done testing", and zipfile lists cases in order with their names (UTF-8),
// methods, sizes and bytes.
func checkZipPython(t *testing.T, path string, cases []zipCase) {
	t.Helper()
	py := peertest.Need(t, "python3", "python3")
	// zipfile -t exits 0 even when it finds a corrupt entry: what it prints is the verdict
	if out, err := exec.Command(py, "-m", "zipfile", "-t", path).CombinedOutput(); err != nil || string(out) != "Done testing\n" {
		t.Errorf("python3 -m zipfile -t: %v\n%s", err, out)
	}
	out, err := exec.Command(py, "-c", zipfileList, path).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 zipfile: %v\n%s", err, out)
	}
	var want bytes.Buffer
	for _, c := range cases {
		s := sha256.Sum256(c.content)
		fmt.Fprintf(&want, "[\"%x\", %d, %d, \"%x\"]\n", c.name, c.method, len(c.content), s)
	}
	if got := string(out); got != want.String() {
		t.Errorf("python3 zipfile lists:\n%s\nwant:\n%s", got, want.String())
	}
}

func TestZipWriterManyEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	// 65536 real entries: the count alone forces the ZIP64 end records.
	path := filepath.Join(t.TempDir(), "many.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := NewZipWriter(f)
	for i := range 65536 {
		e, err := zw.Create(fmt.Sprintf("f%05d", i), Store, "")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(e, "%d", i)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 65536 {
		t.Fatalf("%d entries", len(zr.File))
	}
	rc, _ := zr.File[65535].Open()
	b, _ := io.ReadAll(rc)
	if string(b) != "65535" {
		t.Errorf("last entry %q", b)
	}
}

func TestZipEntryTruncateLimits(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "x.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := NewZipWriter(f)
	e, _ := zw.Create("a", Store, "")
	e.Write(pseudoRandom(3 << 20))
	e.Commit(2 << 20)
	if err := e.Truncate(1 << 20); err == nil {
		t.Error("Truncate below Commit succeeded")
	}
	if err := e.Truncate(4 << 20); err == nil {
		t.Error("Truncate beyond size succeeded")
	}
	d, _ := zw.Create("b", Deflate, "")
	d.Write([]byte("abc"))
	if err := d.Truncate(1); err == nil {
		t.Error("Truncate on deflated entry succeeded")
	}
	if _, err := zw.Create("a", Store, ""); err == nil {
		t.Error("duplicate name accepted")
	}
}

// TestPreparedEntry: an entry compressed ahead with PrepareDeflate and added
// with AddPrepared gives the same zip bytes as one written through Create,
// small (spill in memory) and past 1 MiB compressed (spill in an unlinked
// temporary file, gone afterwards), and archive/zip and unzip read it.
func TestPreparedEntry(t *testing.T) {
	big := make([]byte, 2<<20)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range big {
		big[i] = byte(rng.Uint32()) // does not compress
	}
	small := bytes.Repeat([]byte("{\"url\": \"http://example.com/\"}\n"), 1000)
	for _, hash := range []string{"sha256", "md5"} {
		dir := t.TempDir()
		spillDir := t.TempDir()
		a, b := filepath.Join(dir, "a.zip"), filepath.Join(dir, "b.zip")
		writeZip(t, a, []zipCase{{name: "x", method: Store, hash: hash, content: []byte("first")}, {name: "s", method: Deflate, hash: hash, content: small}, {name: "b", method: Deflate, hash: hash, content: big}})
		f, err := os.Create(b)
		if err != nil {
			t.Fatal(err)
		}
		zw := NewZipWriter(f)
		zw.SetModTime(fixedModTime)
		var hashes []string
		for _, c := range []struct {
			name string
			data []byte
		}{{"s", small}, {"b", big}} {
			p, err := PrepareDeflate(c.name, hash, spillDir, func(w io.Writer) error { _, err := w.Write(c.data); return err })
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if p.Size != int64(len(c.data)) {
				t.Errorf("%s: Size %d, want %d", c.name, p.Size, len(c.data))
			}
			hashes = append(hashes, p.Hash)
			if inFile := p.data.f != nil; inFile != (c.name == "b") {
				t.Errorf("%s: spilled to a file: %v", c.name, inFile)
			}
			if c.name == "s" {
				e, err := zw.Create("x", Store, hash)
				if err != nil {
					t.Fatal(err)
				}
				e.Write([]byte("first"))
			}
			if err := zw.AddPrepared(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if left, _ := os.ReadDir(spillDir); len(left) != 0 {
			t.Errorf("spill files left in the temporary directory: %v", left)
		}
		// both writers were given the same modification time: the DOS time
		// has 2-second steps, and two writers made a moment apart may straddle one
		ab, _ := os.ReadFile(a)
		bb, _ := os.ReadFile(b)
		if !bytes.Equal(ab, bb) {
			t.Errorf("%s: prepared entries: zip differs from one written with Create (%d vs %d bytes)", hash, len(bb), len(ab))
		}
		want := fmt.Sprintf("%x", sha256.Sum256(small))
		if hash == "md5" {
			want = fmt.Sprintf("%x", md5.Sum(small))
		}
		if hashes[0] != hash+":"+want {
			t.Errorf("hash %s, want %s:%s", hashes[0], hash, want)
		}
		zr, err := zip.OpenReader(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, zf := range zr.File[1:] {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatalf("%s: %v", zf.Name, err)
			}
			if want := map[string][]byte{"s": small, "b": big}[zf.Name]; !bytes.Equal(got, want) {
				t.Errorf("%s: content differs", zf.Name)
			}
		}
		zr.Close()
		if out, err := exec.Command("unzip", "-tq", b).CombinedOutput(); err != nil {
			t.Errorf("unzip -t: %v\n%s", err, out)
		}
	}
}
