package htcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"net/http"
	"time"

	"github.com/klauspost/compress/flate"
)

// Writer writes an HTTrack cache zip (hts-cache/new.zip) that HTTrack reads
// back: one deflated entry per URL, named by the URL, with the metadata text
// of Meta.Format as the local header's extra field (status line first,
// X-In-Cache second: HTTrack's index loader reads only those two lines), the
// zip time from Last-Modified, version 2.0, no flags, no central directory
// extra fields; then a central directory and the end record with a comment.
//
// On an io.WriteSeeker (a file) CRC and sizes are patched into each local
// header after its data, as HTTrack's minizip does, so a crawl interrupted
// before Close leaves a cache whose complete entries can be recovered. On a
// plain io.Writer entries carry a data descriptor instead (general purpose
// flag bit 3), which HTTrack accepts when it reads through the central
// directory.
//
// More than 65535 entries and offsets past 4 GiB get a ZIP64 end of central
// directory record and ZIP64 central extra fields. Entries whose data may
// reach 4 GiB (Meta.Size at least 0xF0000000) get a ZIP64 block in the local
// extra field, after the metadata text and an empty line, where HTTrack's
// parser stops.
type Writer struct {
	w       io.Writer
	ws      io.WriteSeeker
	base    int64 // seek position of the zip start
	off     int64 // bytes written so far
	entries []cdEntry
	cur     *entryWriter
	comment string
	err     error
	closed  bool
	fw      *flate.Writer // reused from entry to entry
}

type cdEntry struct {
	name         string
	flags        uint16
	mtime, mdate uint16
	crc          uint32
	csize, usize int64
	off          int64
}

// NewWriter starts a cache zip on w. If w is an io.WriteSeeker whose Seek
// works, local headers are patched in place; otherwise data descriptors are
// used.
func NewWriter(w io.Writer) *Writer {
	zw := &Writer{w: w}
	if ws, ok := w.(io.WriteSeeker); ok {
		if pos, err := ws.Seek(0, io.SeekCurrent); err == nil {
			zw.ws, zw.base = ws, pos
		}
	}
	return zw
}

// SetComment sets the zip comment (HTTrack writes its final log line).
func (w *Writer) SetComment(c string) error {
	if len(c) > 0xffff {
		return errors.New("zip comment longer than 65535 bytes")
	}
	w.comment = c
	return nil
}

// Count returns the number of entries written so far.
func (w *Writer) Count() int { return len(w.entries) }

// Add writes one entry. body is the entry's data (nil for none); when
// m.InCache it must be exactly m.Size bytes (an absent or zero Size meaning
// 0), as HTTrack's reader trusts X-Size; when not, body must be nil or empty
// (the body is the external file m.Save names).
func (w *Writer) Add(name string, m *Meta, body io.Reader) error {
	ew, err := w.Create(name, m)
	if err != nil {
		return err
	}
	if body != nil {
		if _, err := io.Copy(ew, body); err != nil {
			return err
		}
	}
	return w.closeEntry()
}

// Create starts an entry and returns a writer for its data (see Add). The
// entry ends at the next Create or at Close.
func (w *Writer) Create(name string, m *Meta) (io.Writer, error) {
	if err := w.closeEntry(); err != nil {
		return nil, err
	}
	if w.closed {
		return nil, errors.New("htcache: writer closed")
	}
	if name == "" || len(name) > 0xffff {
		return nil, fmt.Errorf("htcache: entry name of %d bytes", len(name))
	}
	text, err := m.Format()
	if err != nil {
		return nil, fmt.Errorf("htcache: %s: %w", name, err)
	}
	want := int64(0)
	if m.InCache && m.Size > 0 {
		want = m.Size
	}
	zip64 := want >= 0xf0000000
	extra := text
	if zip64 {
		extra = append(append(extra, "\r\n"...), make([]byte, 4+16)...)
		binary.LittleEndian.PutUint16(extra[len(extra)-20:], 0x0001)
		binary.LittleEndian.PutUint16(extra[len(extra)-18:], 16)
	}
	if len(extra) > 0xffff {
		return nil, fmt.Errorf("htcache: %s: metadata of %d bytes does not fit a zip extra field", name, len(extra))
	}
	e := cdEntry{name: name, off: w.off}
	e.mdate, e.mtime = 0x21, 0 // 1980-01-01 when there is no Last-Modified
	if t, err := http.ParseTime(m.LastModified); err == nil {
		e.mdate, e.mtime = toDOS(t)
	}
	if w.ws == nil {
		e.flags |= flagDescriptor
	}
	var h [localHeaderLen]byte
	binary.LittleEndian.PutUint32(h[0:], sigLocal)
	binary.LittleEndian.PutUint16(h[4:], 20)
	binary.LittleEndian.PutUint16(h[6:], e.flags)
	binary.LittleEndian.PutUint16(h[8:], methodDeflate)
	binary.LittleEndian.PutUint16(h[10:], e.mtime)
	binary.LittleEndian.PutUint16(h[12:], e.mdate)
	// CRC and sizes (14..26) are patched or go in the data descriptor.
	binary.LittleEndian.PutUint16(h[26:], uint16(len(name)))
	binary.LittleEndian.PutUint16(h[28:], uint16(len(extra)))
	if err := w.write(h[:], []byte(name), extra); err != nil {
		return nil, err
	}
	if w.fw == nil {
		w.fw, _ = flate.NewWriter(&countWriter{w: w}, flate.DefaultCompression)
	} else {
		w.fw.Reset(&countWriter{w: w})
	}
	fw := w.fw
	w.cur = &entryWriter{zw: w, e: e, fw: fw, crc: crc32.NewIEEE(), want: want, inCache: m.InCache, zip64: zip64,
		extraOff: e.off + localHeaderLen + int64(len(name)) + int64(len(text)) + 2 + 4, dataOff: w.off}
	return w.cur, nil
}

