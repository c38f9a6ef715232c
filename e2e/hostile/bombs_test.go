package hostile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// bombSize is how much the decompression bombs inflate to: 1 GiB in the
// default sweep, 10 GiB with -hostile.long.
func bombSize() int64 {
	if *long {
		return 10 << 30
	}
	return 1 << 30
}

// gzipZerosChunk is the deflate stream of 1 MiB of zeros ending
// byte-aligned (sync flush) and not final, so copies can be concatenated.
func gzipZerosChunk() []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(make([]byte, 1<<20))
	w.Flush()
	return b.Bytes()
}

// writeGzipBomb writes one gzip member to w: prefix, then n bytes of zeros
// (n a multiple of 1 MiB), then suffix; about 1 KB per MiB inflated.
func writeGzipBomb(w io.Writer, prefix []byte, n int64, suffix []byte) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(prefix)
	fw.Flush()
	bw.Write(comp.Bytes())
	crc := crc32.NewIEEE()
	crc.Write(prefix)
	chunk := gzipZerosChunk()
	zeros := make([]byte, 1<<20)
	for i := int64(0); i < n>>20; i++ {
		bw.Write(chunk)
		crc.Write(zeros)
	}
	comp.Reset()
	fw.Reset(&comp)
	fw.Write(suffix)
	fw.Close()
	bw.Write(comp.Bytes())
	crc.Write(suffix)
	var tr [8]byte
	binary.LittleEndian.PutUint32(tr[:], crc.Sum32())
	binary.LittleEndian.PutUint32(tr[4:], uint32(int64(len(prefix))+n+int64(len(suffix))))
	bw.Write(tr[:])
	return bw.Flush()
}

// writeZstdBomb writes one zstd frame to w: prefix (as a raw block), then n
// bytes of zeros as 128 KiB RLE blocks (4 bytes each), then suffix.
func writeZstdBomb(w io.Writer, prefix []byte, n int64, suffix []byte) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	// magic; descriptor 0 (no content size, no checksum, not single
	// segment); window 2^(10+7) = 128 KiB.
	bw.Write([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38})
	block := func(last bool, typ uint32, size uint32, payload []byte) {
		h := size<<3 | typ<<1
		if last {
			h |= 1
		}
		bw.Write([]byte{byte(h), byte(h >> 8), byte(h >> 16)})
		bw.Write(payload)
	}
	raw := func(b []byte, last bool) {
		for len(b) > 0 {
			k := min(len(b), 128<<10)
			block(last && k == len(b), 0, uint32(k), b[:k])
			b = b[k:]
		}
	}
	raw(prefix, false)
	const bs = 128 << 10
	for i := int64(0); i < n/bs; i++ {
		block(len(suffix) == 0 && i == n/bs-1, 1, bs, []byte{0})
	}
	if len(suffix) > 0 {
		raw(suffix, true)
	}
	return bw.Flush()
}

// xzZerosStream returns an XZ stream holding prefix (its own block), then
// blocks copies of one block of 4 MiB of zeros: about 1 KB per 4 MiB.
// lib/zim's reader takes one stream per cluster (SingleStream).
func xzZerosStream(prefix []byte, blocks int) []byte {
	enc := func(data []byte) []byte {
		var b bytes.Buffer
		w, _ := xz.NewWriter(&b)
		w.Write(data)
		w.Close()
		return b.Bytes()
	}
	// split a one-block stream into header, block, and the block's index
	// record (unpadded size, uncompressed size as varints).
	split := func(st []byte) (hdr, block, rec []byte) {
		bs := binary.LittleEndian.Uint32(st[len(st)-8:])
		idx := len(st) - 12 - int(bs+1)*4
		hdr, block = st[:12], st[12:idx]
		in := st[idx+1:]           // after the index indicator
		_, n := binary.Uvarint(in) // number of records (1)
		in = in[n:]
		_, a := binary.Uvarint(in)
		_, b := binary.Uvarint(in[a:])
		return hdr, block, in[:a+b]
	}
	hdr, zblock, zrec := split(enc(make([]byte, 4<<20)))
	var blocks_, recs [][]byte
	if len(prefix) > 0 {
		_, pb, pr := split(enc(prefix))
		blocks_, recs = append(blocks_, pb), append(recs, pr)
	}
	for i := 0; i < blocks; i++ {
		blocks_, recs = append(blocks_, zblock), append(recs, zrec)
	}
	out := append([]byte(nil), hdr...)
	for _, b := range blocks_ {
		out = append(out, b...)
	}
	index := []byte{0}
	index = binary.AppendUvarint(index, uint64(len(recs)))
	for _, r := range recs {
		index = append(index, r...)
	}
	for len(index)%4 != 0 {
		index = append(index, 0)
	}
	index = binary.LittleEndian.AppendUint32(index, crc32.ChecksumIEEE(index))
	out = append(out, index...)
	foot := binary.LittleEndian.AppendUint32(nil, uint32(len(index)/4-1))
	foot = append(foot, hdr[6:8]...) // stream flags
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(foot))
	out = append(out, foot...)
	return append(out, 'Y', 'Z')
}

// sharedBomb writes a bomb once per test binary and returns its path.
func sharedBomb(t testing.TB, name string, write func(io.Writer) error) string {
	return shared(t, name, func(t testing.TB, p string) {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestBombGenerators verifies the generators with the real decoders (a bomb that
// does not inflate proves nothing).
func TestBombGenerators(t *testing.T) {
	var g, z bytes.Buffer
	writeGzipBomb(&g, []byte("head"), 3<<20, []byte("tail"))
	writeZstdBomb(&z, []byte("head"), 3<<20, []byte("tail"))
	want := append(append([]byte("head"), make([]byte, 3<<20)...), "tail"...)
	gr, err := gzip.NewReader(&g)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(gr); err != nil || !bytes.Equal(got, want) {
		t.Errorf("gzip bomb: %d bytes, %v", len(got), err)
	}
	d, _ := zstd.NewReader(&z)
	if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, want) {
		t.Errorf("zstd bomb: %d bytes, %v", len(got), err)
	}
	if g.Len() > 8<<10 || z.Len() > 1<<10 {
		t.Errorf("bombs too large: gzip %d, zstd %d bytes for 3 MiB", g.Len(), z.Len())
	}
	x := xzZerosStream([]byte("head"), 3)
	xr, err := xz.ReaderConfig{SingleStream: true}.NewReader(bytes.NewReader(x))
	if err != nil {
		t.Fatal(err)
	}
	want = append([]byte("head"), make([]byte, 12<<20)...)
	if got, err := io.ReadAll(xr); err != nil || !bytes.Equal(got, want) {
		t.Errorf("xz bomb: %d bytes, %v", len(got), err)
	}
	if len(x) > 4<<10 {
		t.Errorf("xz bomb too large: %d bytes for 12 MiB", len(x))
	}
}
