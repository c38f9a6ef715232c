package wacz

import (
	"bufio"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/record"
	"github.com/klauspost/compress/flate"
)

// Zip compression methods (APPNOTE 4.4.5).
const (
	Store   uint16 = 0
	Deflate uint16 = 8
)

const (
	sigLocal      = 0x04034b50
	sigCentral    = 0x02014b50
	sigDescriptor = 0x08074b50
	sigEnd        = 0x06054b50
	sigEnd64      = 0x06064b50
	sigLocator64  = 0x07064b50
	zip64ExtraID  = 0x0001
	uint16max     = 0xffff
	uint32max     = 0xffffffff
	flagDescr     = 0x8
	flagUTF8      = 0x800
	versionZip64  = 45
	versionNormal = 20
	// checkpointEvery bounds how many bytes a rewind has to hash again.
	checkpointEvery = 1 << 20
)

// zip64Threshold is where sizes and offsets switch to ZIP64 fields. It is a
// variable so tests can exercise the ZIP64 code without writing 4 GiB.
var zip64Threshold uint64 = uint32max

// zip64Records is the entry count from which the end records are ZIP64.
var zip64Records = uint16max

// ZipFile is what ZipWriter writes to: a regular file, which it can read back
// and truncate (*os.File satisfies it). Rewinding an entry needs both.
type ZipFile interface {
	io.Writer
	io.ReaderAt
	io.Seeker
	Truncate(size int64) error
}

// ZipWriter writes a zip file front to back, one entry at a time, like
// archive/zip.Writer, with two additions WACZ writing needs: every entry's
// content hash (sha256 or md5, as datapackage.json lists it) is computed as
// the bytes stream in, and a STORED entry can be cut back to an earlier
// length (ZipEntry.Truncate), so raw input copied ahead of parsing can be
// withdrawn. Entries use data descriptors and carry no extra field in their
// local header (ReplayWeb.page computes data offsets assuming so); ZIP64
// fields are written when sizes, offsets or the entry count need them.
type ZipWriter struct {
	f       ZipFile
	bw      *bufio.Writer
	off     int64 // bytes written to f (through bw)
	dir     []*centralEntry
	cur     *ZipEntry
	names   map[string]bool
	closed  bool
	modTime time.Time
}

type centralEntry struct {
	name     string
	method   uint16
	flags    uint16
	crc      uint32
	csize    uint64
	usize    uint64
	offset   uint64
	dosTime  uint16
	dosDate  uint16
	hashName string
	hashSum  []byte
}

// Releaser is a ZipFile that passes bytes on to a forward-only stream
// once told they are final (lib/internal/tailfile over an S3 upload).
// ZipWriter releases everything before an entry it starts, the content of
// a STORED entry up to its last Commit, and the whole file at Close, and
// never reads back, truncates or seeks before what it released.
type Releaser interface {
	Release(off int64) error
}

// release tells a Releaser file that the bytes before off are final.
func (z *ZipWriter) release(off int64) error {
	r, ok := z.f.(Releaser)
	if !ok {
		return nil
	}
	if err := z.bw.Flush(); err != nil {
		return err
	}
	return r.Release(off)
}

// NewZipWriter returns a writer that writes a zip file to f, starting at the
// current end of what it has written (offset 0 of f).
func NewZipWriter(f ZipFile) *ZipWriter {
	return &ZipWriter{f: f, bw: bufio.NewWriterSize(f, 1<<20), names: map[string]bool{}, modTime: time.Now()}
}

// SetModTime sets the modification time recorded for entries created from
// now on (the default is the time NewZipWriter was called).
func (z *ZipWriter) SetModTime(t time.Time) { z.modTime = t }

// Create starts a new entry, closing the current one. method is Store or
// Deflate; hashAlg names the content hash to compute ("sha256", "md5"; ""
// means sha256).
func (z *ZipWriter) Create(name string, method uint16, hashAlg string) (*ZipEntry, error) {
	h, hashName, err := newEntryHash(hashAlg)
	if err != nil {
		return nil, err
	}
	ce, err := z.begin(name, method, hashName)
	if err != nil {
		return nil, err
	}
	e := &ZipEntry{z: z, ce: ce, dataStart: z.off, crc: crc32.NewIEEE(), sum: h}
	if method == Deflate {
		e.cw = &countWriter{w: zipWriterSink{z}}
		e.fw, _ = flate.NewWriter(e.cw, flate.DefaultCompression)
	} else {
		e.checkpoint()
	}
	z.cur = e
	return e, nil
}

