package htcache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"

	"github.com/arcport/arcport/lib/record"
)

// gardenBytes returns a copy of garden's new.zip and its local headers.
func gardenBytes(t *testing.T) ([]byte, []rawLocal) {
	t.Helper()
	b, err := os.ReadFile(gardenZip)
	if err != nil {
		t.Fatal(err)
	}
	return b, rawLocals(t, b)
}

// entryEnd is where the entry at index i of garden ends.
func entryEnd(b []byte, l rawLocal) int64 {
	cs := int64(binary.LittleEndian.Uint32(b[l.off+18:]))
	return l.off + 30 + int64(len(l.name)+len(l.extra)) + cs
}

// scanAll reads every entry (and its stored body) from b.
func scanAll(t *testing.T, b []byte, opts ...Option) (names []string, bodies [][]byte, sum ScanSummary, problems []*record.Problem, err error) {
	t.Helper()
	opts = append(opts, WithProblemFunc(func(p *record.Problem) { problems = append(problems, p) }))
	z, err := NewZipReader(bytes.NewReader(b), int64(len(b)), "cut.zip", opts...)
	if err != nil {
		return nil, nil, sum, problems, err
	}
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return names, bodies, z.Summary(), problems, err
		}
		rc, _ := e.OpenStored()
		body, rerr := io.ReadAll(rc)
		if rerr != nil {
			body = []byte("ERROR: " + rerr.Error())
		}
		names = append(names, e.Name)
		bodies = append(bodies, body)
	}
	return names, bodies, z.Summary(), problems, nil
}

