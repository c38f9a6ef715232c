package zim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/zimtest"
	"github.com/ulikunitz/xz"
)

// xzText is n bytes of word salad: compressible, but not to nothing.
func xzText(seed int64, n int) []byte {
	words := strings.Fields("the of archive cluster blob entry zim xz block stream index footer check web page title path mime")
	r := rand.New(rand.NewSource(seed))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
		b.WriteByte(" \n"[r.Intn(2)])
	}
	return b.Bytes()[:n]
}

// goXZ encodes with the xz package: blocks of blockSize bytes (0: one
// block), the given check, a dictionary of dict bytes declared.
func goXZ(check byte, blockSize int64, dict int) func([]byte) ([]byte, error) {
	return func(raw []byte) ([]byte, error) {
		var b bytes.Buffer
		w, err := xz.WriterConfig{BlockSize: blockSize, CheckSum: check, NoCheckSum: check == xz.None, DictCap: dict}.NewWriter(&b)
		if err != nil {
			return nil, err
		}
		w.Write(raw)
		if err := w.Close(); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
}

// cliXZ encodes with the xz command (XZ Utils).
func cliXZ(args ...string) func([]byte) ([]byte, error) {
	return func(raw []byte) ([]byte, error) {
		cmd := exec.Command("xz", append([]string{"-z", "-c"}, args...)...)
		cmd.Stdin = bytes.NewReader(raw)
		return cmd.Output()
	}
}

// concatXZ cuts the data in two and encodes each part as its own stream
// (the second with a SHA-256 check), four bytes of stream padding between.
func concatXZ(raw []byte) ([]byte, error) {
	a, err := goXZ(xz.CRC32, 0, 1<<20)(raw[:len(raw)/3])
	if err != nil {
		return nil, err
	}
	b, err := goXZ(xz.SHA256, 100<<10, 1<<20)(raw[len(raw)/3:])
	return append(append(a, 0, 0, 0, 0), b...), err
}

// xzBlockSpans returns the offset and unpadded size of every block of a
// one-stream .xz file, read from its index (backwards from the footer).
func xzBlockSpans(t *testing.T, st []byte) (starts, sizes []int64) {
	t.Helper()
	back := int64(binary.LittleEndian.Uint32(st[len(st)-8:])+1) * 4
	in := st[int64(len(st))-12-back+1:]
	n, k := binary.Uvarint(in)
	in = in[k:]
	pos := int64(12)
	for i := uint64(0); i < n; i++ {
		unp, k1 := binary.Uvarint(in)
		_, k2 := binary.Uvarint(in[k1:])
		in = in[k1+k2:]
		starts, sizes = append(starts, pos), append(sizes, int64(unp))
		pos += (int64(unp) + 3) &^ 3
	}
	return starts, sizes
}

func xzSpec(enc func([]byte) ([]byte, error)) zimtest.Spec {
	return zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: CompressionXZ, Encode: enc}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "a.html", Mime: "text/html", Data: []byte("<p>a</p>")},
			{NS: 'C', Path: "mid.bin", Mime: "text/plain", Data: xzText(1, 300<<10)},
			{NS: 'C', Path: "z.bin", Mime: "text/plain", Data: xzText(2, 200<<10)},
		},
	}
}

// TestXZMultiBlock: XZ clusters of several blocks (xz package and xz -T /
// --block-size), with CRC32, CRC64, SHA-256 and no check, and of two
// concatenated streams read back whole, held in memory and streamed
// (regression: only the first block was decoded).
func TestXZMultiBlock(t *testing.T) {
	tests := []struct {
		name string
		enc  func([]byte) ([]byte, error)
		cli  bool
	}{
		{"one block", goXZ(xz.CRC32, 0, 64<<20), false},
		{"64k blocks crc32", goXZ(xz.CRC32, 64<<10, 64<<20), false},
		{"64k blocks crc64", goXZ(xz.CRC64, 64<<10, 1<<20), false},
		{"100k blocks sha256", goXZ(xz.SHA256, 100<<10, 1<<20), false},
		{"64k blocks no check", goXZ(xz.None, 64<<10, 1<<20), false},
		{"concatenated streams", concatXZ, false},
		{"xz --block-size=65536", cliXZ("--block-size=65536", "--check=crc32"), true},
		{"xz -T2 --block-size=200000 crc64", cliXZ("-T2", "--block-size=200000", "--check=crc64"), true},
		{"xz -9e sha256", cliXZ("-9e", "--check=sha256"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cli {
				peertest.Need(t, "xz", "xz-utils")
			}
			s := xzSpec(tc.enc)
			b := build(t, s)
			for _, lim := range []int64{64 << 20, 16 << 10} {
				a := openBytes(t, b, WithMaxInMemoryCluster(lim))
				for _, e := range s.Entries {
					ent, err := a.EntryByPath(e.Path)
					if err != nil {
						t.Fatal(err)
					}
					got, err := a.ReadBlob(ent)
					if err != nil || !bytes.Equal(got, e.Data) {
						t.Fatalf("limit %d: %s: %v (%d of %d bytes)", lim, e.Path, err, len(got), len(e.Data))
					}
				}
				if ps := a.Check(CheckOptions{Checksum: true, Clusters: true}); len(ps) != 0 {
					t.Errorf("limit %d: problems %v", lim, ps)
				}
			}
		})
	}
}