func newEntryHash(hashAlg string) (hash.Hash, string, error) {
	if hashAlg == "" {
		hashAlg = "sha256"
	}
	h, err := record.NewHash(hashAlg)
	return h, strings.ToLower(hashAlg), err
}

// begin closes the current entry and writes the local header of the next.
func (z *ZipWriter) begin(name string, method uint16, hashName string) (*centralEntry, error) {
	if z.closed {
		return nil, errors.New("zip: write after close")
	}
	if z.cur != nil {
		if err := z.cur.Close(); err != nil {
			return nil, err
		}
	}
	if err := z.release(z.off); err != nil {
		return nil, err
	}
	if name == "" || strings.HasPrefix(name, "/") || len(name) > uint16max {
		return nil, fmt.Errorf("zip: bad entry name %q", name)
	}
	if z.names[name] {
		return nil, fmt.Errorf("zip: duplicate entry %q", name)
	}
	if method != Store && method != Deflate {
		return nil, fmt.Errorf("zip: unsupported method %d", method)
	}
	z.names[name] = true
	ce := &centralEntry{name: name, method: method, flags: flagDescr, offset: uint64(z.off), hashName: hashName}
	if !isASCII(name) && utf8.ValidString(name) {
		ce.flags |= flagUTF8
	}
	ce.dosDate, ce.dosTime = dosDateTime(z.modTime)
	var b [30]byte
	w := writeBuf(b[:])
	w.uint32(sigLocal)
	w.uint16(versionNormal)
	w.uint16(ce.flags)
	w.uint16(method)
	w.uint16(ce.dosTime)
	w.uint16(ce.dosDate)
	w.uint32(0) // crc, sizes: in the data descriptor
	w.uint32(0)
	w.uint32(0)
	w.uint16(uint16(len(name)))
	w.uint16(0) // no extra field
	if err := z.write(b[:]); err != nil {
		return nil, err
	}
	if err := z.write([]byte(name)); err != nil {
		return nil, err
	}
	return ce, nil
}

// PreparedEntry is a Deflate entry compressed ahead of time, away from the
// ZipWriter (in another goroutine, while the writer writes other entries),
// into a spill that stays in memory up to 1 MiB and goes to an unlinked
// temporary file past that. Add it with ZipWriter.AddPrepared; Close it
// when done with it.
type PreparedEntry struct {
	Name  string
	Hash  string // as datapackage.json lists it, "sha256:<hex>"
	Size  int64  // content bytes
	crc   uint32
	data  *spill
	sum   []byte
	hname string
}

// preparedMem is what a PreparedEntry keeps in memory (several are
// prepared at once).
const preparedMem = 1 << 20

// PrepareDeflate compresses what fill writes, as ZipWriter.Create with
// Deflate would, computing its CRC-32 and content hash.
func PrepareDeflate(name, hashAlg, tmpDir string, fill func(io.Writer) error) (*PreparedEntry, error) {
	h, hashName, err := newEntryHash(hashAlg)
	if err != nil {
		return nil, err
	}
	p := &PreparedEntry{Name: name, data: &spill{dir: tmpDir, max: preparedMem}, hname: hashName}
	crc := crc32.NewIEEE()
	fw, _ := flate.NewWriter(p.data, flate.DefaultCompression)
	cw := &countWriter{w: io.MultiWriter(crc, h, fw)}
	if err := fill(cw); err != nil {
		p.Close()
		return nil, err
	}
	if err := fw.Close(); err != nil {
		p.Close()
		return nil, err
	}
	if err := p.data.rewind(); err != nil {
		p.Close()
		return nil, err
	}
	p.Size, p.crc, p.sum = cw.n, crc.Sum32(), h.Sum(nil)
	p.Hash = hashName + ":" + hex.EncodeToString(p.sum)
	return p, nil
}

