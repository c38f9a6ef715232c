package zim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/zimtest"
)

const fixtures = "../../testdata/zim"

func fx(p string) string { return filepath.Join(fixtures, p) }

func mustOpen(t testing.TB, name string, opts ...Option) *Archive {
	t.Helper()
	a, err := Open(name, opts...)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestFixtureStructure asserts what the openzim fixtures are made of:
// versions, namespace scheme, entry and cluster counts, the compression of
// every cluster (XZ in withns, zstd in nons and noTitleListingV0) and the
// title index used.
func TestFixtureStructure(t *testing.T) {
	tests := []struct {
		file                  string
		major, minor          uint16
		newNS                 bool
		entries, user, blobs0 uint32
		comps                 []byte
		titles                uint32
		front                 bool
	}{
		{"withns/small.zim", 5, 0, false, 17, 17, 13, []byte{CompressionXZ, CompressionNone}, 17, false},
		{"nons/small.zim", 6, 1, true, 16, 2, 10, []byte{CompressionZstd, CompressionNone}, 1, true},
		{"noTitleListingV0/small.zim", 6, 3, true, 16, 2, 11, []byte{CompressionZstd, CompressionNone}, 1, true},
		{"withns/wikibooks_be_all_nopic_2017-02.zim", 5, 0, false, 118, 118, 79, []byte{CompressionXZ, CompressionNone}, 118, false},
		{"nons/wikibooks_be_all_nopic_2017-02.zim", 6, 1, true, 123, 109, 79, []byte{CompressionZstd, CompressionNone}, 66, true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			a := mustOpen(t, fx(tc.file))
			h := a.Header()
			if h.MajorVersion != tc.major || h.MinorVersion != tc.minor || a.NewNamespaceScheme() != tc.newNS {
				t.Errorf("version %d.%d newNS %v", h.MajorVersion, h.MinorVersion, a.NewNamespaceScheme())
			}
			if a.EntryCount() != tc.entries || a.UserEntryCount() != tc.user {
				t.Errorf("entries %d user %d", a.EntryCount(), a.UserEntryCount())
			}
			for i, want := range tc.comps {
				c, err := a.ClusterHeader(uint32(i))
				if err != nil {
					t.Fatal(err)
				}
				if c.Compression() != want {
					t.Errorf("cluster %d compression %d, want %d", i, c.Compression(), want)
				}
				if i == 0 && c.BlobCount() != tc.blobs0 {
					t.Errorf("cluster 0 has %d blobs, want %d", c.BlobCount(), tc.blobs0)
				}
			}
			if n, front := a.TitleIndexCount(); n != tc.titles || front != tc.front {
				t.Errorf("title index %d front %v", n, front)
			}
			if err := a.VerifyChecksum(); err != nil {
				t.Errorf("checksum: %v", err)
			}
			if ps := a.Check(CheckOptions{Checksum: true, Clusters: true}); len(ps) != 0 {
				t.Errorf("problems: %v", ps)
			}
		})
	}
}

