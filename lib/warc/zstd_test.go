package warc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// zstdPerRecord compresses each byte range of plain as its own zstd frame,
// optionally after an IIPC dictionary frame (magic 0x184D2A5D) holding dict
// (zstd-compressed itself when compressDict is set). It returns the file and
// the frame offsets.
func zstdPerRecord(t *testing.T, plain []byte, bounds []int, dict []byte, compressDict bool) ([]byte, []int64) {
	t.Helper()
	var out bytes.Buffer
	opts := []zstd.EOption{zstd.WithEncoderConcurrency(1)}
	if dict != nil {
		opts = append(opts, zstd.WithEncoderDictRaw(0, dict))
		payload := dict
		if compressDict {
			e, _ := zstd.NewWriter(nil)
			payload = e.EncodeAll(dict, nil)
		}
		var h [8]byte
		binary.LittleEndian.PutUint32(h[:4], 0x184D2A5D)
		binary.LittleEndian.PutUint32(h[4:], uint32(len(payload)))
		out.Write(h[:])
		out.Write(payload)
	}
	enc, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for i := 0; i+1 < len(bounds); i++ {
		offs = append(offs, int64(out.Len()))
		out.Write(enc.EncodeAll(plain[bounds[i]:bounds[i+1]], nil))
	}
	offs = append(offs, int64(out.Len()))
	return out.Bytes(), offs
}

// TestZstd reads .warc.zst files with one frame per record, without and
// with a dictionary (raw and compressed), checking offsets, lengths and
// blocks against the plain file.
func TestZstd(t *testing.T) {
	plain := readFixture(t, "example.warc")
	want, _, err := readAllFrom(t, plain, "example.warc")
	if err != nil {
		t.Fatal(err)
	}
	bounds := []int{0, 488, 1197, 2566, 3370, 4316, len(plain)}
	dict := plain[:1197] // the two warcinfo records make a fine raw dictionary
	for _, tc := range []struct {
		name       string
		dict       []byte
		compressed bool
	}{{"no dict", nil, false}, {"raw dict", dict, false}, {"compressed dict", dict, true}} {
		t.Run(tc.name, func(t *testing.T) {
			data, offs := zstdPerRecord(t, plain, bounds, tc.dict, tc.compressed)
			got, problems, err := readAllFrom(t, data, "x.warc.zst")
			if err != nil || len(problems) > 0 || len(got) != len(want) {
				t.Fatalf("%v %v %d records", err, problems, len(got))
			}
			for i := range got {
				if got[i].rec.Offset != offs[i] || got[i].rec.DiskLength != offs[i+1]-offs[i] {
					t.Errorf("record %d: off %d len %d, want %d %d", i, got[i].rec.Offset, got[i].rec.DiskLength, offs[i], offs[i+1]-offs[i])
				}
				if !bytes.Equal(got[i].block, want[i].block) || fmt.Sprint(got[i].rec.Header) != fmt.Sprint(want[i].rec.Header) {
					t.Errorf("record %d differs from the plain reading", i)
				}
			}
		})
	}
}

// TestZstdCLI reads a file compressed by the zstd command-line tool (one
// frame for the whole file): records are read, flagged as sharing a frame.
func TestZstdCLI(t *testing.T) {
	zst := peertest.Need(t, "zstd", "zstd")
	out := filepath.Join(t.TempDir(), "example.warc.zst")
	if b, err := exec.Command(zst, "-q", "-o", out, fixtures+"example.warc").CombinedOutput(); err != nil {
		t.Fatalf("zstd: %v %s", err, b)
	}
	data := readFileT(t, out)
	got, problems, err := readAllFrom(t, data, "example.warc.zst")
	if err != nil || len(got) != 6 {
		t.Fatalf("%v %d", err, len(got))
	}
	if len(problems) != 1 || problems[0] != "example.warc.zst: record at offset 0: zstd member holds more than one record: records after the first cannot be addressed by offset" {
		t.Errorf("problems %q", problems)
	}
}
