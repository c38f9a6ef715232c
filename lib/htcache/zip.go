package htcache

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strings"
	"time"

	"github.com/klauspost/compress/flate"
)

// Zip signatures (APPNOTE.TXT 4.3).
const (
	sigLocal      = 0x04034b50
	sigCentral    = 0x02014b50
	sigEnd        = 0x06054b50
	sigEnd64      = 0x06064b50
	sigEnd64Loc   = 0x07064b50
	sigDescriptor = 0x08074b50
	sigDigital    = 0x05054b50

	localHeaderLen   = 30
	centralHeaderLen = 46
	endLen           = 22
	end64LocLen      = 20
	end64Len         = 56

	flagEncrypted  = 0x1
	flagDescriptor = 0x8

	methodStore   = 0
	methodDeflate = 8

	max32 = 0xffffffff
)

// ErrNotZip is returned by NewZipReader for input that holds neither a local
// file header at offset 0 nor an end of central directory record.
var ErrNotZip = errors.New("not a zip file")

// ScanSummary says what a ZipReader found, complete once Next has returned
// io.EOF.
type ScanSummary struct {
	// Entries is the number of entries yielded.
	Entries int
	// CentralDirectory is true when an end of central directory record was
	// found; CentralEntries is the number of entries its directory lists
	// (counted by walking it: HTTrack writes 0xffff in the 16-bit count
	// fields past 65535 entries, with or without a ZIP64 record).
	CentralDirectory bool
	CentralEntries   int64
	// ZIP64 is true when a ZIP64 end of central directory record was found.
	ZIP64 bool
	// Comment is the zip comment (HTTrack writes its final log line there).
	Comment string
	// Recovered is true when there was no central directory, so entries were
	// recovered from their local headers only (a crawl interrupted before
	// HTTrack closed the zip); each recovered entry's CRC-32 was verified.
	Recovered bool
	// Skipped counts damaged entries (or runs of unreadable bytes) skipped;
	// SkippedBytes the bytes passed over while resynchronising.
	Skipped      int
	SkippedBytes int64
	// TruncatedAt is the offset of an incomplete last entry (cut by an
	// interruption), or -1.
	TruncatedAt int64
	// DataBytes is the sum of the entries' stored (uncompressed) sizes.
	DataBytes int64
}

// cdInfo is what the central directory says about one entry whose local
// header leaves sizes out.
type cdInfo struct {
	crc          uint32
	csize, usize int64
}

// cdRecord is one central directory entry, kept to cross-check the local
// headers once the scan is over.
type cdRecord struct {
	at           int64 // offset of the central directory header
	loff         int64 // local header offset it gives
	crc          uint32
	csize, usize int64
	name         string
}

// localInfo is what a local header (completed by a data descriptor or
// the central directory) said about the entry read at an offset.
type localInfo struct {
	crc          uint32
	csize, usize int64
}

// ZipReader scans an HTTrack cache zip entry by entry from its local file
// headers. It implements the sequential part of reading; bodies are read with
// Entry.OpenStored, which reads the same io.ReaderAt and may be used while
// scanning continues.
type ZipReader struct {
	r    io.ReaderAt
	size int64
	name string
	cfg  config

	off      int64 // next local header
	end      int64 // entries end here (central directory start, or size)
	cdStart  int64 // -1 without central directory
	cdFixups map[int64]cdInfo
	cdList   []cdRecord          // every central directory entry
	locals   map[int64]localInfo // entries read, by local header offset
	damaged  map[int64]bool      // offsets already reported
	done     bool
	checked  bool
	buf      []byte // header read buffer
	sum      ScanSummary
}