// TestBlobContent checks blob bytes against sha256 sums of what openzim
// `zimdump show` prints, for XZ (withns), zstd (nons, noTitleListingV0) and
// uncompressed clusters.
func TestBlobContent(t *testing.T) {
	tests := []struct{ file, path, sum string }{
		{"withns/small.zim", "A/main.html", "8cc715ee4a4d923be832972e117c964b65cb22b4ecccd531b663f451f93a9260"},
		{"withns/small.zim", "I/favicon.png", "b600e5eae0a12841bc2c34e39088491adce51f666ac3f0b38bfa1dc90c6ed36a"},
		{"nons/small.zim", "main.html", "8cc715ee4a4d923be832972e117c964b65cb22b4ecccd531b663f451f93a9260"},
		{"nons/small.zim", "favicon.png", "b600e5eae0a12841bc2c34e39088491adce51f666ac3f0b38bfa1dc90c6ed36a"},
		{"withns/wikibooks_be_all_nopic_2017-02.zim", "-/s/style.css", "0d3be4f9c9f2a0ed1c61a374fa56ed7389d4bb0d8840cf22f9d7ab97c4c00a0d"},
		{"withns/wikibooks_be_all_nopic_2017-02.zim", "-/j/head.js", "cebd57af572460f50be82592e650bc5e3db560cfbc7538d65bb93bc2dfa5acbe"},
		{"nons/wikibooks_be_all_nopic_2017-02.zim", "Першая_старонка.html", "bf8cc42ab96954b609206c67b35745c79ad7a05c00a07f7a21378530d786b9f9"},
		{"noTitleListingV0/wikibooks_be_all_nopic_2017-02.zim", "Першая_старонка.html", "bf8cc42ab96954b609206c67b35745c79ad7a05c00a07f7a21378530d786b9f9"},
	}
	for _, tc := range tests {
		a := mustOpen(t, fx(tc.file))
		e, err := a.EntryByPath(tc.path)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.file, tc.path, err)
		}
		b, err := a.ReadBlob(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := sha(b); got != tc.sum {
			t.Errorf("%s %s: sha256 %s, want %s", tc.file, tc.path, got, tc.sum)
		}
	}
}

// allBlobs returns path -> sha256 of every user item, read through
// OpenBlob in efficient order.
func allBlobs(t *testing.T, a *Archive) map[string]string {
	t.Helper()
	out := map[string]string{}
	order, err := a.EfficientOrder()
	if err != nil {
		t.Fatal(err)
	}
	for _, idx := range order {
		e, err := a.EntryAt(idx)
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != KindItem {
			out[a.PathOf(e)] = "redirect"
			continue
		}
		r, _, err := a.OpenBlob(e)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[a.PathOf(e)] = sha(b)
	}
	return out
}

func sameMaps(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d entries, want %d", what, len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: %s differs", what, k)
		}
	}
}

// TestSplitArchives opens the split fixtures by the .zim name (libzim's
// rule) and by their first part, and reads the same entries and bytes as
// the whole file.
func TestSplitArchives(t *testing.T) {
	for _, v := range []string{"withns", "nons", "noTitleListingV0"} {
		whole := allBlobs(t, mustOpen(t, fx(v+"/wikibooks_be_all_nopic_2017-02.zim")))
		for _, name := range []string{"wikibooks_be_all_nopic_2017-02_splitted.zim", "wikibooks_be_all_nopic_2017-02_splitted.zimaa"} {
			a := mustOpen(t, fx(v+"/"+name))
			if len(a.Parts()) != 3 {
				t.Errorf("%s/%s: parts %v", v, name, a.Parts())
			}
			sameMaps(t, v+"/"+name, allBlobs(t, a), whole)
			if err := a.VerifyChecksum(); err != nil {
				t.Errorf("%s/%s: %v", v, name, err)
			}
		}
	}
	if _, err := Open(fx("nons/nothing.zim")); err == nil || !strings.Contains(err.Error(), `error 2 opening file "`) {
		t.Errorf("missing file: %v", err)
	}
}