// write writes bytes to the underlying writer, counting them.
func (w *Writer) write(bs ...[]byte) error {
	if w.err != nil {
		return w.err
	}
	for _, b := range bs {
		n, err := w.w.Write(b)
		w.off += int64(n)
		if err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

type countWriter struct{ w *Writer }

func (c *countWriter) Write(p []byte) (int, error) {
	if err := c.w.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// entryWriter compresses one entry's data.
type entryWriter struct {
	zw       *Writer
	e        cdEntry
	fw       *flate.Writer
	crc      hash.Hash32
	n, want  int64
	inCache  bool
	zip64    bool
	extraOff int64 // where the ZIP64 block's data goes (after its 4-byte head)
	dataOff  int64 // where the compressed data starts
}

func (ew *entryWriter) Write(p []byte) (int, error) {
	if ew.zw.cur != ew {
		return 0, errors.New("htcache: write to a closed entry")
	}
	if !ew.inCache && len(p) > 0 {
		return 0, fmt.Errorf("htcache: %s: data written to an entry whose body is external (X-In-Cache: 0)", ew.e.name)
	}
	if ew.n+int64(len(p)) > ew.want {
		return 0, fmt.Errorf("htcache: %s: more data than X-Size %d", ew.e.name, ew.want)
	}
	ew.n += int64(len(p))
	ew.crc.Write(p)
	return ew.fw.Write(p)
}

// closeEntry finishes the current entry.
func (w *Writer) closeEntry() error {
	ew := w.cur
	if ew == nil {
		return w.err
	}
	w.cur = nil
	if err := ew.fw.Close(); err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	if ew.n != ew.want {
		w.err = fmt.Errorf("htcache: %s: %d bytes of data, X-Size says %d", ew.e.name, ew.n, ew.want)
		return w.err
	}
	e := ew.e
	e.crc, e.usize = ew.crc.Sum32(), ew.n
	e.csize = w.off - ew.dataOff
	if !ew.zip64 && (e.csize >= max32 || e.usize >= max32) {
		w.err = fmt.Errorf("htcache: %s: entry reached 4 GiB without a declared X-Size", e.name)
		return w.err
	}
	if w.ws != nil {
		var p [12]byte
		binary.LittleEndian.PutUint32(p[0:], e.crc)
		if ew.zip64 {
			binary.LittleEndian.PutUint32(p[4:], max32)
			binary.LittleEndian.PutUint32(p[8:], max32)
		} else {
			binary.LittleEndian.PutUint32(p[4:], uint32(e.csize))
			binary.LittleEndian.PutUint32(p[8:], uint32(e.usize))
		}
		if err := w.patch(e.off+14, p[:]); err != nil {
			return err
		}
		if ew.zip64 {
			var z [16]byte
			binary.LittleEndian.PutUint64(z[0:], uint64(e.usize))
			binary.LittleEndian.PutUint64(z[8:], uint64(e.csize))
			if err := w.patch(ew.extraOff, z[:]); err != nil {
				return err
			}
		}
	} else {
		d := make([]byte, 0, 24)
		d = binary.LittleEndian.AppendUint32(d, sigDescriptor)
		d = binary.LittleEndian.AppendUint32(d, e.crc)
		if ew.zip64 {
			d = binary.LittleEndian.AppendUint64(d, uint64(e.csize))
			d = binary.LittleEndian.AppendUint64(d, uint64(e.usize))
		} else {
			d = binary.LittleEndian.AppendUint32(d, uint32(e.csize))
			d = binary.LittleEndian.AppendUint32(d, uint32(e.usize))
		}
		if err := w.write(d); err != nil {
			return err
		}
	}
	w.entries = append(w.entries, e)
	return nil
}

// patch overwrites bytes at zip offset off and returns to the end.
func (w *Writer) patch(off int64, b []byte) error {
	if _, err := w.ws.Seek(w.base+off, io.SeekStart); err != nil {
		w.err = err
		return err
	}
	if _, err := w.ws.Write(b); err != nil {
		w.err = err
		return err
	}
	if _, err := w.ws.Seek(w.base+w.off, io.SeekStart); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Close finishes the last entry and writes the central directory and end
// records. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	if err := w.closeEntry(); err != nil {
		return err
	}
	w.closed = true
	cdStart := w.off
	for _, e := range w.entries {
		var z64 []byte
		csize, usize, off := uint32(e.csize), uint32(e.usize), uint32(e.off)
		if e.usize >= max32 || e.csize >= max32 || e.off >= max32 {
			z64 = make([]byte, 4, 28)
			if e.usize >= max32 {
				z64 = binary.LittleEndian.AppendUint64(z64, uint64(e.usize))
				usize = max32
			}
			if e.csize >= max32 {
				z64 = binary.LittleEndian.AppendUint64(z64, uint64(e.csize))
				csize = max32
			}
			if e.off >= max32 {
				z64 = binary.LittleEndian.AppendUint64(z64, uint64(e.off))
				off = max32
			}
			binary.LittleEndian.PutUint16(z64[0:], 0x0001)
			binary.LittleEndian.PutUint16(z64[2:], uint16(len(z64)-4))
		}
		var h [centralHeaderLen]byte
		binary.LittleEndian.PutUint32(h[0:], sigCentral)
		binary.LittleEndian.PutUint16(h[4:], 0) // made by: MS-DOS, as minizip
		binary.LittleEndian.PutUint16(h[6:], 20)
		if z64 != nil {
			binary.LittleEndian.PutUint16(h[6:], 45)
		}
		binary.LittleEndian.PutUint16(h[8:], e.flags)
		binary.LittleEndian.PutUint16(h[10:], methodDeflate)
		binary.LittleEndian.PutUint16(h[12:], e.mtime)
		binary.LittleEndian.PutUint16(h[14:], e.mdate)
		binary.LittleEndian.PutUint32(h[16:], e.crc)
		binary.LittleEndian.PutUint32(h[20:], csize)
		binary.LittleEndian.PutUint32(h[24:], usize)
		binary.LittleEndian.PutUint16(h[28:], uint16(len(e.name)))
		binary.LittleEndian.PutUint16(h[30:], uint16(len(z64)))
		binary.LittleEndian.PutUint32(h[42:], off)
		if err := w.write(h[:], []byte(e.name), z64); err != nil {
			return err
		}
	}
	cdEnd := w.off
	n := int64(len(w.entries))
	cdSize := cdEnd - cdStart
	if n >= 0xffff || cdSize >= max32 || cdStart >= max32 {
		var r [end64Len]byte
		binary.LittleEndian.PutUint32(r[0:], sigEnd64)
		binary.LittleEndian.PutUint64(r[4:], end64Len-12)
		binary.LittleEndian.PutUint16(r[12:], 45)
		binary.LittleEndian.PutUint16(r[14:], 45)
		binary.LittleEndian.PutUint64(r[24:], uint64(n))
		binary.LittleEndian.PutUint64(r[32:], uint64(n))
		binary.LittleEndian.PutUint64(r[40:], uint64(cdSize))
		binary.LittleEndian.PutUint64(r[48:], uint64(cdStart))
		var l [end64LocLen]byte
		binary.LittleEndian.PutUint32(l[0:], sigEnd64Loc)
		binary.LittleEndian.PutUint64(l[8:], uint64(cdEnd))
		binary.LittleEndian.PutUint32(l[16:], 1)
		if err := w.write(r[:], l[:]); err != nil {
			return err
		}
	}
	var r [endLen]byte
	binary.LittleEndian.PutUint32(r[0:], sigEnd)
	cnt := uint16(0xffff)
	if n < 0xffff {
		cnt = uint16(n)
	}
	binary.LittleEndian.PutUint16(r[8:], cnt)
	binary.LittleEndian.PutUint16(r[10:], cnt)
	binary.LittleEndian.PutUint32(r[12:], uint32(min(cdSize, max32)))
	binary.LittleEndian.PutUint32(r[16:], uint32(min(cdStart, max32)))
	binary.LittleEndian.PutUint16(r[20:], uint16(len(w.comment)))
	return w.write(r[:], []byte(w.comment))
}

// toDOS converts t (taken as UTC, like HTTrack's GMT Last-Modified fields)
// to an MS-DOS date and time.
func toDOS(t time.Time) (date, tm uint16) {
	t = t.UTC()
	if t.Year() < 1980 {
		return 0x21, 0
	}
	if t.Year() > 2107 {
		return 0xff9f, 0xbf7d // 2107-12-31 23:59:58
	}
	date = uint16((t.Year()-1980)<<9 | int(t.Month())<<5 | t.Day())
	tm = uint16(t.Hour()<<11 | t.Minute()<<5 | t.Second()/2)
	return date, tm
}