// Close releases the entry's spill.
func (p *PreparedEntry) Close() error { return p.data.Close() }

// AddPrepared writes a prepared entry, closing the current one.
func (z *ZipWriter) AddPrepared(p *PreparedEntry) error {
	ce, err := z.begin(p.Name, Deflate, p.hname)
	if err != nil {
		return err
	}
	cw := &countWriter{w: zipWriterSink{z}}
	if _, err := io.Copy(cw, p.data); err != nil {
		return err
	}
	ce.crc, ce.csize, ce.usize, ce.hashSum = p.crc, uint64(cw.n), uint64(p.Size), p.sum
	return z.endEntry(ce)
}

func (z *ZipWriter) write(p []byte) error {
	if len(p) >= directWrite {
		// straight to the file after what is buffered: bufio would copy
		// it through its buffer whenever that holds a few bytes (an
		// entry's local header), i.e. nearly always
		if err := z.bw.Flush(); err != nil {
			return err
		}
		n, err := z.f.Write(p)
		z.off += int64(n)
		if err == nil && n < len(p) {
			err = io.ErrShortWrite
		}
		return err
	}
	n, err := z.bw.Write(p)
	z.off += int64(n)
	return err
}

// directWrite is the size from which write bypasses the buffer (the raw
// WARC bytes come in slices of up to a MiB).
const directWrite = 64 << 10

type zipWriterSink struct{ z *ZipWriter }

func (s zipWriterSink) Write(p []byte) (int, error) {
	return len(p), s.z.write(p)
}

// Offset returns the number of bytes of the zip file written so far.
func (z *ZipWriter) Offset() int64 { return z.off }

// Close closes the current entry and writes the central directory and end
// records. It does not close the underlying file.
func (z *ZipWriter) Close() error {
	if z.closed {
		return nil
	}
	if z.cur != nil {
		if err := z.cur.Close(); err != nil {
			return err
		}
	}
	z.closed = true
	start := z.off
	for _, ce := range z.dir {
		var b [46]byte
		w := writeBuf(b[:])
		w.uint32(sigCentral)
		big := ce.csize >= zip64Threshold || ce.usize >= zip64Threshold || ce.offset >= zip64Threshold
		version := uint16(versionNormal)
		var extra []byte
		if big {
			version = versionZip64
			// Go's archive/zip layout: all three values present, the
			// header fields set to 0xffffffff where they overflow.
			var eb [28]byte
			ew := writeBuf(eb[:])
			ew.uint16(zip64ExtraID)
			ew.uint16(24)
			ew.uint64(ce.usize)
			ew.uint64(ce.csize)
			ew.uint64(ce.offset)
			extra = eb[:]
		}
		w.uint16(version | 3<<8) // made by Unix
		w.uint16(version)
		w.uint16(ce.flags)
		w.uint16(ce.method)
		w.uint16(ce.dosTime)
		w.uint16(ce.dosDate)
		w.uint32(ce.crc)
		if big {
			w.uint32(uint32max)
			w.uint32(uint32max)
		} else {
			w.uint32(uint32(ce.csize))
			w.uint32(uint32(ce.usize))
		}
		w.uint16(uint16(len(ce.name)))
		w.uint16(uint16(len(extra)))
		w.uint16(0) // comment
		w.uint16(0) // disk
		w.uint16(0) // internal attrs
		w.uint32(0o100644 << 16)
		if ce.offset >= zip64Threshold {
			w.uint32(uint32max)
		} else {
			w.uint32(uint32(ce.offset))
		}
		if err := z.write(b[:]); err != nil {
			return err
		}
		if err := z.write([]byte(ce.name)); err != nil {
			return err
		}
		if err := z.write(extra); err != nil {
			return err
		}
	}
	end := z.off
	records, size, offset := uint64(len(z.dir)), uint64(end-start), uint64(start)
	if records >= uint64(zip64Records) || size >= zip64Threshold || offset >= zip64Threshold {
		var b [56 + 20]byte
		w := writeBuf(b[:])
		w.uint32(sigEnd64)
		w.uint64(44)
		w.uint16(versionZip64 | 3<<8)
		w.uint16(versionZip64)
		w.uint32(0)
		w.uint32(0)
		w.uint64(records)
		w.uint64(records)
		w.uint64(size)
		w.uint64(offset)
		w.uint32(sigLocator64)
		w.uint32(0)
		w.uint64(uint64(end))
		w.uint32(1)
		if err := z.write(b[:]); err != nil {
			return err
		}
		records, size, offset = uint16max, uint32max, uint32max
	}
	var b [22]byte
	w := writeBuf(b[:])
	w.uint32(sigEnd)
	w.uint16(0)
	w.uint16(0)
	w.uint16(uint16(records))
	w.uint16(uint16(records))
	w.uint32(uint32(size))
	w.uint32(uint32(offset))
	w.uint16(0)
	if err := z.write(b[:]); err != nil {
		return err
	}
	if err := z.bw.Flush(); err != nil {
		return err
	}
	return z.release(z.off)
}

