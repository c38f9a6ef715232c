package zim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/arcport/arcport/lib/internal/zimtest"
)

// checkBytes opens b and returns what Check (checksum and clusters) finds.
func checkBytes(t *testing.T, b []byte) (*Archive, []Problem) {
	t.Helper()
	a := openBytes(t, b)
	return a, a.Check(CheckOptions{Checksum: true, Clusters: true})
}

// wantProblem fails unless ps has a problem at offset off containing msg.
func wantProblem(t *testing.T, ps []Problem, off int64, msg string) {
	t.Helper()
	for _, p := range ps {
		if p.Offset == off && strings.Contains(p.Msg, msg) {
			return
		}
	}
	t.Errorf("no problem at offset %d with %q; got %v", off, msg, ps)
}

func le64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }
func le32(b []byte, v uint32) { binary.LittleEndian.PutUint32(b, v) }

// dirent returns the path index of "N/path" in a built archive of s.
func direntOff(t *testing.T, s zimtest.Spec, o zimtest.Offsets, long string) int64 {
	t.Helper()
	var names []string
	for _, e := range s.Entries {
		names = append(names, string(e.NS)+"/"+e.Path)
	}
	// zimtest sorts entries by long path (stable); so does this.
	sorted := append([]string(nil), names...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	for i, n := range sorted {
		if n == long {
			return int64(o.Dirents[i])
		}
	}
	t.Fatalf("no entry %s", long)
	return 0
}

// TestCheckRedirectLoops: a redirect cycle (C/a -> C/b -> C/a) and a
// self-redirect are problems, one line per loop at the dirent of its
// first member; listing the entries still works.
func TestCheckRedirectLoops(t *testing.T) {
	s := zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: 1}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "a", Target: "C/b"},
			{NS: 'C', Path: "b", Target: "C/a"},
			{NS: 'C', Path: "into", Target: "C/a"},
			{NS: 'C', Path: "self", Target: "C/self"},
			{NS: 'C', Path: "x", Mime: "text/plain", Data: []byte("x")},
			{NS: 'C', Path: "y", Target: "C/x"},
		},
	}
	b, o, err := zimtest.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	a, ps := checkBytes(t, b)
	wantProblem(t, ps, direntOff(t, s, o, "C/a"), "redirect loop: C/a -> C/b -> C/a")
	wantProblem(t, ps, direntOff(t, s, o, "C/self"), "redirect loop: C/self -> C/self")
	if len(ps) != 2 {
		t.Errorf("want 2 problems (one per loop), got %v", ps)
	}
	n := 0
	if err := a.Entries(0, a.EntryCount(), func(*Entry) error { n++; return nil }); err != nil || n != 6 {
		t.Errorf("listing: %d entries, %v", n, err)
	}
}

// TestCheckSharedBlob: entries whose dirents name the same cluster and
// blob are a problem (one line per blob, at its first entry); each still
// reads.
func TestCheckSharedBlob(t *testing.T) {
	s := zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: 1}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "a", Mime: "text/plain", Data: []byte("aa")},
			{NS: 'C', Path: "b", Mime: "text/plain", Data: []byte("bb")},
			{NS: 'C', Path: "c", Mime: "text/plain", Data: []byte("cc")},
		},
		Patch: func(b []byte, o zimtest.Offsets) {
			for _, d := range o.Dirents {
				le32(b[d+12:], 0) // blob 0
			}
		},
	}
	b, o, err := zimtest.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	a, ps := checkBytes(t, b)
	wantProblem(t, ps, direntOff(t, s, o, "C/a"), "cluster 0 blob 0 is the data of 3 entries: C/a, C/b, C/c")
	if len(ps) != 1 {
		t.Errorf("want 1 problem, got %v", ps)
	}
	e, err := a.EntryByPath("c")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := a.ReadBlob(e); err != nil || string(d) != "aa" {
		t.Errorf("C/c reads %q, %v", d, err)
	}

	// two aliases among four entries (libzim's addAlias): no problem
	s.Entries = append(s.Entries, zimtest.Entry{NS: 'C', Path: "d", Mime: "text/plain", Data: []byte("dd")})
	s.Patch = func(b []byte, o zimtest.Offsets) {
		le32(b[o.Dirents[1]+12:], 0) // C/b shares C/a's blob
	}
	if b, _, err = zimtest.Build(s); err != nil {
		t.Fatal(err)
	}
	if _, ps := checkBytes(t, b); len(ps) != 0 {
		t.Errorf("aliases reported: %v", ps)
	}
}