// TestEmbedded reads small.zim.embedded (the archive at offset 8) and
// small.zim.embedded.multi (2048-byte sections separated by markers, as in
// libzim's tests) and compares with small.zim.
func TestEmbedded(t *testing.T) {
	for _, v := range []string{"withns", "nons", "noTitleListingV0"} {
		st, err := os.Stat(fx(v + "/small.zim"))
		if err != nil {
			t.Fatal(err)
		}
		whole := allBlobs(t, mustOpen(t, fx(v+"/small.zim")))
		a, err := OpenEmbedded(fx(v+"/small.zim.embedded"), 8, st.Size())
		if err != nil {
			t.Fatalf("%s embedded: %v", v, err)
		}
		sameMaps(t, v+" embedded", allBlobs(t, a), whole)
		if err := a.VerifyChecksum(); err != nil {
			t.Errorf("%s embedded checksum: %v", v, err)
		}
		a.Close()

		f, err := os.Open(fx(v + "/small.zim.embedded.multi"))
		if err != nil {
			t.Fatal(err)
		}
		var rs []io.ReaderAt
		var sizes []int64
		start, left := int64(len("BEGINZIMMULTIPART")), st.Size()
		for left > 2048 {
			rs, sizes = append(rs, io.NewSectionReader(f, start, 2048)), append(sizes, 2048)
			start += 2048 + int64(len("NEWSECTIONZIMMULTI"))
			left -= 2048
		}
		rs, sizes = append(rs, io.NewSectionReader(f, start, left)), append(sizes, left)
		m := NewMultiReaderAt(rs, sizes)
		a, err = New(m, m.Size(), WithName("multi"))
		if err != nil {
			t.Fatalf("%s multi: %v", v, err)
		}
		sameMaps(t, v+" multi", allBlobs(t, a), whole)
		if err := a.VerifyChecksum(); err != nil {
			t.Errorf("%s multi checksum: %v", v, err)
		}
		f.Close()
	}
}

func build(t testing.TB, s zimtest.Spec) []byte {
	t.Helper()
	b, _, err := zimtest.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openBytes(t testing.TB, b []byte, opts ...Option) *Archive {
	t.Helper()
	a, err := New(bytes.NewReader(b), int64(len(b)), append([]Option{WithName("mem.zim")}, opts...)...)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return a
}

var big = bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB

func synthetic(comp byte, extended bool) zimtest.Spec {
	return zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: comp, Extended: extended}, {Comp: 1}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "index.html", Title: "Home", Mime: "text/html", Data: []byte("<p>home</p>")},
			{NS: 'C', Path: "big.bin", Mime: "application/octet-stream", Data: big},
			{NS: 'C', Path: "empty", Mime: "text/plain", Data: nil},
			{NS: 'C', Path: "img.png", Mime: "image/png", Data: []byte("\x89PNG"), Cluster: 1},
			{NS: 'C', Path: "old", Deprecated: true},
			{NS: 'C', Path: "go", Target: "C/index.html"},
			{NS: 'M', Path: "Title", Mime: "text/plain", Data: []byte("Synthetic")},
			{NS: 'M', Path: "Illustration_48x48@1", Mime: "image/png", Data: []byte("\x89PNG"), Cluster: 1},
			{NS: 'W', Path: "mainPage", Target: "C/go"},
		},
		MainPage: "W/mainPage",
	}
}

// TestSyntheticClusters reads archives built in memory with every cluster
// kind: uncompressed (0 and 1), XZ and zstd, normal and extended (8-byte
// offsets), with deprecated dirents, redirect chains, W/mainPage and an
// illustration.
func TestSyntheticClusters(t *testing.T) {
	for _, tc := range []struct {
		comp byte
		ext  bool
	}{{0, false}, {1, false}, {1, true}, {4, false}, {4, true}, {5, false}, {5, true}} {
		a := openBytes(t, build(t, synthetic(tc.comp, tc.ext)))
		c, err := a.Cluster(0)
		if err != nil {
			t.Fatal(err)
		}
		if c.Compression() != tc.comp || c.Extended() != tc.ext {
			t.Errorf("cluster info %#x", c.Info)
		}
		e, err := a.EntryByPath("big.bin")
		if err != nil {
			t.Fatal(err)
		}
		b, err := a.ReadBlob(e)
		if err != nil || !bytes.Equal(b, big) {
			t.Fatalf("comp %d ext %v: big.bin: %v (%d bytes)", tc.comp, tc.ext, err, len(b))
		}
		m, err := a.MainEntry()
		if err != nil {
			t.Fatal(err)
		}
		r, err := a.Resolve(m)
		if err != nil || a.PathOf(r) != "index.html" {
			t.Fatalf("main page: %v %v", r, err)
		}
		ill, err := a.Illustration(48)
		if err != nil || a.PathOf(ill) != "Illustration_48x48@1" {
			t.Fatalf("illustration: %v", err)
		}
		if v, err := a.Metadata("Title"); err != nil || string(v) != "Synthetic" {
			t.Fatalf("metadata: %q %v", v, err)
		}
		if a.UserEntryCount() != 6 {
			t.Errorf("user entries %d", a.UserEntryCount())
		}
		old, err := a.EntryByPath("old")
		if err != nil || old.Kind != KindDeprecated {
			t.Errorf("deprecated entry: %+v %v", old, err)
		}
		if ps := a.Check(CheckOptions{Checksum: true, Clusters: true}); len(ps) != 0 {
			t.Errorf("problems: %v", ps)
		}
	}
}

