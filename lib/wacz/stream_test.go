package wacz

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/tailfile"
)

// TestCreateStreamed: a WACZ written through a tailfile.File - what an
// s3:// output gets, bytes passed on to the upload once final - is byte
// for byte the WACZ written to a file, for copied members, re-encoded
// members (mixed.warc.gz, plain WARC input), split parts (records moved to a new
// part) and a lenient run over a cut file (a record withdrawn); the window
// kept is small next to the output.
func TestCreateStreamed(t *testing.T) {
	// (ARC input is left out: its conversion makes random record IDs)
	a, b, c := readTD(t, "example.warc.gz"), readTD(t, "example-bad-non-chunked.warc.gz"), readTD(t, "example.warc")
	plain := c.data
	mixed := input{"mixed.warc.gz", append(append([]byte{}, a.data...), b.data...)}
	cut := input{"cut.warc", plain[:len(plain)-300]}
	cases := []struct {
		opts   Options
		inputs []input
	}{
		{Options{}, []input{a}},
		{Options{}, []input{mixed, c}},
		{Options{Split: 1500}, []input{mixed, c}},
		{Options{Split: 1}, []input{mixed, c}},
		{Options{Lenient: true}, []input{cut, a}},
		{Options{Verify: true}, []input{a, c}},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			tc.opts.Created = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
			path, _, err := buildWACZ(t, tc.opts, tc.inputs...)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(path)

			var out bytes.Buffer
			tf := tailfile.New(&out, 4<<10, t.TempDir())
			opts := tc.opts
			opts.TempDir = t.TempDir()
			w, err := NewWriter(tf, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range tc.inputs {
				if err := w.AddInput(in.name, bytes.NewReader(in.data)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := tf.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("streamed WACZ (%d bytes) differs from the file (%d bytes)", out.Len(), len(want))
			}
		})
	}
}

// writerFunc is an io.Writer calling a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestCreateStreamedAsItGoes: members copied as they are (the fast path,
// whose bytes are written from a goroutine of their own) are passed on as
// their records are placed, not all at once when the archive entry closes:
// the window a tailfile.File keeps (in memory, then in a temporary file)
// stays within the input's read-ahead (rawWindow) plus a checkpoint or two
// for a 24 MB archive, and the output is still the file's.
func TestCreateStreamedAsItGoes(t *testing.T) {
	data := synthWARC(t, 1200, func(int) int { return 20000 })
	in := input{"big.warc.gz", data}
	opts := Options{Created: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
	path, _, err := buildWACZ(t, opts, in)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(path)

	var out bytes.Buffer
	var tf *tailfile.File
	var maxWindow int64
	passes := 0
	tf = tailfile.New(writerFunc(func(p []byte) (int, error) {
		// called by tf.Release, on the goroutine using tf
		maxWindow = max(maxWindow, tf.Size()-int64(out.Len()))
		passes++
		return out.Write(p)
	}), 1<<20, t.TempDir())
	opts.TempDir = t.TempDir()
	w, err := NewWriter(tf, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddInput(in.name, bytes.NewReader(in.data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tf.Close(); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	t.Logf("%d bytes of input (%d copied raw), WACZ %d bytes passed on in %d writes; largest window %d bytes", len(data), st.CopiedRaw, out.Len(), passes, maxWindow)
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("streamed WACZ (%d bytes) differs from the file (%d bytes)", out.Len(), len(want))
	}
	if st.CopiedRaw < int64(len(data))/2 {
		t.Fatalf("fast path not taken: %+v", st)
	}
	if maxWindow > rawWindow+3*checkpointEvery {
		t.Errorf("largest window %d bytes: the archive was held back", maxWindow)
	}
}
