package tailfile

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

// TestAgainstAFile runs the same random writes, read-backs, truncations
// and releases on a File and on a real file: the stream ends up holding
// the real file's bytes, every read-back returns the real file's bytes,
// and nothing is left in the temporary directory.
func TestAgainstAFile(t *testing.T) {
	for _, memMax := range []int{64, 1000, 64 << 10} {
		for seed := uint64(1); seed <= 20; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(memMax)))
			tmp := t.TempDir()
			var out bytes.Buffer
			f := New(&out, memMax, tmp)
			ref, err := os.CreateTemp(t.TempDir(), "ref")
			if err != nil {
				t.Fatal(err)
			}
			var refSize int64
			for op := 0; op < 300; op++ {
				switch rng.IntN(10) {
				case 0, 1, 2, 3: // write
					p := make([]byte, rng.IntN(3*memMax/2+1))
					for i := range p {
						p[i] = byte(rng.Uint32())
					}
					if _, err := f.Write(p); err != nil {
						t.Fatal(err)
					}
					ref.WriteAt(p, refSize)
					refSize += int64(len(p))
				case 4, 5: // read back from the window
					if refSize == f.Released() {
						continue
					}
					off := f.Released() + rng.Int64N(refSize-f.Released())
					p := make([]byte, rng.IntN(2*memMax+1))
					n, err := f.ReadAt(p, off)
					want := make([]byte, len(p))
					m, _ := ref.ReadAt(want, off)
					if n != m || !bytes.Equal(p[:n], want[:m]) || (n < len(p) && err != io.EOF) {
						t.Fatalf("memMax %d seed %d: ReadAt(%d, %d) = %d, %v; want %d bytes", memMax, seed, len(p), off, n, err, m)
					}
				case 6: // truncate within the window, then seek to the end
					to := f.Released() + rng.Int64N(refSize-f.Released()+1)
					if err := f.Truncate(to); err != nil {
						t.Fatal(err)
					}
					if _, err := f.Seek(0, io.SeekEnd); err != nil {
						t.Fatal(err)
					}
					ref.Truncate(to)
					refSize = to
				case 7, 8: // release
					to := f.Released() + rng.Int64N(refSize-f.Released()+1)
					if err := f.Release(to); err != nil {
						t.Fatal(err)
					}
					if int64(out.Len()) != to {
						t.Fatalf("released %d, stream holds %d", to, out.Len())
					}
				case 9: // what is released is out of reach
					if f.Released() > 0 {
						if _, err := f.ReadAt(make([]byte, 1), f.Released()-1); !errors.Is(err, ErrReleased) {
							t.Fatalf("read before the window: %v", err)
						}
						if err := f.Truncate(f.Released() - 1); !errors.Is(err, ErrReleased) {
							t.Fatalf("truncate before the window: %v", err)
						}
					}
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			want := make([]byte, refSize)
			ref.ReadAt(want, 0)
			if !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("memMax %d seed %d: stream holds %d bytes, want %d (equal: %v)", memMax, seed, out.Len(), refSize, bytes.Equal(out.Bytes(), want))
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Fatalf("left %d files in the temporary directory", len(ents))
			}
		}
	}
}

// TestWriteNotAtEnd: writing anywhere but the end is an error (the zip
// writer always seeks to the end after a truncation).
func TestWriteNotAtEnd(t *testing.T) {
	f := New(io.Discard, 0, "")
	f.Write([]byte("hello"))
	f.Seek(2, io.SeekStart)
	if _, err := f.Write([]byte("x")); err == nil {
		t.Fatal("write in the middle accepted")
	}
}