// ZipEntry is the entry being written. Write adds content; Close (or the
// next Create) ends it.
type ZipEntry struct {
	z         *ZipWriter
	ce        *centralEntry
	dataStart int64 // offset in the zip file of the entry's data
	size      int64 // uncompressed bytes written
	crc       hash.Hash32
	sum       hash.Hash
	fw        *flate.Writer
	cw        *countWriter
	cps       []checkpoint
	committed int64
	closed    bool
}

// checkpoint is the hash state at a given content offset of a STORED entry.
type checkpoint struct {
	off int64
	crc []byte
	sum []byte
}

// Name returns the entry's name.
func (e *ZipEntry) Name() string { return e.ce.name }

// Size returns the number of content bytes written so far.
func (e *ZipEntry) Size() int64 { return e.size }

// DataOffset returns where the entry's data starts in the zip file.
func (e *ZipEntry) DataOffset() int64 { return e.dataStart }

// Write adds content to the entry.
func (e *ZipEntry) Write(p []byte) (int, error) {
	if e.closed {
		return 0, errors.New("zip: write to closed entry")
	}
	if e.fw == nil && e.size-e.cps[len(e.cps)-1].off >= checkpointEvery {
		e.checkpoint()
	}
	e.crc.Write(p)
	e.sum.Write(p)
	e.size += int64(len(p))
	if e.fw != nil {
		return e.fw.Write(p)
	}
	return len(p), e.z.write(p)
}

func (e *ZipEntry) checkpoint() {
	c, _ := e.crc.(encoding.BinaryMarshaler).MarshalBinary()
	s, _ := e.sum.(encoding.BinaryMarshaler).MarshalBinary()
	e.cps = append(e.cps, checkpoint{off: e.size, crc: c, sum: s})
}

// Commit tells a STORED entry that it will not be truncated below off, so
// the hash checkpoints kept for Truncate before that point can go.
func (e *ZipEntry) Commit(off int64) {
	if off > e.committed {
		e.committed = min(off, e.size)
	}
	i := 0
	for i+1 < len(e.cps) && e.cps[i+1].off <= off {
		i++
	}
	if i > 0 {
		e.cps = append(e.cps[:0], e.cps[i:]...)
	}
	if e.fw == nil && !e.closed && len(e.cps) > 0 {
		// A Truncate hashes again from the last checkpoint at or before
		// the committed length: only the bytes before it are final. An
		// error here shows again at the next write or Close.
		e.z.release(e.dataStart + e.cps[0].off)
	}
}