// TestOldHeader72 reads a version 5 archive whose header is 72 bytes long
// (mimeListPos 72, no checksum) with the old namespaces.
func TestOldHeader72(t *testing.T) {
	s := zimtest.Spec{Major: 5, Minor: 0, Header72: true,
		Clusters: []zimtest.Cluster{{Comp: 1}},
		Entries: []zimtest.Entry{
			{NS: 'A', Path: "main.html", Title: "Main", Mime: "text/html", Data: []byte("main")},
			{NS: '-', Path: "favicon", Target: "I/favicon.png"},
			{NS: 'I', Path: "favicon.png", Mime: "image/png", Data: []byte("png")},
		},
		MainPage: "A/main.html",
	}
	a := openBytes(t, build(t, s))
	if a.Header().HasChecksum() || a.NewNamespaceScheme() {
		t.Fatal("want no checksum, old namespaces")
	}
	if _, ok := a.Checksum(); ok {
		t.Error("checksum reported")
	}
	fav, err := a.Illustration(48)
	if err != nil || a.PathOf(fav) != "I/favicon.png" {
		t.Fatalf("favicon %v %v", fav, err)
	}
	e, err := a.EntryByPath("main.html") // old-scheme fallback to A/
	if err != nil || e.LongPath() != "A/main.html" {
		t.Fatalf("fallback lookup: %v", err)
	}
	if got := a.MimeTypes(); strings.Join(got, ",") != "text/html,image/png" {
		t.Errorf("mime types %v", got)
	}
}

// TestHostileClusters patches cluster offset tables: a cluster claiming 4
// GB of offsets or of data is refused with a message, not allocated.
func TestHostileClusters(t *testing.T) {
	le32 := func(b []byte, v uint32) { b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24) }
	tests := []struct {
		name  string
		comp  byte
		patch func(b []byte, o zimtest.Offsets)
		want  string
	}{
		{"first offset 4GB", 1, func(b []byte, o zimtest.Offsets) { le32(b[o.Clusters[0]+1:], 0xFFFFFFFC) }, "claims 1073741822 blobs"},
		{"first offset 0", 1, func(b []byte, o zimtest.Offsets) { le32(b[o.Clusters[0]+1:], 0) }, "smaller than the offset size"},
		{"decreasing", 1, func(b []byte, o zimtest.Offsets) { le32(b[o.Clusters[0]+1+4:], 1) }, "smaller than the previous one"},
		{"end 4GB", 1, func(b []byte, o zimtest.Offsets) { le32(b[o.Clusters[0]+1+12:], 0xFFFFFFF0) }, "extends beyond the end of the archive"},
		{"cluster beyond file", 1, func(b []byte, o zimtest.Offsets) { b[o.ClusterPtr] = 0xFF; b[o.ClusterPtr+3] = 0x7F }, "last cluster offset"},
		{"bad compression", 1, func(b []byte, o zimtest.Offsets) { b[o.Clusters[0]] = 9 }, "Invalid compression flag"},
		{"zlib", 1, func(b []byte, o zimtest.Offsets) { b[o.Clusters[0]] = 2 }, "zlib not enabled"},
		{"xz garbage", 4, func(b []byte, o zimtest.Offsets) { copy(b[o.Clusters[0]+1:], "garbage!!!!!!!!") }, "xz: bad stream header"},
		{"zstd garbage", 5, func(b []byte, o zimtest.Offsets) { copy(b[o.Clusters[0]+1:], "garbage!!!!!!!!") }, "cluster 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := synthetic(tc.comp, false)
			s.Entries = s.Entries[:3] // index.html, big.bin, empty in cluster 0
			s.MainPage = ""
			s.Clusters = s.Clusters[:1]
			s.Patch = tc.patch
			b := build(t, s)
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			var err error
			a, err := New(bytes.NewReader(b), int64(len(b)), WithName("hostile.zim"))
			if err == nil {
				for _, p := range []string{"big.bin", "index.html", "empty"} {
					e, ferr := a.EntryByPath(p)
					if ferr != nil {
						t.Fatal(ferr)
					}
					if _, err = a.ReadBlob(e); err != nil {
						break
					}
				}
			}
			runtime.ReadMemStats(&m1)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "hostile.zim: ") {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if d := m1.TotalAlloc - m0.TotalAlloc; d > 64<<20 {
				t.Errorf("allocated %d bytes", d)
			}
		})
	}
}

