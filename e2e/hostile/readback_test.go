package hostile

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// readAll reads every record of a WARC (or, with isARC, an ARC) strictly:
// the first problem is an error; WARC digests are verified. It returns the
// records read whole and the offsets where they start.
func readAll(data []byte, isARC bool) (n int, offsets []int64, err error) {
	type nexter interface {
		Next() (*record.Record, error)
	}
	var r nexter
	if isARC {
		r, err = arc.NewReader(bytes.NewReader(data), arc.WithPolicy(record.Fail))
	} else {
		r, err = warc.NewReader(bytes.NewReader(data), warc.WithPolicy(record.Fail), warc.WithVerifyDigests(true))
	}
	if err != nil {
		return 0, nil, err
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return n, offsets, nil
		}
		if err != nil {
			return n, offsets, err
		}
		if rec.Block != nil {
			if _, err := io.Copy(io.Discard, rec.Block); err != nil {
				return n, offsets, fmt.Errorf("record %d at offset %d: %w", n, rec.Offset, err)
			}
		}
		offsets = append(offsets, rec.Offset)
		n++
	}
}

// readValid asserts data is a whole valid WARC (ARC) and returns its record
// count.
func readValid(data []byte, isARC bool) (int, error) {
	n, _, err := readAll(data, isARC)
	return n, err
}

// validPrefix checks that data, the stdout of an interrupted writer, is a
// valid prefix: every record up to the last one reads back whole, and only
// the last one may be cut short. It returns the number of whole records.
func validPrefix(data []byte, isARC bool) (int, error) {
	n, offs, err := readAll(data, isARC)
	if err == nil {
		return n, nil
	}
	// The bytes up to the start of the record that failed must read back
	// without error and give the same records.
	var cut int64
	if len(offs) > 0 {
		// the failing record starts after the last good one; find where by
		// re-reading the prefix that ends at each candidate start.
		cut = offs[len(offs)-1]
	}
	for _, end := range tailStarts(data, cut, isARC) {
		if m, e := readValid(data[:end], isARC); e == nil && m >= n {
			return m, nil
		}
	}
	return n, fmt.Errorf("not a valid prefix after %d records: %v", n, err)
}

// tailStarts lists candidate record starts at or after from, last first:
// gzip member magic, zstd frame magic, "WARC/" at a line start, or an ARC
// URL line start.
func tailStarts(data []byte, from int64, isARC bool) []int {
	var c []int
	for i := int(from); i <= len(data); i++ {
		rest := data[i:]
		switch {
		case i == len(data):
			c = append(c, i)
		case bytes.HasPrefix(rest, []byte{0x1f, 0x8b, 8}),
			bytes.HasPrefix(rest, []byte{0x28, 0xb5, 0x2f, 0xfd}),
			!isARC && bytes.HasPrefix(rest, []byte("WARC/")) && (i == 0 || data[i-1] == '\n'),
			isARC && i > 0 && data[i-1] == '\n' && (bytes.HasPrefix(rest, []byte("http")) || bytes.HasPrefix(rest, []byte("dns:"))):
			c = append(c, i)
		}
	}
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	return c
}

// readFileValid reads a WARC/ARC file and checks it whole.
func readFileValid(path string, isARC bool) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return readValid(b, isARC)
}

// recordStarts returns the offsets where the records of a fixture start
// (member starts for compressed files), read leniently, plus its length.
func recordStarts(data []byte, isARC bool) []int64 {
	type nexter interface {
		Next() (*record.Record, error)
	}
	var r nexter
	var err error
	if isARC {
		r, err = arc.NewReader(bytes.NewReader(data), arc.WithPolicy(record.Ignore))
	} else {
		r, err = warc.NewReader(bytes.NewReader(data), warc.WithPolicy(record.Ignore))
	}
	if err != nil {
		return nil
	}
	var out []int64
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		out = append(out, rec.Offset)
	}
	return append(out, int64(len(data)))
}

// cleanCut reports whether cutting a file at cut loses no record silently:
// at a record start, or within slack bytes before one (the newlines that
// end the previous record).
func cleanCut(cut int, starts []int64, slack int) bool {
	if cut == 0 {
		return true
	}
	for _, s := range starts {
		if int64(cut) <= s && int64(cut) >= s-int64(slack) {
			return true
		}
	}
	return false
}

// damagedAt is the start of the record a cut at cut damages: the last
// record start before it.
func damagedAt(cut int, starts []int64) int64 {
	var at int64
	for _, s := range starts {
		if s < int64(cut) {
			at = s
		}
	}
	return at
}
