package compio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// TestMemberWriterOrder submits members of varied sizes with high
// concurrency and checks they come back in order through MemberReader,
// at the offsets OnMember reported, inline members included.
func TestMemberWriterOrder(t *testing.T) {
	for _, f := range []Format{Gzip, Zstd, Plain} {
		t.Run(f.String(), func(t *testing.T) {
			var out bytes.Buffer
			type rep struct{ tag, off, n int64 }
			var reps []rep
			var dict []byte
			if f == Zstd {
				dict = []byte(strings.Repeat("member content dictionary ", 40))
			}
			m, err := NewMemberWriter(&out, WriterOptions{Format: f, Concurrency: 8, Dict: dict, OnMember: func(tag any, off, n int64) {
				reps = append(reps, rep{int64(tag.(int)), off, n})
			}})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range 200 {
				s := fmt.Sprintf("member %d %s", i, strings.Repeat("x", (i*7919)%20000))
				want = append(want, s)
				if i%50 == 7 {
					if err := m.WriteInline(strings.NewReader(s), i); err != nil {
						t.Fatal(err)
					}
					continue
				}
				b := m.Buffer()
				b.B = append(b.B, "prefix to skip"...)
				b.Start = len(b.B)
				b.B = append(b.B, s...)
				if err := m.Submit(b, i); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			if len(reps) != len(want) {
				t.Fatalf("%d reports", len(reps))
			}
			for i, r := range reps {
				if r.tag != int64(i) || (i > 0 && r.off != reps[i-1].off+reps[i-1].n) {
					t.Fatalf("report %d: %+v after %+v", i, r, reps[max(i-1, 0)])
				}
			}
			if f == Plain {
				if out.String() != strings.Join(want, "") {
					t.Error("plain output differs")
				}
				return
			}
			mr, err := NewMemberReader(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; ; i++ {
				off, err := mr.Next()
				if err == io.EOF {
					if i != len(want) {
						t.Errorf("%d members", i)
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(mr)
				if err != nil || string(b) != want[i] || off != reps[i].off || mr.Offset()-off != reps[i].n {
					t.Fatalf("member %d at %d (reported %d+%d): %v %.20q", i, off, reps[i].off, reps[i].n, err, b)
				}
			}
		})
	}
}

// TestMemberWriterDictFrame checks the IIPC dictionary frame bytes.
func TestMemberWriterDictFrame(t *testing.T) {
	var out bytes.Buffer
	m, err := NewMemberWriter(&out, WriterOptions{Format: Zstd, Dict: []byte("abc")})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if got := out.Bytes(); !bytes.Equal(got, []byte{0x5D, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'}) {
		t.Errorf("dictionary frame % x", got)
	}
}

// TestParallelGzipMember checks large inline gzip members deflated in
// parallel chunks decode to the input, with MemberReader and with gzip(1),
// for sizes around the chunk boundaries.
func TestParallelGzipMember(t *testing.T) {
	var pattern []byte
	for i := 0; len(pattern) < 5*parChunk; i++ {
		pattern = fmt.Appendf(pattern, "line %d %s\n", i*i%9973, strings.Repeat("ab", i%50))
	}
	var largest [][]byte // the members of the largest input, concurrency 2 and 3
	var largestIn []byte
	for _, size := range []int{0, 1, dictSize, parChunk - 1, parChunk, parChunk + 1, 2 * parChunk, 5*parChunk - 3} {
		for _, conc := range []int{2, 3} {
			var out bytes.Buffer
			m, err := NewMemberWriter(&out, WriterOptions{Format: Gzip, Concurrency: conc})
			if err != nil {
				t.Fatal(err)
			}
			in := pattern[:size]
			if err := m.WriteInline(bytes.NewReader(in), nil); err != nil {
				t.Fatal(err)
			}
			m.Close()
			mr, _ := NewMemberReader(bytes.NewReader(out.Bytes()))
			if _, err := mr.Next(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(mr)
			if err != nil || !bytes.Equal(got, in) || mr.Offset() != int64(out.Len()) {
				t.Fatalf("size %d conc %d: %v, %d bytes back", size, conc, err, len(got))
			}
			if _, err := mr.Next(); err != io.EOF {
				t.Fatalf("size %d: more than one member: %v", size, err)
			}
			if size == 5*parChunk-3 {
				largest = append(largest, bytes.Clone(out.Bytes()))
				largestIn = in
			}
		}
	}
	// gzip(1) decodes the largest members (checked last: a missing gzip
	// skips only this locally, and fails the test under CI)
	gz := peertest.Need(t, "gzip", "gzip")
	if len(largest) != 2 {
		t.Fatalf("%d members for gzip -dc, want 2", len(largest))
	}
	for i, member := range largest {
		cmd := exec.Command(gz, "-dc")
		cmd.Stdin = bytes.NewReader(member)
		dec, err := cmd.Output()
		if err != nil || !bytes.Equal(dec, largestIn) {
			t.Errorf("gzip -dc, concurrency %d: %v, %d bytes of %d", i+2, err, len(dec), len(largestIn))
		}
	}
}

// cutReader yields n bytes of data, then fails with err.
type cutReader struct {
	data []byte
	err  error
}

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, c.err
	}
	n := copy(p, c.data)
	c.data = c.data[n:]
	return n, nil
}

// TestParallelGzipTruncatedInput: an input that ends with
// io.ErrUnexpectedEOF (a truncated compressed file being recompressed) is
// an error naming the input offset where it stopped, not a short member
// passed off as whole; at a chunk boundary too, and from a real truncated
// gzip stream.
func TestParallelGzipTruncatedInput(t *testing.T) {
	var pattern []byte
	for i := 0; len(pattern) < 3*parChunk; i++ {
		pattern = fmt.Appendf(pattern, "line %d %s\n", i*i%9973, strings.Repeat("ab", i%50))
	}
	var gzipped bytes.Buffer
	zw := gzip.NewWriter(&gzipped)
	zw.Write(pattern)
	zw.Close()
	for _, tc := range []struct {
		name string
		r    func() io.Reader
		off  string
	}{
		{"mid-chunk", func() io.Reader { return &cutReader{pattern[:parChunk+100], io.ErrUnexpectedEOF} }, fmt.Sprintf("input at offset %d: ", parChunk+100)},
		{"chunk-boundary", func() io.Reader { return &cutReader{pattern[:parChunk], io.ErrUnexpectedEOF} }, fmt.Sprintf("input at offset %d: ", parChunk)},
		{"first-chunk", func() io.Reader { return &cutReader{pattern[:10], io.ErrUnexpectedEOF} }, "input at offset 10: "},
		{"truncated-gzip", func() io.Reader {
			zr, _ := gzip.NewReader(bytes.NewReader(gzipped.Bytes()[:gzipped.Len()/2]))
			return zr
		}, "input at offset "},
	} {
		for _, conc := range []int{2, 3} {
			var out bytes.Buffer
			m, err := NewMemberWriter(&out, WriterOptions{Format: Gzip, Concurrency: conc})
			if err != nil {
				t.Fatal(err)
			}
			err = m.WriteInline(tc.r(), nil)
			if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(err.Error(), tc.off) {
				t.Errorf("%s, concurrency %d: %v, want %q... wrapping io.ErrUnexpectedEOF", tc.name, conc, err, tc.off)
			}
			t.Logf("%s: %v", tc.name, err)
		}
	}
}