// TestLargeClusterStreamed: a compressed cluster larger than the
// in-memory limit is never cached; its blobs are streamed.
func TestLargeClusterStreamed(t *testing.T) {
	a := openBytes(t, build(t, synthetic(5, false)), WithMaxInMemoryCluster(64<<10))
	e, err := a.EntryByPath("big.bin")
	if err != nil {
		t.Fatal(err)
	}
	r, size, err := a.OpenBlob(e)
	if err != nil || size != int64(len(big)) {
		t.Fatal(err, size)
	}
	if _, ok := r.(*blobStream); !ok {
		t.Errorf("reader %T, want a stream", r)
	}
	b, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(b, big) {
		t.Fatalf("streamed blob: %v", err)
	}
	if a.clusters.dat.l.Len() != 0 {
		t.Errorf("large cluster cached")
	}
}

// TestClusterCacheBounded: the cache never holds more clusters than asked.
func TestClusterCacheBounded(t *testing.T) {
	s := zimtest.Spec{}
	for i := 0; i < 10; i++ {
		s.Clusters = append(s.Clusters, zimtest.Cluster{Comp: 5})
		s.Entries = append(s.Entries, zimtest.Entry{NS: 'C', Path: string(rune('a' + i)), Mime: "text/plain", Data: []byte{byte(i)}, Cluster: i})
	}
	a := openBytes(t, build(t, s), WithClusterCache(3, 1<<20))
	for round := 0; round < 2; round++ {
		for i := 0; i < 10; i++ {
			e, err := a.EntryAt(uint32(i))
			if err != nil {
				t.Fatal(err)
			}
			b, err := a.ReadBlob(e)
			if err != nil || len(b) != 1 || b[0] != byte(i) {
				t.Fatalf("entry %d: %v %v", i, b, err)
			}
			if n := a.clusters.dat.l.Len(); n > 3 {
				t.Fatalf("cache holds %d clusters", n)
			}
		}
	}
}

// TestInvalidFixturesRefused: every invalid.*.zim is either refused at
// open or has problems reported by Check; nothing panics while every
// entry and blob is visited.
func TestInvalidFixturesRefused(t *testing.T) {
	files, _ := filepath.Glob(fx("*/invalid.*.zim"))
	if len(files) != 44 {
		t.Fatalf("%d invalid fixtures, want 44", len(files))
	}
	for _, f := range files {
		a, err := Open(f)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != f || fe.Msg == "" {
				t.Errorf("%s: error %T %v", f, err, err)
			}
			continue
		}
		visitAll(a, 1<<30)
		if ps := a.Check(CheckOptions{Checksum: true, Clusters: true}); len(ps) == 0 {
			t.Errorf("%s: no problem found", f)
		}
		a.Close()
	}
}