// NewZipReader prepares to scan the zip r of size bytes; name is used in
// errors. It reads the central directory, when there is one, for
// cross-checking; it never needs it.
func NewZipReader(r io.ReaderAt, size int64, name string, opts ...Option) (*ZipReader, error) {
	z := &ZipReader{r: r, size: size, name: name, cfg: newConfig(opts), cdStart: -1, end: size, buf: make([]byte, 2048)}
	z.sum.TruncatedAt = -1
	var sig [4]byte
	if size >= 4 {
		if _, err := r.ReadAt(sig[:], 0); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := z.readCentral(); err != nil {
		return nil, err
	}
	first := binary.LittleEndian.Uint32(sig[:])
	if size < 4 || (first != sigLocal && !z.sum.CentralDirectory) {
		return nil, fmt.Errorf("%s: %w", name, ErrNotZip)
	}
	if !z.sum.CentralDirectory {
		z.sum.Recovered = true
		z.cfg.verify = true
	}
	return z, nil
}

// Summary returns what the scan found so far (complete after io.EOF).
func (z *ZipReader) Summary() ScanSummary { return z.sum }

func (z *ZipReader) errf(off int64, format string, a ...any) error {
	return fmt.Errorf("%s: entry at offset %d: %s", z.name, off, fmt.Sprintf(format, a...))
}

// readAt reads exactly len(b) bytes at off.
func (z *ZipReader) readAt(b []byte, off int64) error {
	if off < 0 || off > z.size || int64(len(b)) > z.size-off {
		return io.ErrUnexpectedEOF
	}
	n, err := z.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// readCentral finds the end of central directory record (and the ZIP64 one)
// and walks the central directory, counting entries and keeping the sizes of
// entries whose local headers lack them.
func (z *ZipReader) readCentral() error {
	tail := int64(endLen + 0xffff)
	if tail > z.size {
		tail = z.size
	}
	if tail < endLen {
		return nil
	}
	buf := make([]byte, tail)
	if err := z.readAt(buf, z.size-tail); err != nil {
		return fmt.Errorf("%s: reading the end of the file: %w", z.name, err)
	}
	eocd := -1
	for i := len(buf) - endLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) != sigEnd {
			continue
		}
		clen := int(binary.LittleEndian.Uint16(buf[i+20:]))
		if i+endLen+clen == len(buf) {
			eocd = i
			break
		}
		if eocd < 0 && i+endLen+clen <= len(buf) {
			eocd = i // trailing junk after the comment; keep looking for an exact one
		}
	}
	if eocd < 0 {
		return nil
	}
	e := buf[eocd:]
	eocdPos := z.size - tail + int64(eocd)
	clen := int(binary.LittleEndian.Uint16(e[20:]))
	z.sum.CentralDirectory = true
	z.sum.Comment = string(e[endLen : endLen+clen])
	cdSize := int64(binary.LittleEndian.Uint32(e[12:]))
	cdOff := int64(binary.LittleEndian.Uint32(e[16:]))
	cdEnd := eocdPos

	// ZIP64 end of central directory locator and record.
	if eocdPos >= end64LocLen {
		var loc [end64LocLen]byte
		if z.readAt(loc[:], eocdPos-end64LocLen) == nil && binary.LittleEndian.Uint32(loc[:]) == sigEnd64Loc {
			recOff := int64(binary.LittleEndian.Uint64(loc[8:]))
			var rec [end64Len]byte
			if recOff >= 0 && recOff < eocdPos && z.readAt(rec[:], recOff) == nil &&
				binary.LittleEndian.Uint32(rec[:]) == sigEnd64 {
				z.sum.ZIP64 = true
				cdSize = int64(binary.LittleEndian.Uint64(rec[40:]))
				cdOff = int64(binary.LittleEndian.Uint64(rec[48:]))
				cdEnd = recOff
			}
		}
	}
	// The directory ends where the end records start; its size locates it
	// even when a 32-bit offset has wrapped past 4 GiB.
	start := cdOff
	if cdSize >= 0 && cdSize <= cdEnd && cdSize != max32 {
		start = cdEnd - cdSize
	}
	if start < 0 || start > cdEnd {
		return z.cfg.problem(z.name, eocdPos, false, false, "central directory offset out of range; ignoring it")
	}
	if err := z.walkCentral(start, cdEnd); err != nil {
		return err
	}
	return nil
}