// TestInterruptedEveryCut cuts garden's new.zip at every length up to the
// end of the central directory (a crawl interrupted before HTTrack closed the
// zip): every entry complete before the cut is recovered, with its body
// intact, and nothing else.
func TestInterruptedEveryCut(t *testing.T) {
	full, locals := gardenBytes(t)
	_, wantBodies, _, _, err := scanAll(t, full)
	if err != nil {
		t.Fatal(err)
	}
	eocd := bytes.LastIndex(full, []byte("PK\x05\x06"))
	for cut := 0; cut < eocd; cut++ {
		b := full[:cut]
		names, bodies, sum, _, err := scanAll(t, b)
		if cut < 4 {
			if !errors.Is(err, ErrNotZip) {
				t.Fatalf("cut %d: %v, want ErrNotZip", cut, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		complete := 0
		for _, l := range locals {
			if entryEnd(full, l) <= int64(cut) {
				complete++
			}
		}
		if len(names) != complete || !sum.Recovered || sum.CentralDirectory {
			t.Fatalf("cut %d: recovered %d entries (summary %+v), want %d", cut, len(names), sum, complete)
		}
		for i := range names {
			if names[i] != locals[i].name || !bytes.Equal(bodies[i], wantBodies[i]) {
				t.Fatalf("cut %d: entry %d %q body %q", cut, i, names[i], bodies[i])
			}
		}
		wantTrunc := int64(-1)
		if complete < len(locals) && int64(cut) > locals[complete].off {
			wantTrunc = locals[complete].off
		}
		if last := entryEnd(full, locals[len(locals)-1]); complete == len(locals) && int64(cut) > last && int64(cut) < last+4 {
			wantTrunc = last // a partial signature: cannot tell it from a cut header
		}
		if sum.TruncatedAt != wantTrunc {
			t.Fatalf("cut %d: TruncatedAt %d, want %d", cut, sum.TruncatedAt, wantTrunc)
		}
	}
}

// TestInterruptedCache: a mirror whose new.zip lost its central directory
// still exports all 14 records through Cache, saying it recovered them.
func TestInterruptedCache(t *testing.T) {
	full, _ := gardenBytes(t)
	dir := copyMirror(t)
	cd := bytes.Index(full, []byte("PK\x01\x02"))
	if err := os.WriteFile(filepath.Join(dir, "hts-cache", "new.zip"), full[:cd], 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rr, err := NewRecordReader(c)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		r, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r.Block)
		n++
	}
	s := c.ScanSummary()
	if n != 14 || !s.Recovered || s.Entries != 14 || s.TruncatedAt != -1 {
		t.Errorf("%d records, summary %+v", n, s)
	}
	// The version still comes from hts-log.txt (the zip comment is gone).
	if c.Log.Version != "3.49-4" {
		t.Errorf("version %q", c.Log.Version)
	}
}

// copyMirror copies the garden mirror into a temporary directory.
func copyMirror(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "garden")
	err := filepath.Walk(gardenDir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(gardenDir, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func put32(b []byte, off int64, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }

// TestHostileZips: damaged and malicious zips give clear problems naming the
// file and offset, never a panic, and every undamaged entry is still read.
func TestHostileZips(t *testing.T) {
	full, locals := gardenBytes(t)
	style := locals[2] // http://127.0.0.1:8766/style.css at 852
	rose := locals[3]
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), full...)) }
	dataOff := func(l rawLocal) int64 { return l.off + 30 + int64(len(l.name)+len(l.extra)) }

	cases := []struct {
		name      string
		zip       []byte
		verify    bool
		entries   int    // entries yielded
		problem   string // substring of the first problem
		problemAt int64
	}{
		{"intact", full, true, 14, "", 0},
		{"csize swallows next entry", mut(func(b []byte) []byte {
			put32(b, style.off+18, uint32(entryEnd(b, rose)-dataOff(style)))
			return b
		}), true, 13, "deflate data ends after 36 of its", style.off},
		{"csize swallows next entry, unverified", mut(func(b []byte) []byte {
			put32(b, style.off+18, uint32(entryEnd(b, rose)-dataOff(style)))
			return b
		}), false, 13, "central directory lists 14 entries, 13 read", 5487},
		{"csize past the end", mut(func(b []byte) []byte {
			put32(b, style.off+18, 0x7fffffff)
			return b
		}), true, 13, "compressed size 2147483647 runs past the central directory", style.off},
		{"size smaller than data", mut(func(b []byte) []byte {
			put32(b, style.off+22, 10)
			return b
		}), true, 13, "data exceeds its declared size 10", style.off},
		{"size larger than data", mut(func(b []byte) []byte {
			put32(b, style.off+22, 35)
			return b
		}), true, 13, "data is 34 bytes, declared 35", style.off},
		{"impossible ratio", mut(func(b []byte) []byte {
			put32(b, style.off+22, 0x7fffffff)
			return b
		}), true, 13, "declared size 2147483647 impossible for 36 deflated bytes", style.off},
		{"bad crc", mut(func(b []byte) []byte {
			put32(b, style.off+14, 0xdeadbeef)
			return b
		}), true, 13, "CRC-32 63b9baf5, declared deadbeef", style.off},
		{"garbage deflate", mut(func(b []byte) []byte {
			copy(b[dataOff(style):], bytes.Repeat([]byte{0xff}, 36))
			return b
		}), true, 13, "flate: corrupt input", style.off},
		{"junk between entries", append(append(append([]byte(nil), full[:rose.off]...), []byte("JUNKJUNKJUNK")...), full[rose.off:]...),
			true, 14, "no local file header signature", rose.off},
		{"bad metadata", mut(func(b []byte) []byte {
			copy(b[style.off+30+int64(len(style.name)):], "XTTP")
			return b
		}), true, 13, `metadata: bad status line "XTTP/1.1 200 OK"`, style.off},
		{"unsupported method", mut(func(b []byte) []byte {
			binary.LittleEndian.PutUint16(b[style.off+8:], 12)
			return b
		}), true, 13, "unsupported compression method 12", style.off},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			names, bodies, _, problems, err := scanAll(t, c.zip, WithVerify(c.verify))
			if err != nil {
				t.Fatal(err)
			}
			if len(names) != c.entries {
				t.Errorf("%d entries, want %d (%q)", len(names), c.entries, names)
			}
			for i, b := range bodies {
				if bytes.HasPrefix(b, []byte("ERROR")) && c.verify {
					t.Errorf("%q: verified entry fails to read: %s", names[i], b)
				}
			}
			if c.problem == "" {
				if len(problems) != 0 {
					t.Errorf("problems %v", problems)
				}
				return
			}
			if len(problems) == 0 {
				t.Fatalf("no problem reported")
			}
			p := problems[0]
			if !strings.Contains(p.Msg, c.problem) || p.Offset != c.problemAt || p.File != "cut.zip" {
				t.Errorf("problem %q, want %q at offset %d", p.Error(), c.problem, c.problemAt)
			}
			// Under Fail the same problem is the error.
			_, _, _, _, err = scanAll(t, c.zip, WithVerify(c.verify), WithPolicy(record.Fail))
			if err == nil || !strings.Contains(err.Error(), c.problem) {
				t.Errorf("Fail policy: %v", err)
			}
		})
	}
}

func TestNotZip(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("PK"), []byte("hello, world, this is not a zip file at all"), bytes.Repeat([]byte{0}, 100)} {
		if _, err := NewZipReader(bytes.NewReader(b), int64(len(b)), "x.zip"); !errors.Is(err, ErrNotZip) {
			t.Errorf("%q: %v", b, err)
		}
	}
}