// visitAll touches everything the reader offers, ignoring errors.
func visitAll(a *Archive, maxBlobs int) {
	a.MainEntry()
	a.Illustration(48)
	a.IllustrationSizes()
	a.MetadataEntries()
	a.EfficientOrder()
	n := a.EntryCount()
	if n > 2000 {
		n = 2000
	}
	for i := uint32(0); i < n; i++ {
		e, err := a.EntryAt(i)
		if err != nil {
			continue
		}
		a.MimeType(e)
		a.BlobSize(e)
		a.Resolve(e)
		if int(i) < maxBlobs {
			if r, _, err := a.OpenBlob(e); err == nil {
				io.Copy(io.Discard, io.LimitReader(r, 1<<20))
				r.Close()
			}
		}
		a.EntryByPath(e.Path)
		a.FindByPrefix(e.Path)
	}
	for i := uint32(0); i < 50; i++ {
		if _, err := a.EntryIndexByTitle(i); err != nil {
			break
		}
	}
}

func TestRelativePathAndStub(t *testing.T) {
	tests := []struct{ base, target, want string }{
		{"a/b/c.html", "a/b/d.html", "d.html"},
		{"redir.html", "a/b/c.html", "a/b/c.html"},
		{"-/favicon", "I/favicon.png", "../I/favicon.png"},
		{"deep/er/redir.html", "q?x=1&y=2.html", "../../q?x=1&y=2.html"},
		{"a/b", "a/b/", "b/"},
		{"a/b/", "a/b/", "./"},
		{"a/x", "a/b/", "b/"},
		{"a/b/c", "a", "../.."}, // zim-tools quirk, kept
	}
	for _, tc := range tests {
		if got := ComputeRelativePath(tc.base, tc.target); got != tc.want {
			t.Errorf("ComputeRelativePath(%q, %q) = %q, want %q", tc.base, tc.target, got, tc.want)
		}
	}
	want := `<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8" /><meta http-equiv="refresh" content="0;url=../../q%3Fx%3D1%26y%3D2.html" /></head><body></body></html>`
	if got := RedirectHTML("../../q?x=1&y=2.html"); got != want {
		t.Errorf("RedirectHTML = %s", got)
	}
	if got := RedirectHTML("dé jà/ü.html"); got != `<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8" /><meta http-equiv="refresh" content="0;url=d%C3%A9%20j%C3%A0/%C3%BC.html" /></head><body></body></html>` {
		t.Errorf("RedirectHTML unicode = %s", got)
	}
}

func TestSafeRelPath(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"a/b/c.html", "a/b/c.html", true},
		{"../x", "%2E%2E/x", true},
		{"/abs", "abs", true},
		{"a/../../x", "a/%2E%2E/%2E%2E/x", true},
		{"./dot.html", "dot.html", true},
		{"x//y", "x/y", true},
		{"..", "%2E%2E", true},
		{"a/", "a", false},
		{"", "", false},
		{"a/.", "a", false},
	}
	for _, tc := range tests {
		got, ok := SafeRelPath(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("SafeRelPath(%q) = %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestConcurrentReads reads every blob from 8 goroutines at once through a
// small cache; run with -race.
func TestConcurrentReads(t *testing.T) {
	a := mustOpen(t, fx("nons/wikibooks_be_all_nopic_2017-02.zim"), WithClusterCache(1, 1<<20))
	want := allBlobs(t, mustOpen(t, fx("nons/wikibooks_be_all_nopic_2017-02.zim")))
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			var err error
			start, end := a.UserRange()
			for i := start; i < end && err == nil; i++ {
				var e *Entry
				if e, err = a.EntryAt(start + (i-start+uint32(g)*7)%(end-start)); err != nil || e.Kind != KindItem {
					continue
				}
				var b []byte
				if b, err = a.ReadBlob(e); err == nil && sha(b) != want[a.PathOf(e)] {
					err = errors.New("content differs for " + a.PathOf(e))
				}
			}
			errs <- err
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
