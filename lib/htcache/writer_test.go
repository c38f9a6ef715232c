package htcache

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/record"
)

// localHeaders parses the local file headers of a zip the plain way (as the
// spec describes them), for checking bytes independently of ZipReader.
type rawLocal struct {
	off          int64
	flags, meth  uint16
	mtime, mdate uint16
	name, extra  string
}

func rawLocals(t *testing.T, b []byte) []rawLocal {
	t.Helper()
	var out []rawLocal
	off := 0
	for off+30 <= len(b) && binary.LittleEndian.Uint32(b[off:]) == sigLocal {
		h := b[off:]
		flags := binary.LittleEndian.Uint16(h[6:])
		cs := int(binary.LittleEndian.Uint32(h[18:]))
		nl := int(binary.LittleEndian.Uint16(h[26:]))
		el := int(binary.LittleEndian.Uint16(h[28:]))
		out = append(out, rawLocal{int64(off), flags, binary.LittleEndian.Uint16(h[8:]),
			binary.LittleEndian.Uint16(h[10:]), binary.LittleEndian.Uint16(h[12:]),
			string(h[30 : 30+nl]), string(h[30+nl : 30+nl+el])})
		off += 30 + nl + el + cs
		if flags&flagDescriptor != 0 {
			return out // sizes unknown here
		}
	}
	return out
}

// TestMetaFormatGarden: formatting the parsed metadata of every garden entry
// gives back the extra field HTTrack 3.49 wrote, byte for byte.
func TestMetaFormatGarden(t *testing.T) {
	raw, err := os.ReadFile(gardenZip)
	if err != nil {
		t.Fatal(err)
	}
	locals := rawLocals(t, raw)
	if len(locals) != 14 {
		t.Fatalf("%d local headers", len(locals))
	}
	for _, l := range locals {
		m, err := ParseMeta([]byte(l.extra))
		if err != nil {
			t.Fatalf("%q: %v", l.name, err)
		}
		got, err := m.Format()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != l.extra {
			t.Errorf("%q:\n got %q\nwant %q", l.name, got, l.extra)
		}
	}
}

// nonSeeker hides Seek, forcing data descriptors.
type nonSeeker struct{ io.Writer }

// copyGarden writes every garden entry through Writer onto w.
func copyGarden(t *testing.T, w io.Writer) {
	t.Helper()
	copyCache(t, openGarden(t), w)
}

// copyCache writes every entry of c, with its stored data and c's zip
// comment, through Writer onto w.
func copyCache(t *testing.T, c *Cache, w io.Writer) {
	t.Helper()
	er, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	zw := NewWriter(w)
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rc, err := e.OpenStored()
		if err != nil {
			t.Fatal(err)
		}
		if err := zw.Add(e.Name, &e.Meta, rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
	}
	if err := zw.SetComment(c.ScanSummary().Comment); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWriterRoundTrip rewrites the garden cache with Writer (patched local
// headers on a file, data descriptors on a pipe-like writer) and checks:
// local headers (name, extra, time, method) equal HTTrack's, our reader reads
// the same entries and bodies back, archive/zip and unzip (a peer:
// peertest, failing under CI without it) judge it as they judge HTTrack's:
// unzip -t's verdict, zipinfo's listing and every entry's bytes.
func TestWriterRoundTrip(t *testing.T) {
	orig, err := os.ReadFile(gardenZip)
	if err != nil {
		t.Fatal(err)
	}
	origLocals := rawLocals(t, orig)
	for _, mode := range []string{"seek", "descriptor"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "new.zip")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if mode == "seek" {
				copyGarden(t, f)
			} else {
				copyGarden(t, nonSeeker{f})
			}
			f.Close()
			b, _ := os.ReadFile(p)
			if mode == "seek" {
				locals := rawLocals(t, b)
				if len(locals) != len(origLocals) {
					t.Fatalf("%d local headers, want %d", len(locals), len(origLocals))
				}
				for i, l := range locals {
					o := origLocals[i]
					if l.name != o.name || l.extra != o.extra || l.mtime != o.mtime || l.mdate != o.mdate || l.meth != o.meth || l.flags != o.flags {
						t.Errorf("entry %d: local header %+v, HTTrack wrote %+v", i, l, o)
					}
				}
			}
			// Our reader, verifying every CRC.
			z, err := NewZipReader(bytes.NewReader(b), int64(len(b)), p, WithVerify(true), WithPolicy(record.Fail))
			if err != nil {
				t.Fatal(err)
			}
			oz, _ := NewZipReader(bytes.NewReader(orig), int64(len(orig)), gardenZip)
			for i := 0; ; i++ {
				e, err := z.Next()
				oe, oerr := oz.Next()
				if err == io.EOF && oerr == io.EOF {
					break
				}
				if err != nil || oerr != nil {
					t.Fatalf("entry %d: %v / %v", i, err, oerr)
				}
				if e.Name != oe.Name || e.CRC32 != oe.CRC32 || e.StoredSize != oe.StoredSize || !e.Modified.Equal(oe.Modified) {
					t.Errorf("entry %d: %q crc %08x size %d time %v; want %q %08x %d %v", i, e.Name, e.CRC32, e.StoredSize, e.Modified,
						oe.Name, oe.CRC32, oe.StoredSize, oe.Modified)
				}
				if fmt.Sprint(e.Meta) != fmt.Sprint(oe.Meta) {
					t.Errorf("entry %d: meta %+v, want %+v", i, e.Meta, oe.Meta)
				}
			}
			if s := z.Summary(); s.Entries != 14 || s.CentralEntries != 14 || s.Comment != oz.Summary().Comment {
				t.Errorf("summary %+v", s)
			}
			// Peers judge our file exactly as they judge HTTrack's: archive/zip
			// (central directory, CRCs) refuses only the entry named ".../"
			// (it takes it for a directory), unzip -t complains about the
			// text extra fields and tests every entry.
			if got, want := archiveZipVerdict(t, p), archiveZipVerdict(t, gardenZip); got != want {
				t.Errorf("archive/zip verdict on our file:\n%s\non HTTrack's:\n%s", got, want)
			}
			unzip := peertest.Need(t, "unzip", "unzip")
			want := unzipVerdict(t, unzip, gardenZip)
			if n := strings.Count(want, "testing: "); n != 14 {
				t.Fatalf("unzip -t tests %d entries of HTTrack's cache, want 14:\n%s", n, want)
			}
			if got := unzipVerdict(t, unzip, p); got != want {
				t.Errorf("unzip on our file:\n%s\non HTTrack's:\n%s", got, want)
			}
		})
	}
}