// TestZipBomb: an entry declaring 1000 bytes whose deflate stream holds
// 64 MiB of zeros stops at 1001 bytes with an error; declaring its real size
// and CRC, the same stream reads through.
func TestZipBomb(t *testing.T) {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	zeros := make([]byte, 1<<20)
	for i := 0; i < 64; i++ {
		fw.Write(zeros)
	}
	fw.Close()
	build := func(usize uint32) []byte {
		text := "HTTP/1.1 200 OK\r\nX-In-Cache: 1\r\nX-StatusCode: 200\r\n"
		name := "http://bomb/"
		h := make([]byte, 30)
		put32(h, 0, sigLocal)
		binary.LittleEndian.PutUint16(h[4:], 20)
		binary.LittleEndian.PutUint16(h[8:], 8)
		put32(h, 18, uint32(comp.Len()))
		put32(h, 22, usize)
		binary.LittleEndian.PutUint16(h[26:], uint16(len(name)))
		binary.LittleEndian.PutUint16(h[28:], uint16(len(text)))
		local := append(append(append(h, name...), text...), comp.Bytes()...)
		cd := make([]byte, 46)
		put32(cd, 0, sigCentral)
		binary.LittleEndian.PutUint16(cd[10:], 8)
		put32(cd, 20, uint32(comp.Len()))
		put32(cd, 24, usize)
		binary.LittleEndian.PutUint16(cd[28:], uint16(len(name)))
		cd = append(cd, name...)
		end := make([]byte, 22)
		put32(end, 0, sigEnd)
		binary.LittleEndian.PutUint16(end[8:], 1)
		binary.LittleEndian.PutUint16(end[10:], 1)
		put32(end, 12, uint32(len(cd)))
		put32(end, 16, uint32(len(local)))
		return append(append(local, cd...), end...)
	}
	b := build(1000)
	z, err := NewZipReader(bytes.NewReader(b), int64(len(b)), "bomb.zip")
	if err != nil {
		t.Fatal(err)
	}
	e, err := z.Next()
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := e.OpenStored()
	n, err := io.Copy(io.Discard, rc)
	if err == nil || !strings.Contains(err.Error(), "bomb.zip: entry at offset 0: data exceeds its declared size 1000") || n > 1001 {
		t.Errorf("read %d bytes, err %v", n, err)
	}
	// Declared truthfully (with its CRC), the same data streams through.
	crc := crc32.NewIEEE()
	for i := 0; i < 64; i++ {
		crc.Write(zeros)
	}
	good := build(64 << 20)
	put32(good, 14, crc.Sum32())
	z, _ = NewZipReader(bytes.NewReader(good), int64(len(good)), "big.zip")
	if e, err = z.Next(); err != nil {
		t.Fatal(err)
	}
	rc, _ = e.OpenStored()
	if n, err := io.Copy(io.Discard, rc); n != 64<<20 || err != nil {
		t.Errorf("truthful entry: %d bytes, %v", n, err)
	}
	// Recovery mode (no central directory) verifies and skips it.
	b = b[:bytes.Index(b, []byte("PK\x01\x02"))]
	_, _, _, problems, err := scanAll(t, b)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0].Msg, "exceeds its declared size") {
		t.Errorf("scan: %v %v", err, problems)
	}
}

// TestXSaveConfinement: X-Save values that leave the mirror root (../,
// absolute paths, symlinks pointing out) are never followed: the body is
// reported missing and the entry is not exported.
func TestXSaveConfinement(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "secret.txt")
	os.WriteFile(secret, []byte("SECRET"), 0o644)
	root := filepath.Join(base, "mirror")
	os.MkdirAll(filepath.Join(root, "hts-cache"), 0o755)
	os.MkdirAll(filepath.Join(root, "site"), 0o755)
	os.WriteFile(filepath.Join(root, "site", "ok.txt"), []byte("fine"), 0o644)
	if err := os.Symlink(secret, filepath.Join(root, "site", "link.txt")); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create(filepath.Join(root, "hts-cache", "new.zip"))
	zw := NewWriter(f)
	saves := []string{"site/ok.txt", "../secret.txt", secret, "site/../../secret.txt", "site/link.txt", `..\secret.txt`}
	for i, s := range saves {
		m := Meta{StatusCode: 200, StatusMessage: "OK", Size: 6, ContentType: "text/plain", Save: s}
		if err := zw.Add("http://x/"+string(rune('a'+i)), &m, nil); err != nil {
			t.Fatal(err)
		}
	}
	zw.Close()
	f.Close()
	var problems []*record.Problem
	c, err := Open(root, WithProblemFunc(func(p *record.Problem) { problems = append(problems, p) }))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	er, _ := c.Entries()
	for i := 0; ; i++ {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		src, _, _ := c.Locate(e)
		body, _, err := c.Body(e)
		if i == 0 {
			if src != BodyExternal || err != nil {
				t.Errorf("%q: %v %v", e.Meta.Save, src, err)
			} else if b, _ := io.ReadAll(body); string(b) != "fine" {
				t.Errorf("ok.txt body %q", b)
			}
			continue
		}
		if src != BodyMissing || !errors.Is(err, ErrMissingBody) {
			t.Errorf("X-Save %q: source %v, err %v: followed outside the root", e.Meta.Save, src, err)
		}
		if body != nil {
			b, _ := io.ReadAll(body)
			if bytes.Contains(b, []byte("SECRET")) {
				t.Errorf("X-Save %q leaked the secret", e.Meta.Save)
			}
		}
	}
	rr, _ := NewRecordReader(c)
	n := 0
	for {
		r, err := rr.Next()
		if err != nil {
			break
		}
		if b, _ := io.ReadAll(r.Block); bytes.Contains(b, []byte("SECRET")) {
			t.Errorf("record %s leaked the secret", r.TargetURI())
		}
		n++
	}
	if n != 1 || rr.Stats.Missing != len(saves)-1 || len(problems) != len(saves)-1 {
		t.Errorf("%d records, stats %+v, problems %v", n, rr.Stats, problems)
	}
}