// ReadAt reads content already written to a STORED entry.
func (e *ZipEntry) ReadAt(p []byte, off int64) (int, error) {
	if e.fw != nil {
		return 0, errors.New("zip: ReadAt on a deflated entry")
	}
	if off < 0 || off > e.size {
		return 0, fmt.Errorf("zip: ReadAt offset %d outside entry of %d bytes", off, e.size)
	}
	if err := e.z.bw.Flush(); err != nil {
		return 0, err
	}
	if rem := e.size - off; int64(len(p)) > rem {
		n, err := e.z.f.ReadAt(p[:rem], e.dataStart+off)
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	return e.z.f.ReadAt(p, e.dataStart+off)
}

// Truncate cuts a STORED entry's content back to size bytes (which must not
// be below the last Commit), restoring its CRC and hash to what they were
// at that length.
func (e *ZipEntry) Truncate(size int64) error {
	if e.closed || e.fw != nil {
		return errors.New("zip: Truncate needs an open STORED entry")
	}
	if size > e.size || size < e.committed {
		return fmt.Errorf("zip: cannot truncate entry of %d bytes to %d (committed up to %d)", e.size, size, e.committed)
	}
	i := len(e.cps) - 1
	for e.cps[i].off > size {
		i--
	}
	cp := e.cps[i]
	e.cps = e.cps[:i+1]
	if err := e.crc.(encoding.BinaryUnmarshaler).UnmarshalBinary(cp.crc); err != nil {
		return err
	}
	if err := e.sum.(encoding.BinaryUnmarshaler).UnmarshalBinary(cp.sum); err != nil {
		return err
	}
	// hash again what lies between the checkpoint and the new end
	if _, err := io.Copy(io.MultiWriter(e.crc, e.sum), io.NewSectionReader(e, cp.off, size-cp.off)); err != nil {
		return err
	}
	if err := e.z.bw.Flush(); err != nil {
		return err
	}
	end := e.dataStart + size
	if err := e.z.f.Truncate(end); err != nil {
		return err
	}
	if _, err := e.z.f.Seek(end, io.SeekStart); err != nil {
		return err
	}
	e.z.off = end
	e.size = size
	return nil
}

// Close ends the entry, writing its data descriptor.
func (e *ZipEntry) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	e.z.cur = nil
	csize := uint64(e.size)
	if e.fw != nil {
		if err := e.fw.Close(); err != nil {
			return err
		}
		csize = uint64(e.cw.n)
	}
	ce := e.ce
	ce.crc = e.crc.Sum32()
	ce.csize = csize
	ce.usize = uint64(e.size)
	ce.hashSum = e.sum.Sum(nil)
	e.cps = nil
	return e.z.endEntry(ce)
}

// endEntry writes an entry's data descriptor and lists it for the central
// directory.
func (z *ZipWriter) endEntry(ce *centralEntry) error {
	var b [24]byte
	w := writeBuf(b[:])
	w.uint32(sigDescriptor)
	w.uint32(ce.crc)
	n := 16
	if ce.csize >= zip64Threshold || ce.usize >= zip64Threshold {
		w.uint64(ce.csize)
		w.uint64(ce.usize)
		n = 24
	} else {
		w.uint32(uint32(ce.csize))
		w.uint32(uint32(ce.usize))
	}
	if err := z.write(b[:n]); err != nil {
		return err
	}
	z.dir = append(z.dir, ce)
	return nil
}

// Hash returns the entry's content hash as datapackage.json writes it,
// "sha256:<hex>"; valid after Close.
func (e *ZipEntry) Hash() string { return e.ce.hashName + ":" + hex.EncodeToString(e.ce.hashSum) }

// CRC32 returns the entry's CRC-32; valid after Close.
func (e *ZipEntry) CRC32() uint32 { return e.ce.crc }

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type writeBuf []byte

func (b *writeBuf) uint16(v uint16) {
	binary.LittleEndian.PutUint16(*b, v)
	*b = (*b)[2:]
}

func (b *writeBuf) uint32(v uint32) {
	binary.LittleEndian.PutUint32(*b, v)
	*b = (*b)[4:]
}

func (b *writeBuf) uint64(v uint64) {
	binary.LittleEndian.PutUint64(*b, v)
	*b = (*b)[8:]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// dosDateTime converts t (as UTC) to MS-DOS date and time fields.
func dosDateTime(t time.Time) (date, tm uint16) {
	t = t.UTC()
	if t.Year() < 1980 {
		t = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	date = uint16(t.Day() + int(t.Month())<<5 + (t.Year()-1980)<<9)
	tm = uint16(t.Second()/2 + t.Minute()<<5 + t.Hour()<<11)
	return
}