// walkCentral counts central directory entries in [start, end).
func (z *ZipReader) walkCentral(start, end int64) error {
	br := bufio.NewReaderSize(io.NewSectionReader(z.r, start, end-start), 64<<10)
	var h [centralHeaderLen]byte
	var n int64
	off := start
	for off < end {
		if _, err := io.ReadFull(br, h[:]); err != nil || binary.LittleEndian.Uint32(h[:]) != sigCentral {
			if binary.LittleEndian.Uint32(h[:]) == sigDigital {
				break
			}
			z.sum.CentralEntries = n
			return z.cfg.problem(z.name, off, false, false,
				fmt.Sprintf("damaged central directory after %d entries; relying on local headers", n))
		}
		flags := binary.LittleEndian.Uint16(h[8:])
		crc := binary.LittleEndian.Uint32(h[16:])
		csize := int64(binary.LittleEndian.Uint32(h[20:]))
		usize := int64(binary.LittleEndian.Uint32(h[24:]))
		nlen := int(binary.LittleEndian.Uint16(h[28:]))
		elen := int(binary.LittleEndian.Uint16(h[30:]))
		clen := int(binary.LittleEndian.Uint16(h[32:]))
		loff := int64(binary.LittleEndian.Uint32(h[42:]))
		nameb := make([]byte, min(nlen, 200))
		if _, err := io.ReadFull(br, nameb); err != nil {
			break
		}
		if _, err := br.Discard(nlen - len(nameb)); err != nil {
			break
		}
		var extra []byte
		if csize == max32 || usize == max32 || loff == max32 {
			extra = make([]byte, elen)
			if _, err := io.ReadFull(br, extra); err != nil {
				break
			}
			u, c, o := usize == max32, csize == max32, loff == max32
			if z64, ok := findZip64(extra); ok {
				get := func(want bool, v *int64) {
					if want && len(z64) >= 8 {
						*v = int64(binary.LittleEndian.Uint64(z64))
						z64 = z64[8:]
					}
				}
				get(u, &usize)
				get(c, &csize)
				get(o, &loff)
			}
		} else if _, err := br.Discard(elen); err != nil {
			break
		}
		if _, err := br.Discard(clen); err != nil {
			break
		}
		if flags&flagDescriptor != 0 || extra != nil {
			if z.cdFixups == nil {
				z.cdFixups = map[int64]cdInfo{}
			}
			z.cdFixups[loff] = cdInfo{crc: crc, csize: csize, usize: usize}
		}
		z.cdList = append(z.cdList, cdRecord{at: off, loff: loff, crc: crc, csize: csize, usize: usize, name: string(nameb)})
		n++
		off += int64(centralHeaderLen + nlen + elen + clen)
	}
	z.sum.CentralEntries = n
	z.cdStart = start
	z.end = start
	return nil
}

// findZip64 returns the data of the ZIP64 extended information block (ID
// 0x0001) in a binary extra field that parses as well-formed blocks.
func findZip64(extra []byte) ([]byte, bool) {
	var found []byte
	ok := false
	for len(extra) >= 4 {
		id := binary.LittleEndian.Uint16(extra)
		n := int(binary.LittleEndian.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return nil, false
		}
		if id == 0x0001 && !ok {
			found, ok = extra[4:4+n], true
		}
		extra = extra[4+n:]
	}
	if len(extra) != 0 {
		return nil, false
	}
	return found, ok
}

// splitExtra separates HTTrack's text from a ZIP64 block in a local extra
// field. HTTrack writes bare text (starting "HTTP/"); arcport's Writer adds,
// only for entries of 4 GiB or more, a ZIP64 block after an empty line, which
// HTTrack's parser never reaches. An extra field that does not start with
// text is parsed as ordinary binary blocks.
func splitExtra(extra []byte) (text, z64 []byte) {
	if !bytes.HasPrefix(extra, []byte("HTTP/")) {
		if b, ok := findZip64(extra); ok {
			return nil, b
		}
		return extra, nil
	}
	if i := bytes.Index(extra, []byte("\r\n\r\n")); i >= 0 {
		if b, ok := findZip64(extra[i+4:]); ok && len(b) >= 16 {
			return extra[:i+2], b
		}
	}
	return extra, nil
}

// dosTime converts an MS-DOS date and time (HTTrack: Last-Modified in GMT).
func dosTime(d, t uint16) time.Time {
	if d == 0 {
		return time.Time{}
	}
	return time.Date(int(d>>9)+1980, time.Month(d>>5&0xf), int(d&0x1f),
		int(t>>11), int(t>>5&0x3f), int(t&0x1f)*2, 0, time.UTC)
}

