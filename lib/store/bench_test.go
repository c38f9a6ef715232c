package store

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/store/s3test"
)

// benchEnv is versitygw without the proxy, for throughput.
func benchEnv(b *testing.B) *Store {
	srv := s3test.Start(b)
	srv.Bucket(b, "bkt")
	srv.Setenv(b, srv.URL)
	return New(Options{RetryBase: 10 * time.Millisecond})
}

const benchSize = 64 << 20

// BenchmarkS3Write: a 64 MiB object written through Create (multipart,
// 16 MiB parts); compare BenchmarkLocalWrite.
func BenchmarkS3Write(b *testing.B) {
	benchWrite(b, benchEnv(b), "s3://bkt/bench")
}

// BenchmarkLocalWrite: the same 64 MiB to a local file through Create.
func BenchmarkLocalWrite(b *testing.B) {
	benchWrite(b, New(Options{}), filepath.Join(b.TempDir(), "bench"))
}

func benchWrite(b *testing.B, st *Store, name string) {
	data := random(1<<20, 20)
	b.SetBytes(benchSize)
	for b.Loop() {
		w, err := st.Create(context.Background(), name)
		if err != nil {
			b.Fatal(err)
		}
		for range benchSize >> 20 {
			if _, err := w.Write(data); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkS3Read: a 64 MiB object streamed through Open; compare
// BenchmarkLocalRead.
func BenchmarkS3Read(b *testing.B) {
	st := benchEnv(b)
	w, _ := st.Create(context.Background(), "s3://bkt/bench")
	w.Write(bytes.Repeat([]byte{'x'}, benchSize))
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	benchRead(b, st, "s3://bkt/bench")
}

// BenchmarkLocalRead: the same from a local file through Open.
func BenchmarkLocalRead(b *testing.B) {
	name := filepath.Join(b.TempDir(), "bench")
	os.WriteFile(name, bytes.Repeat([]byte{'x'}, benchSize), 0o644)
	benchRead(b, New(Options{}), name)
}

func benchRead(b *testing.B, st *Store, name string) {
	b.SetBytes(benchSize)
	for b.Loop() {
		r, err := st.Open(context.Background(), name)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, r); err != nil || n != benchSize {
			b.Fatal(n, err)
		}
		r.Close()
	}
}