// TestCheckImpossibleSizes: a blob that ends past its cluster (inside the
// next one), a compressed cluster whose offsets claim more than it holds,
// and a cluster pointer past the end of the file are problems.
func TestCheckImpossibleSizes(t *testing.T) {
	two := func(comp byte) zimtest.Spec {
		return zimtest.Spec{
			Clusters: []zimtest.Cluster{{Comp: comp}, {Comp: 1}},
			Entries: []zimtest.Entry{
				{NS: 'C', Path: "a", Mime: "text/plain", Data: []byte("first blob")},
				{NS: 'C', Path: "b", Mime: "text/plain", Data: []byte("second blob"), Cluster: 1},
			},
		}
	}
	t.Run("blob past cluster end", func(t *testing.T) {
		s := two(1)
		var clusterOff uint64
		s.Patch = func(b []byte, o zimtest.Offsets) {
			clusterOff = o.Clusters[0]
			// the end offset of blob 0: 8 + 10 bytes -> 8 + 14, into cluster 1
			le32(b[o.Clusters[0]+1+4:], 8+14)
		}
		b := build(t, s)
		_, ps := checkBytes(t, b)
		wantProblem(t, ps, int64(clusterOff), "past the end of the cluster")
	})
	t.Run("compressed cluster shorter than its offsets", func(t *testing.T) {
		s := two(5)
		s.Clusters[0].Encode = func(raw []byte) ([]byte, error) {
			r := append([]byte(nil), raw...)
			le32(r[4:], binary.LittleEndian.Uint32(r[4:])+1000)
			return zstdBytes(r), nil
		}
		b, o, err := zimtest.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		_, ps := checkBytes(t, b)
		// the zstd stream ends before the data the offsets claim
		wantProblem(t, ps, int64(o.Clusters[0]), "cluster 0 at offset")
	})
	for _, v := range []uint64{1 << 40, 1<<63 - 1, 1<<64 - 1} {
		t.Run(fmt.Sprintf("cluster pointer %d", v), func(t *testing.T) {
			s := two(1)
			var at int64
			s.Patch = func(b []byte, o zimtest.Offsets) {
				at = int64(o.ClusterPtr)
				le64(b[o.ClusterPtr:], v) // cluster 0 (not the last)
			}
			b := build(t, s)
			a, ps := checkBytes(t, b)
			wantProblem(t, ps, at, "cluster 0: pointer")
			e, err := a.EntryByPath("a")
			if err != nil {
				t.Fatal(err)
			}
			var fe *FormatError
			if _, err := a.ReadBlob(e); !errors.As(err, &fe) {
				t.Errorf("reading C/a: %v", err)
			}
			if e, err = a.EntryByPath("b"); err != nil {
				t.Fatal(err)
			}
			if d, err := a.ReadBlob(e); err != nil || string(d) != "second blob" {
				t.Errorf("C/b: %q %v", d, err)
			}
		})
	}
}