// Next returns the next complete entry, or io.EOF. Damaged entries are
// skipped and reported under record.Warn (resynchronising on the next local
// header signature), or returned as errors under record.Fail.
func (z *ZipReader) Next() (*Entry, error) {
	for !z.done {
		e, next, err := z.readEntry(z.off)
		if err != nil {
			return nil, err
		}
		if e != nil {
			z.off = next
			z.sum.Entries++
			z.sum.DataBytes += e.StoredSize
			return e, nil
		}
		if next <= z.off && !z.done {
			return nil, z.errf(z.off, "internal error: no progress")
		}
		z.off = next
	}
	if !z.checked {
		z.checked = true
		if s := z.sum; s.CentralDirectory && s.CentralEntries != int64(s.Entries) {
			if err := z.cfg.problem(z.name, z.off, false, false, fmt.Sprintf(
				"central directory lists %d entries, %d read from local headers", s.CentralEntries, s.Entries)); err != nil {
				return nil, err
			}
		}
		if err := z.crossCheck(); err != nil {
			return nil, err
		}
	}
	return nil, io.EOF
}

// readEntry reads the entry at off. It returns the entry and the offset of
// the next one; or a nil entry and where to go on (done set at the end).
func (z *ZipReader) readEntry(off int64) (*Entry, int64, error) {
	if off >= z.end {
		return nil, z.finish(off), nil
	}
	if off+4 > z.size {
		return z.truncated(off)
	}
	// One read for the header and, usually, its name and extra field.
	n := int64(len(z.buf))
	if off+n > z.size {
		n = z.size - off
	}
	if err := z.readAt(z.buf[:n], off); err != nil {
		return nil, off, z.errf(off, "%v", err)
	}
	h := z.buf[:n]
	switch binary.LittleEndian.Uint32(h) {
	case sigLocal:
	case sigCentral, sigEnd, sigEnd64, sigEnd64Loc, sigDigital:
		// A central directory the end record did not lead to (written
		// partly when the crawl was interrupted, or misplaced).
		z.done = true
		return nil, off, nil
	default:
		return z.resync(off, off, "no local file header signature")
	}
	if off+localHeaderLen > z.size {
		return z.truncated(off)
	}
	flags := binary.LittleEndian.Uint16(h[6:])
	method := binary.LittleEndian.Uint16(h[8:])
	mtime := binary.LittleEndian.Uint16(h[10:])
	mdate := binary.LittleEndian.Uint16(h[12:])
	crc := binary.LittleEndian.Uint32(h[14:])
	csize := int64(binary.LittleEndian.Uint32(h[18:]))
	usize := int64(binary.LittleEndian.Uint32(h[22:]))
	nlen := int64(binary.LittleEndian.Uint16(h[26:]))
	elen := int64(binary.LittleEndian.Uint16(h[28:]))
	dataOff := off + localHeaderLen + nlen + elen
	if dataOff > z.end {
		return z.truncated(off)
	}
	ne := make([]byte, nlen+elen)
	if got := copy(ne, h[localHeaderLen:]); int64(got) < nlen+elen {
		if err := z.readAt(ne[got:], off+localHeaderLen+int64(got)); err != nil {
			return nil, off, z.errf(off, "%v", err)
		}
	}
	name, extra := string(ne[:nlen]), ne[nlen:]
	text, z64 := splitExtra(extra)

	if csize == max32 || usize == max32 {
		u, c := usize == max32, csize == max32
		if len(z64) >= 8 && u {
			usize = int64(binary.LittleEndian.Uint64(z64))
			z64 = z64[8:]
		}
		if len(z64) >= 8 && c {
			csize = int64(binary.LittleEndian.Uint64(z64))
		}
		if fx, ok := z.cdFixups[off]; ok && (usize == max32 || csize == max32) {
			usize, csize = fx.usize, fx.csize
		}
	}
	descriptor := flags&flagDescriptor != 0
	if descriptor {
		if fx, ok := z.cdFixups[off]; ok {
			crc, csize, usize = fx.crc, fx.csize, fx.usize
			if csize < 0 || usize < 0 || csize > z.end-dataOff {
				return z.resync(off, off+4, fmt.Sprintf("central directory sizes (compressed %d, size %d) run past the central directory", uint64(csize), uint64(usize)))
			}
			dEnd, err := z.skipDescriptor(dataOff+csize, csize, usize)
			if err != nil {
				return z.resync(off, off+4, err.Error())
			}
			return z.finishEntry(off, dEnd, name, text, flags, method, mtime, mdate, crc, csize, usize, dataOff)
		}
		if method != methodDeflate {
			return z.resync(off, off+4, "sizes in a data descriptor and no central directory to find them")
		}
		c, u, sum, err := z.inflateExtent(dataOff)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return z.truncated(off)
			}
			return z.resync(off, off+4, err.Error())
		}
		crc, csize, usize = sum, c, u
		dEnd, err := z.skipDescriptor(dataOff+csize, csize, usize)
		if err != nil {
			return z.resync(off, off+4, err.Error())
		}
		return z.finishEntry(off, dEnd, name, text, flags, method, mtime, mdate, crc, csize, usize, dataOff)
	}
	if csize == max32 || usize == max32 {
		return z.resync(off, off+4, "ZIP64 sizes without a ZIP64 extra block")
	}
	if csize < 0 || usize < 0 {
		return z.resync(off, off+4, fmt.Sprintf("impossible ZIP64 sizes (compressed %d, size %d)", uint64(csize), uint64(usize)))
	}
	if csize > z.end-dataOff {
		if z.cdStart < 0 {
			// Interrupted while writing this entry, unless a later
			// header shows the size lies.
			if next, err := z.findSignature(dataOff); err == nil && next < z.end {
				return z.resync(off, dataOff, fmt.Sprintf("compressed size %d runs past the end of the file", csize))
			}
			return z.truncated(off)
		}
		return z.resync(off, off+4, fmt.Sprintf("compressed size %d runs past the central directory", csize))
	}
	return z.finishEntry(off, dataOff+csize, name, text, flags, method, mtime, mdate, crc, csize, usize, dataOff)
}