// TestWriterManyEntries: 70000 entries need the 0xffff count and a ZIP64
// end record; our reader and archive/zip both see them all.
func TestWriterManyEntries(t *testing.T) {
	const n = 70000
	p := filepath.Join(t.TempDir(), "new.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := NewWriter(f)
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("<p>%d</p>", i)
		m := Meta{InCache: true, StatusCode: 200, StatusMessage: "OK", Size: int64(len(body)), ContentType: "text/html",
			Addr: "example.com", Fil: fmt.Sprintf("/p/%d.html", i), Save: fmt.Sprintf("example.com/p/%d.html", i)}
		if err := zw.Add(fmt.Sprintf("http://example.com/p/%d.html", i), &m, bytes.NewReader([]byte(body))); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, _ = os.Open(p)
	defer f.Close()
	st, _ := f.Stat()
	z, err := NewZipReader(f, st.Size(), p)
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	var last *Entry
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		count++
		last = e
	}
	s := z.Summary()
	if count != n || s.CentralEntries != n || !s.ZIP64 {
		t.Fatalf("read %d entries, central %d, zip64 %v", count, s.CentralEntries, s.ZIP64)
	}
	rc, _ := last.OpenStored()
	if b, _ := io.ReadAll(rc); string(b) != fmt.Sprintf("<p>%d</p>", n-1) {
		t.Errorf("last body %q", b)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != n {
		t.Errorf("archive/zip sees %d files", len(zr.File))
	}
}

func TestWriterRefusesBadInput(t *testing.T) {
	zw := NewWriter(io.Discard)
	cases := []struct {
		name string
		m    Meta
		body string
	}{
		{"http://x/crlf", Meta{StatusCode: 200, Location: "a\r\nX-Save: /etc/passwd"}, ""},
		{"http://x/short", Meta{InCache: true, StatusCode: 200, Size: 10}, "abc"},
		{"http://x/long", Meta{InCache: true, StatusCode: 200, Size: 2}, "abc"},
		{"http://x/external", Meta{InCache: false, StatusCode: 200, Size: 3, Save: "x/external"}, "abc"},
	}
	for _, c := range cases {
		zw = NewWriter(io.Discard)
		err := zw.Add(c.name, &c.m, bytes.NewReader([]byte(c.body)))
		if err == nil {
			err = zw.Close()
		}
		if err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

// archiveZipVerdict lists what archive/zip says of each entry of a zip.
func archiveZipVerdict(t *testing.T, p string) string {
	t.Helper()
	zr, err := zip.OpenReader(p)
	if err != nil {
		return "open: " + err.Error()
	}
	defer zr.Close()
	var b strings.Builder
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		fmt.Fprintf(&b, "%q %08x %d: %v\n", zf.Name, zf.CRC32, zf.UncompressedSize64, err)
	}
	return b.String()
}

// unzipVerdict runs unzip (the path given) on p and returns what it says:
// the verdict lines of unzip -t (not the file name) and its exit status;
// the entry listing of zipinfo -l (name, size, method, date, attributes
// of every entry); and the SHA-256 of every entry's bytes extracted with
// unzip -p, in order.
func unzipVerdict(t *testing.T, unzip, p string) string {
	t.Helper()
	out, err := exec.Command(unzip, "-t", p).CombinedOutput()
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "testing:") || strings.Contains(l, "EF block") || strings.Contains(l, "error") {
			keep = append(keep, strings.ReplaceAll(l, p, "ZIP"))
		}
	}
	list, lerr := exec.Command(unzip, "-Zl", p).Output()
	lines := strings.Split(string(list), "\n")
	if lerr != nil || len(lines) < 3 {
		t.Fatalf("unzip -Zl %s: %v\n%s", p, lerr, list)
	}
	all, perr := exec.Command(unzip, "-p", p).Output() // every entry, in order
	var entries []string
	for _, l := range lines[2:] {
		// the text/binary flag and compressed size are the deflater's
		// (ours compresses again), not part of the verdict
		if f := strings.Fields(l); len(f) >= 10 && strings.Contains(f[1], ".") {
			l = strings.Join(append(f[:4:4], f[6:]...), " ")
		} else if i := strings.Index(l, " uncompressed"); i >= 0 {
			l = l[:i]
		}
		entries = append(entries, l)
	}
	return fmt.Sprintf("unzip -t: %v\n%s\nzipinfo -l:\n%s\nunzip -p: %v, %d bytes, sha256 %x", err, strings.Join(keep, "\n"),
		strings.Join(entries, "\n"), perr, len(all), sha256.Sum256(all))
}