// TestXZMultiBlockVsOpenzim: openzim's zimdump reads the blobs of a
// multi-block cluster written by xz -T2 as we do.
func TestXZMultiBlockVsOpenzim(t *testing.T) {
	zimdump := peertest.OpenzimZimdump(t) // by package path: the zimdump on PATH may be arcport's
	peertest.Need(t, "xz", "xz-utils")
	s := xzSpec(cliXZ("-T2", "--block-size=65536"))
	p := filepath.Join(t.TempDir(), "multiblock.zim")
	if err := os.WriteFile(p, build(t, s), 0o644); err != nil {
		t.Fatal(err)
	}
	a := mustOpen(t, p)
	for _, e := range s.Entries {
		want, err := exec.Command(zimdump, "show", "--url="+e.Path, p).Output()
		if err != nil || !bytes.Equal(want, e.Data) {
			t.Fatalf("openzim zimdump show %s: %v, %d bytes (the archive is not what this test thinks)", e.Path, err, len(want))
		}
		ent, _ := a.EntryByPath(e.Path)
		if got, err := a.ReadBlob(ent); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %v, %d bytes, openzim %d", e.Path, err, len(got), len(want))
		}
	}
}

// TestXZDamage: damage in a later block is found and located: a wrong
// check, a cut block, a bad block header, corrupt LZMA2 data. Blobs in
// earlier blocks still stream out, and check reports the damage.
func TestXZDamage(t *testing.T) {
	enc := goXZ(xz.CRC64, 64<<10, 1<<20)
	raw := func() []byte {
		var got []byte
		s := xzSpec(func(r []byte) ([]byte, error) { got = r; return nil, nil })
		build(t, s)
		return got
	}()
	clean, err := enc(raw)
	if err != nil {
		t.Fatal(err)
	}
	starts, sizes := xzBlockSpans(t, clean)
	if len(starts) < 6 {
		t.Fatalf("%d blocks", len(starts))
	}
	// the CRC64 ends the block, after the padding
	checkEnd := func(i int) int64 { return starts[i] + (sizes[i]+3)&^3 }
	tests := []struct {
		name   string
		damage func(st []byte) []byte
		at     int64 // stream position reported
		want   string
	}{
		{"check of block 3", func(st []byte) []byte { st[checkEnd(2)-1] ^= 1; return st }, checkEnd(2) - 8, "block check mismatch"},
		{"block 4 cut", func(st []byte) []byte { return st[:starts[3]+sizes[3]/2] }, starts[3] + int64(clean[starts[3]]+1)*4, "truncated or corrupt LZMA2 chunk headers"},
		{"block 3 header CRC", func(st []byte) []byte { st[starts[2]+1] ^= 0x40; return st }, starts[2], "block header CRC mismatch"},
		{"check of the last block", func(st []byte) []byte { st[checkEnd(len(starts)-1)-1] ^= 1; return st }, checkEnd(len(starts)-1) - 8, "block check mismatch"},
		{"block 5 data", func(st []byte) []byte { st[starts[4]+40] ^= 0xFF; return st }, -1, "cluster 0 at offset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := xzSpec(func([]byte) ([]byte, error) { return tc.damage(bytes.Clone(clean)), nil })
			b, o, err := zimtest.Build(s)
			if err != nil {
				t.Fatal(err)
			}
			base := int64(o.Clusters[0]) + 1
			for _, lim := range []int64{16 << 10, 64 << 20} {
				a := openBytes(t, b, WithMaxInMemoryCluster(lim))
				if lim < 1<<20 { // streamed: the blob before the damage reads
					ent, _ := a.EntryByPath("a.html")
					if got, err := a.ReadBlob(ent); err != nil || string(got) != "<p>a</p>" {
						t.Errorf("a.html in block 1: %q %v", got, err)
					}
				}
				ent, _ := a.EntryByPath("z.bin")
				_, err = a.ReadBlob(ent)
				if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "mem.zim") != 1 {
					t.Fatalf("limit %d: z.bin: %v, want %q", lim, err, tc.want)
				}
				if tc.at >= 0 && !strings.HasPrefix(err.Error(), fmt.Sprintf("mem.zim: offset %d: ", base+tc.at)) {
					t.Errorf("limit %d: error %q, want offset %d", lim, err, base+tc.at)
				}
			}
			a := openBytes(t, b)
			if ps := a.Check(CheckOptions{Clusters: true}); len(ps) == 0 {
				t.Error("check finds nothing")
			}
		})
	}
}