func (z *ZipReader) finishEntry(off, next int64, name string, text []byte, flags, method, mtime, mdate uint16,
	crc uint32, csize, usize, dataOff int64) (*Entry, int64, error) {
	if flags&flagEncrypted != 0 {
		return nil, next, z.skip(off, "encrypted entry")
	}
	if method != methodStore && method != methodDeflate {
		return nil, next, z.skip(off, fmt.Sprintf("unsupported compression method %d", method))
	}
	if method == methodStore && csize != usize {
		return z.resync(off, dataOff, fmt.Sprintf("stored entry with compressed size %d and size %d", csize, usize))
	}
	if method == methodDeflate && usize > 1024 && (usize-1024)/1032 > csize {
		// Deflate cannot expand more than about 1032:1.
		return z.resync(off, dataOff, fmt.Sprintf("declared size %d impossible for %d deflated bytes", usize, csize))
	}
	meta, err := ParseMeta(text)
	if err != nil {
		return nil, next, z.skip(off, "metadata: "+err.Error())
	}
	if z.cdStart >= 0 {
		if z.locals == nil {
			z.locals = map[int64]localInfo{}
		}
		z.locals[off] = localInfo{crc: crc, csize: csize, usize: usize}
	}
	e := &Entry{
		Name: name, Offset: off, Method: method, Flags: flags, CRC32: crc,
		CompressedSize: csize, StoredSize: usize, Modified: dosTime(mdate, mtime),
		Meta: meta, dataOffset: dataOff,
	}
	e.open = func() (io.ReadCloser, error) { return z.openData(e) }
	if z.cfg.verify {
		rc, _ := z.openData(e)
		_, err := io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			// Resynchronise inside the data: a lying size may hide
			// entries that follow.
			return z.resync(off, dataOff, trimPrefix(err.Error(), z.name, off))
		}
	}
	return e, next, nil
}

// skip reports a damaged entry that is passed over.
func (z *ZipReader) skip(off int64, msg string) error {
	z.sum.Skipped++
	z.markDamaged(off)
	return z.cfg.problem(z.name, off, false, true, msg)
}

// finish ends the scan at off.
func (z *ZipReader) finish(off int64) int64 {
	z.done = true
	return off
}

