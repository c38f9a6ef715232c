package zim

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/zimtest"
	"github.com/klauspost/compress/zstd"
)

// TestMoreBlobsThanEntries: a cluster may hold blobs no entry refers to,
// more blobs than the archive has entries; libzim reads it and so must we
// (regression: refused as "more than the N entries of the archive"), for
// every cluster kind. openzim's zimdump (a peer: peertest.OpenzimZimdump)
// shows the same bytes.
func TestMoreBlobsThanEntries(t *testing.T) {
	zimdump := peertest.OpenzimZimdump(t)
	extra := [][]byte{[]byte("x1"), nil, []byte("x3"), []byte(strings.Repeat("x", 1000)), []byte("x5"), []byte("x6")}
	for _, c := range []zimtest.Cluster{{Comp: 1}, {Comp: 1, Extended: true}, {Comp: 4}, {Comp: 5}, {Comp: 5, Extended: true}} {
		c.Extra = extra
		s := zimtest.Spec{
			Clusters: []zimtest.Cluster{c},
			Entries: []zimtest.Entry{
				{NS: 'C', Path: "a.html", Mime: "text/html", Data: []byte("<p>a</p>")},
				{NS: 'C', Path: "b.txt", Mime: "text/plain", Data: []byte("bee")},
			},
		}
		b := build(t, s)
		a := openBytes(t, b)
		cl, err := a.Cluster(0)
		if err != nil {
			t.Fatalf("comp %d ext %v: %v", c.Comp, c.Extended, err)
		}
		if cl.BlobCount() != 8 {
			t.Errorf("comp %d: %d blobs", c.Comp, cl.BlobCount())
		}
		if sz, _ := cl.BlobSize(5); sz != 1000 {
			t.Errorf("comp %d: blob 5 of %d bytes", c.Comp, sz)
		}
		p := filepath.Join(t.TempDir(), "extra.zim")
		os.WriteFile(p, b, 0o644)
		for _, e := range s.Entries {
			ent, _ := a.EntryByPath(e.Path)
			got, err := a.ReadBlob(ent)
			if err != nil || !bytes.Equal(got, e.Data) {
				t.Errorf("comp %d: %s: %q %v", c.Comp, e.Path, got, err)
			}
			if want, err := exec.Command(zimdump, "show", "--url="+e.Path, p).Output(); err != nil || !bytes.Equal(want, e.Data) {
				t.Errorf("comp %d: %s: openzim %q %v, want %q", c.Comp, e.Path, want, err, e.Data)
			}
		}
		if ps := a.Check(CheckOptions{Checksum: true, Clusters: true}); len(ps) != 0 {
			t.Errorf("comp %d: %v", c.Comp, ps)
		}
	}
}

// TestBlobTableBounded: a blob table claiming more blobs than entries is
// still bounded by its cluster: a stored table running past the cluster, a
// compressed one claiming more blobs than the cluster has bytes (4 Mi
// equal offsets compress to a few KiB) are refused without allocating
// them.
func TestBlobTableBounded(t *testing.T) {
	const n = 1 << 22 // 32 MiB of offsets if they were kept
	table := binary.LittleEndian.AppendUint64(nil, 8*(n+1))
	for i := 0; i < n; i++ {
		table = binary.LittleEndian.AppendUint64(table, 8*(n+1))
	}
	zstdTable := func([]byte) ([]byte, error) {
		e, _ := zstd.NewWriter(nil)
		return e.EncodeAll(table, nil), nil
	}
	tests := []struct {
		name string
		c    zimtest.Cluster
		want string
	}{
		{"zstd 4 Mi blobs", zimtest.Cluster{Comp: 5, Extended: true, Encode: zstdTable},
			"claims 4194304 blobs, more than the 2 entries of the archive and the "},
		{"stored table past the cluster", zimtest.Cluster{Comp: 1, Encode: func(raw []byte) ([]byte, error) {
			binary.LittleEndian.PutUint32(raw, 4*40) // 39 blobs: 160 bytes of table in a cluster of 23
			return raw, nil
		}}, "claims 39 blobs, more than the 2 entries of the archive, and runs past the 23 bytes of the cluster"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := zimtest.Spec{
				Clusters: []zimtest.Cluster{tc.c},
				Entries: []zimtest.Entry{
					{NS: 'C', Path: "a.html", Mime: "text/html", Data: []byte("<p>a</p>")},
					{NS: 'C', Path: "b.txt", Mime: "text/plain", Data: []byte("bee")},
				},
			}
			b := build(t, s)
			a := openBytes(t, b)
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, err := a.Cluster(0)
			runtime.ReadMemStats(&m1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if d := m1.TotalAlloc - m0.TotalAlloc; d > 16<<20 {
				t.Errorf("allocated %d bytes", d)
			}
		})
	}
}