// TestXZMemory: a stream declaring libzim's 64 MiB dictionary, in blocks
// of 1 MiB, is decoded with dictionaries of the blocks' size.
func TestXZMemory(t *testing.T) {
	s := zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: CompressionXZ, Encode: goXZ(xz.CRC32, 1<<20, 64<<20)}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "a.html", Mime: "text/html", Data: []byte("<p>a</p>")},
			{NS: 'C', Path: "big.bin", Mime: "text/plain", Data: xzText(3, 6<<20)},
		},
	}
	b := build(t, s)
	a := openBytes(t, b, WithMaxInMemoryCluster(64<<10))
	ent, _ := a.EntryByPath("big.bin")
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	r, _, err := a.OpenBlob(ent)
	if err != nil {
		t.Fatal(err)
	}
	var sum int
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		sum += n
		if err != nil {
			break
		}
	}
	r.Close()
	runtime.ReadMemStats(&m1)
	if sum != 6<<20 {
		t.Fatalf("read %d bytes", sum)
	}
	// 7 blocks: 7 dictionaries of 1 MiB and their buffers, not 7 x 64 MiB
	if d := m1.TotalAlloc - m0.TotalAlloc; d > 24<<20 {
		t.Errorf("allocated %d MiB", d>>20)
	}
}

// FuzzXZCluster reads arbitrary bytes as the data of an XZ cluster: no
// panic, no hang, errors name the file. Seeds: one-block, multi-block,
// SHA-256 and concatenated streams of a small cluster.
func FuzzXZCluster(f *testing.F) {
	raw := func() []byte {
		var got []byte
		s := fuzzXZSpec(func(r []byte) ([]byte, error) { got = r; return nil, nil })
		build(f, s)
		return got
	}()
	for _, enc := range []func([]byte) ([]byte, error){goXZ(xz.CRC32, 0, 1<<20), goXZ(xz.CRC64, 1<<10, 1<<20), goXZ(xz.SHA256, 3<<10, 1<<20), concatXZ} {
		b, err := enc(raw)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, _, err := zimtest.Build(fuzzXZSpec(func([]byte) ([]byte, error) { return data, nil }))
		if err != nil {
			t.Fatal(err)
		}
		a, err := New(bytes.NewReader(b), int64(len(b)), WithName("fuzz.zim"), func(o *options) { o.xzMaxDict, o.maxInMemory = 8<<20, 4<<10 })
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"a.html", "mid.txt"} {
			ent, err := a.EntryByPath(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.ReadBlob(ent); err != nil && !strings.HasPrefix(err.Error(), "fuzz.zim: ") {
				t.Fatalf("error without the file: %v", err)
			}
		}
	})
}

func fuzzXZSpec(enc func([]byte) ([]byte, error)) zimtest.Spec {
	return zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: CompressionXZ, Encode: enc}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "a.html", Mime: "text/html", Data: []byte("<p>a</p>")},
			{NS: 'C', Path: "mid.txt", Mime: "text/plain", Data: xzText(1, 8<<10)},
		},
	}
}
