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