// truncated ends the scan at an incomplete entry.
func (z *ZipReader) truncated(off int64) (*Entry, int64, error) {
	z.done = true
	z.markDamaged(off)
	z.sum.TruncatedAt = off
	z.sum.SkippedBytes += z.end - off
	msg := fmt.Sprintf("incomplete entry (%d bytes up to the end) ignored", z.end-off)
	if z.cdStart >= 0 {
		msg = fmt.Sprintf("entry runs past the central directory (%d bytes) ignored", z.end-off)
	}
	return nil, off, z.cfg.problem(z.name, off, false, true, msg)
}

// resync reports damage at off and looks for the next local header
// signature from from.
func (z *ZipReader) resync(off, from int64, msg string) (*Entry, int64, error) {
	z.sum.Skipped++
	z.markDamaged(off)
	if err := z.cfg.problem(z.name, off, false, true, msg); err != nil {
		return nil, off, err
	}
	next, err := z.findSignature(from)
	if err != nil {
		return nil, off, z.errf(off, "%v", err)
	}
	z.sum.SkippedBytes += next - off
	if next >= z.end {
		z.done = true
	}
	return nil, next, nil
}

// findSignature returns the offset of the next "PK\x03\x04" at or after
// from (or of the central directory, or end).
func (z *ZipReader) findSignature(from int64) (int64, error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk+3)
	for pos := from; pos < z.end; pos += chunk {
		n := int64(len(buf))
		if pos+n > z.end {
			n = z.end - pos
		}
		if err := z.readAt(buf[:n], pos); err != nil {
			return 0, err
		}
		if i := bytes.Index(buf[:n], []byte("PK\x03\x04")); i >= 0 {
			return pos + int64(i), nil
		}
	}
	return z.end, nil
}

// skipDescriptor returns the offset after the data descriptor at off.
func (z *ZipReader) skipDescriptor(off, csize, usize int64) (int64, error) {
	var d [24]byte
	n := int64(24)
	if off < 0 || off > z.end {
		return 0, fmt.Errorf("data descriptor missing")
	}
	if n > z.end-off {
		n = z.end - off
	}
	if n < 12 {
		return 0, fmt.Errorf("data descriptor missing")
	}
	if err := z.readAt(d[:n], off); err != nil {
		return 0, err
	}
	b := d[:n]
	base := int64(0)
	if binary.LittleEndian.Uint32(b) == sigDescriptor {
		base = 4
	}
	// 32-bit sizes, or 64-bit ones for ZIP64.
	if base+12 <= n && int64(binary.LittleEndian.Uint32(b[base+4:])) == csize&max32 {
		if csize >= max32 || usize >= max32 {
			return off + base + 20, nil
		}
		return off + base + 12, nil
	}
	if base+20 <= n && int64(binary.LittleEndian.Uint64(b[base+4:])) == csize {
		return off + base + 20, nil
	}
	return 0, fmt.Errorf("data descriptor does not match the data (compressed size %d)", csize)
}

// inflateExtent inflates the deflate stream at off to learn its compressed
// and uncompressed sizes and CRC-32 (entries with a data descriptor and no
// central directory).
func (z *ZipReader) inflateExtent(off int64) (csize, usize int64, sum uint32, err error) {
	cr := &countReader{r: io.NewSectionReader(z.r, off, z.end-off)}
	br := bufio.NewReaderSize(cr, 32<<10)
	fr := flate.NewReader(br)
	defer fr.Close()
	h := crc32.NewIEEE()
	usize, err = io.Copy(h, fr)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, 0, 0, err
	}
	return cr.n - int64(br.Buffered()), usize, h.Sum32(), nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// openData opens an entry's stored data.
func (z *ZipReader) openData(e *Entry) (io.ReadCloser, error) {
	sr := io.NewSectionReader(z.r, e.dataOffset, e.CompressedSize)
	cr := &checkedReader{want: e.StoredSize, wantCRC: e.CRC32, crc: crc32.NewIEEE(), name: z.name, off: e.Offset}
	switch e.Method {
	case methodStore:
		cr.r = sr
	case methodDeflate:
		cnt := &countReader{r: sr}
		br := bufio.NewReaderSize(cnt, 16<<10)
		fr := flate.NewReader(br)
		cr.r, cr.c = fr, fr
		cr.consumed = func() int64 { return cnt.n - int64(br.Buffered()) }
		cr.csize = e.CompressedSize
	default:
		return nil, z.errf(e.Offset, "unsupported compression method %d", e.Method)
	}
	return cr, nil
}

