package wacz

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/arcport/arcport/lib/internal/samples"
)

func gz(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Name = "x.warc" // FNAME set: the header parser must skip it
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func TestPrefixInflater(t *testing.T) {
	warc, _ := os.ReadFile(samples.Path("example.warc"))
	text := bytes.Repeat([]byte("The archive keeps every path that forks. "), 3000)
	cases := map[string][]byte{
		"empty":  nil,
		"warc":   warc,
		"text":   text,
		"random": pseudoRandom(200000),
		"mixed":  append(append(bytes.Clone(text[:5000]), pseudoRandom(70000)...), text...),
	}
	for name, data := range cases {
		for _, level := range []int{gzip.NoCompression, gzip.HuffmanOnly, gzip.BestSpeed, gzip.DefaultCompression, gzip.BestCompression} {
			member := gz(t, data, level)
			// trailing bytes after the member must not be taken
			src := append(bytes.Clone(member), 0x1f, 0x8b, 8, 0)
			var z prefixInflater
			if err := z.reset(bytes.NewReader(src)); err != nil {
				t.Fatalf("%s/%d: reset: %v", name, level, err)
			}
			for _, n := range []int{1, 100, 4096, 70000} {
				if err := z.fill(n); err != nil {
					t.Fatalf("%s/%d: fill(%d): %v", name, level, n, err)
				}
				want := min(n, len(data))
				if len(z.out) < want || !bytes.Equal(z.out[:want], data[:want]) {
					t.Fatalf("%s/%d: prefix %d wrong (%d bytes out)", name, level, n, len(z.out))
				}
			}
			used, err := z.finish(len(data))
			if err != nil {
				t.Fatalf("%s/%d: finish: %v", name, level, err)
			}
			if !bytes.Equal(z.out, data) || used != int64(len(member)) {
				t.Errorf("%s/%d: %d bytes out (want %d), member %d bytes (want %d)", name, level, len(z.out), len(data), used, len(member))
			}
			// a member decoding to more than the bound is refused
			// without decoding it all
			if len(data) > 0 {
				z.reset(bytes.NewReader(member))
				if _, err := z.finish(len(data) - 1); err != errMemberLonger || len(z.out) > len(data) {
					t.Errorf("%s/%d: finish(%d): %v with %d bytes out, want errMemberLonger", name, level, len(data)-1, err, len(z.out))
				}
			}
			// a corrupted trailer is caught
			bad := bytes.Clone(member)
			bad[len(bad)-5] ^= 1
			z.reset(bytes.NewReader(bad))
			if _, err := z.finish(len(data)); err == nil {
				t.Errorf("%s/%d: bad CRC not caught", name, level)
			}
		}
	}
}

func FuzzPrefixInflater(f *testing.F) {
	warc, _ := os.ReadFile(samples.Path("example.warc.gz"))
	f.Add(warc[:784])
	f.Add(gz(f, []byte("WARC/1.0\r\n\r\n"), 6))
	f.Fuzz(func(t *testing.T, b []byte) {
		var z prefixInflater
		if z.reset(bytes.NewReader(b)) != nil {
			return
		}
		if _, err := z.finish(1 << 20); err != nil {
			return
		}
		// whatever it accepts, compress/gzip must read the same way
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("accepted, gzip refuses: %v", err)
		}
		r.Multistream(false)
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, z.out) {
			t.Fatalf("accepted %d bytes, gzip gives %d (%v)", len(z.out), len(got), err)
		}
	})
}