// TestHugePointers patches every kind of pointer with 2^63-1 and 2^64-1
// (and a few near them): opening fails with a FormatError naming the
// archive, or Check reports at least one problem, and reading every entry
// never panics.
func TestHugePointers(t *testing.T) {
	base := synthetic(1, true)
	base.Entries = append(base.Entries, zimtest.Entry{NS: 'X', Path: "listing/titleOrdered/v1", Mime: "application/octet-stream+zimlisting", Data: []byte{0, 0, 0, 0}, Cluster: 1})
	type patch struct {
		name string
		fn   func(b []byte, o zimtest.Offsets, v uint64)
	}
	narrow := map[string]bool{"blob offset (32-bit)": true, "dirent cluster number": true, "dirent blob number": true,
		"redirect index": true, "title index entry": true}
	patches := []patch{
		{"path pointer list", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[32:], v) }},
		{"title pointer list", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[40:], v) }},
		{"cluster pointer list", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[48:], v) }},
		{"checksum position", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[72:], v) }},
		{"dirent pointer 0", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[o.PathPtr:], v) }},
		{"dirent pointer 3", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[o.PathPtr+24:], v) }},
		{"cluster pointer 0", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[o.ClusterPtr:], v) }},
		{"cluster pointer 1", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[o.ClusterPtr+8:], v) }},
		{"extended blob offset 0", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[o.Clusters[0]+1:], v) }},
		{"extended blob offset 1", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[o.Clusters[0]+1+8:], v) }},
		{"extended last blob offset", func(b []byte, o zimtest.Offsets, v uint64) { le64(b[o.Clusters[0]+1+8*3:], v) }},
		{"blob offset (32-bit)", func(b []byte, o zimtest.Offsets, v uint64) { le32(b[o.Clusters[1]+1+4:], uint32(v)) }},
		{"dirent cluster number", func(b []byte, o zimtest.Offsets, v uint64) {
			for _, d := range o.Dirents {
				if binary.LittleEndian.Uint16(b[d:]) < 0xFFFD {
					le32(b[d+8:], uint32(v))
				}
			}
		}},
		{"dirent blob number", func(b []byte, o zimtest.Offsets, v uint64) {
			for _, d := range o.Dirents {
				if binary.LittleEndian.Uint16(b[d:]) < 0xFFFD {
					le32(b[d+12:], uint32(v))
				}
			}
		}},
		{"redirect index", func(b []byte, o zimtest.Offsets, v uint64) {
			for _, d := range o.Dirents {
				if binary.LittleEndian.Uint16(b[d:]) == 0xFFFF {
					le32(b[d+8:], uint32(v))
				}
			}
		}},
		{"title index entry", func(b []byte, o zimtest.Offsets, v uint64) { le32(b[o.TitlePtr+4:], uint32(v)) }},
	}
	for _, p := range patches {
		for _, v := range []uint64{1<<63 - 1, 1 << 63, 1<<64 - 1, 1<<64 - 16, 1<<32 - 1} {
			if narrow[p.name] && uint32(v) == 0 {
				continue // a 32-bit field: 0 is a valid value
			}
			if p.name == "title pointer list" && v == 1<<64-1 {
				continue // "absent", as newer writers leave it
			}
			t.Run(fmt.Sprintf("%s=%#x", p.name, v), func(t *testing.T) {
				s := base
				s.Patch = func(b []byte, o zimtest.Offsets) { p.fn(b, o, v) }
				b := build(t, s)
				a, err := New(bytes.NewReader(b), int64(len(b)), WithName("hostile.zim"))
				if err != nil {
					var fe *FormatError
					if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "hostile.zim: offset ") {
						t.Fatalf("open: %v (%T)", err, err)
					}
					return
				}
				ps := a.Check(CheckOptions{Checksum: true, Clusters: true})
				if len(ps) == 0 {
					t.Errorf("Check found nothing")
				}
				for _, p := range ps {
					if p.Offset < 0 {
						t.Errorf("problem without an offset: %v", p)
					}
				}
				for i := uint32(0); i < a.EntryCount(); i++ {
					e, err := a.EntryAt(i)
					if err != nil {
						continue
					}
					if r, err := a.Resolve(e); err == nil && r.Kind == KindItem {
						if rc, _, err := a.OpenBlob(r); err == nil {
							io.Copy(io.Discard, rc)
							rc.Close()
						}
					}
				}
				for i := uint32(0); i < a.titleCount && i < 100; i++ {
					if idx, err := a.EntryIndexByTitle(i); err == nil {
						a.EntryAt(idx)
					}
				}
			})
		}
	}
}

func zstdBytes(b []byte) []byte {
	w, _ := zstd.NewWriter(nil)
	defer w.Close()
	return w.EncodeAll(b, nil)
}
