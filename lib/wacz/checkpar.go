package wacz

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/arcport/arcport/lib/record"
	"github.com/klauspost/compress/gzip"
)

// parCheckMin is the smallest file CheckArchiveAt splits over the cores.
const parCheckMin = 16 << 20

// parCheckPerCore is how many parts per core CheckArchiveAt cuts a file
// into, at most, and parCheckPartMin the smallest part it cuts.
const (
	parCheckPerCore = 4
	parCheckPartMin = 8 << 20
)

// parCheckScan bounds how far from a split point a member start is looked
// for.
const parCheckScan = 8 << 20

// CheckArchiveAt is CheckArchive over a file read by offset: a gzip WARC
// of some size is split at gzip members that start a WARC record, one part
// per core, and the parts are checked at once (inflation and digests are
// the work; each core does its share). Anything found in any part - a
// problem, an error - has the whole file checked again from the start, as
// CheckArchive does, so that what is reported and in what order is the
// same either way; so does a Verbose option (whose lines come in file
// order).
func CheckArchiveAt(ra io.ReaderAt, size int64, name string, opts CheckOptions) (CheckStats, error) {
	whole := func() (CheckStats, error) { return CheckArchive(io.NewSectionReader(ra, 0, size), name, opts) }
	n := runtime.GOMAXPROCS(0)
	if n < 2 || size < parCheckMin || opts.Verbose != nil {
		return whole()
	}
	head := make([]byte, 10)
	if _, err := ra.ReadAt(head, 0); err != nil || !plausibleGzipHeader(head) || !startsWARC(ra, 0, size) {
		return whole()
	}
	// more parts than cores, taken by n workers as they get free: one
	// core slowed (by other work on the machine, or by a part that
	// inflates more than its bytes suggest) no longer holds up the end
	np := n * parCheckPerCore
	if m := int(size / parCheckPartMin); m < np {
		np = max(m, n)
	}
	cuts := []int64{0}
	for k := 1; k < np; k++ {
		at, ok := recordMemberAfter(ra, size, size*int64(k)/int64(np))
		if ok && at > cuts[len(cuts)-1] {
			cuts = append(cuts, at)
		}
	}
	cuts = append(cuts, size)
	if len(cuts) < 3 {
		return whole()
	}
	type part struct {
		st       CheckStats
		err      error
		problems int
	}
	parts := make([]part, len(cuts)-1)
	next := make(chan int, len(parts))
	for i := range parts {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(n, len(parts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := &parts[i]
				o := CheckOptions{Problem: func(*record.Problem) { p.problems++ }}
				p.st, p.err = CheckArchive(io.NewSectionReader(ra, cuts[i], cuts[i+1]-cuts[i]), name, o)
			}
		}()
	}
	wg.Wait()
	var st CheckStats
	for _, p := range parts {
		if p.err != nil || p.problems > 0 || p.st.Problems > 0 || p.st.ARC {
			return whole()
		}
		st.Records += p.st.Records
		st.Checked += p.st.Checked
		st.Mismatch += p.st.Mismatch
		st.NoDigest += p.st.NoDigest
		st.AsStored += p.st.AsStored
		st.Dechunked += p.st.Dechunked
	}
	st.Parts = len(parts)
	return st, nil
}

// recordMemberAfter finds the first gzip member at or after from whose
// data begins with a WARC version line.
func recordMemberAfter(ra io.ReaderAt, size, from int64) (int64, bool) {
	buf := make([]byte, 256<<10)
	for pos := from; pos < size && pos < from+parCheckScan; {
		n, err := ra.ReadAt(buf, pos)
		if n < 10 {
			return 0, false
		}
		b := buf[:n]
		for i := 0; i+10 <= len(b); {
			j := bytes.IndexByte(b[i:], 0x1f)
			if j < 0 {
				break
			}
			i += j
			if i+10 > len(b) {
				break
			}
			if plausibleGzipHeader(b[i:]) && startsWARC(ra, pos+int64(i), size) {
				return pos + int64(i), true
			}
			i++
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, false
		}
		pos += int64(n - 9) // a header may straddle the window's end
	}
	return 0, false
}

// startsWARC reports whether the gzip member at off inflates to a WARC
// version line.
func startsWARC(ra io.ReaderAt, off, size int64) bool {
	zr, err := gzip.NewReader(io.NewSectionReader(ra, off, size-off))
	if err != nil {
		return false
	}
	zr.Multistream(false)
	var b [8]byte
	if _, err := io.ReadFull(zr, b[:]); err != nil {
		return false
	}
	return string(b[:6]) == "WARC/1" || string(b[:6]) == "WARC/0"
}