// checkedReader stops a body at its declared size and checks its CRC-32.
type checkedReader struct {
	r       io.Reader
	c       io.Closer
	crc     hash.Hash32
	n, want int64
	wantCRC uint32
	// consumed, for deflate, returns the compressed bytes used so far;
	// the stream must end exactly at csize.
	consumed func() int64
	csize    int64
	name     string
	off      int64
	err      error
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if rem := c.want - c.n; rem >= 0 && rem < int64(len(p))-1 {
		p = p[:rem+1] // one more byte reveals data beyond the declared size
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.want {
		c.err = fmt.Errorf("%s: entry at offset %d: data exceeds its declared size %d", c.name, c.off, c.want)
		return 0, c.err
	}
	c.crc.Write(p[:n])
	switch {
	case err == io.EOF:
		if c.n != c.want {
			c.err = fmt.Errorf("%s: entry at offset %d: data is %d bytes, declared %d", c.name, c.off, c.n, c.want)
			return n, c.err
		}
		if c.consumed != nil {
			if used := c.consumed(); used != c.csize {
				c.err = fmt.Errorf("%s: entry at offset %d: deflate data ends after %d of its %d bytes", c.name, c.off, used, c.csize)
				return n, c.err
			}
		}
		if got := c.crc.Sum32(); got != c.wantCRC {
			c.err = fmt.Errorf("%s: entry at offset %d: CRC-32 %08x, declared %08x", c.name, c.off, got, c.wantCRC)
			return n, c.err
		}
		c.err = io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		c.err = fmt.Errorf("%s: entry at offset %d: data cut short: %w", c.name, c.off, err)
	case err != nil:
		c.err = fmt.Errorf("%s: entry at offset %d: %w", c.name, c.off, err)
	}
	return n, c.err
}

func (c *checkedReader) Close() error {
	if c.c != nil {
		return c.c.Close()
	}
	return nil
}

// trimPrefix removes the "name: entry at offset N: " prefix from a message
// that will be reported with the same file and offset.
func trimPrefix(msg, name string, off int64) string {
	return strings.TrimPrefix(msg, fmt.Sprintf("%s: entry at offset %d: ", name, off))
}

// markDamaged notes that the entry at off was reported, so that the
// cross-check of the central directory does not report it again.
func (z *ZipReader) markDamaged(off int64) {
	if z.damaged == nil {
		z.damaged = map[int64]bool{}
	}
	z.damaged[off] = true
}

// crossCheck compares each central directory entry with the entry read at
// the local header offset it gives: a directory that points where no
// entry starts, or whose CRC-32 or sizes differ from the local header's,
// is a problem (reported at the central directory header) even though
// the scan, which trusts local headers, read the entry. Entries already
// reported as damaged are not reported again.
func (z *ZipReader) crossCheck() error {
	for _, c := range z.cdList {
		if z.damaged[c.loff] {
			continue
		}
		name := c.name
		if len(name) > 80 {
			name = name[:80] + "..."
		}
		l, ok := z.locals[c.loff]
		var msg string
		switch {
		case !ok:
			msg = fmt.Sprintf("central directory entry %q gives local header offset %d, where no entry starts", name, uint64(c.loff))
		case c.csize != l.csize:
			msg = fmt.Sprintf("central directory entry %q gives compressed size %d, the entry at offset %d has %d", name, uint64(c.csize), c.loff, l.csize)
		case c.usize != l.usize:
			msg = fmt.Sprintf("central directory entry %q gives size %d, the entry at offset %d has %d", name, uint64(c.usize), c.loff, l.usize)
		case c.crc != l.crc:
			msg = fmt.Sprintf("central directory entry %q gives CRC-32 %08x, the entry at offset %d has %08x", name, c.crc, c.loff, l.crc)
		default:
			continue
		}
		if err := z.cfg.problem(z.name, c.at, false, false, msg); err != nil {
			return err
		}
	}
	return nil
}
