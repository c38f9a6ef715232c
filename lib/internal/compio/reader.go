package compio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Format is a container format.
type Format int

// Container formats.
const (
	Plain Format = iota
	Gzip
	Zstd
)

// String names the format: "plain", "gzip" or "zstd".
func (f Format) String() string {
	switch f {
	case Gzip:
		return "gzip"
	case Zstd:
		return "zstd"
	}
	return "plain"
}

// Magic numbers.
const (
	zstdMagic        = 0xFD2FB528
	zstdDictMagic    = 0xEC30A437
	skippableMask    = 0xFFFFFFF0
	skippableMagic   = 0x184D2A50
	warcZstDictMagic = 0x184D2A5D
)

// MaxDictSize bounds the dictionary frame of a .warc.zst file.
const MaxDictSize = 64 << 20

// ErrTrailingGarbage is wrapped by errors about bytes after the last member
// that are not a gzip member or zstd frame.
var ErrTrailingGarbage = errors.New("data after the last compressed member is not compressed")

// Sniff tells the container format from the first bytes of br without
// consuming them.
func Sniff(br *bufio.Reader) Format {
	b, _ := br.Peek(4)
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		return Gzip
	}
	if len(b) == 4 {
		m := binary.LittleEndian.Uint32(b)
		if m == zstdMagic || m&skippableMask == skippableMagic {
			return Zstd
		}
	}
	return Plain
}

// countingReader counts bytes handed out from the source.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// MemberReader reads a stream member by member: each gzip member or zstd
// frame in turn, or a plain stream as one member. Read returns io.EOF at the
// end of the current member; Next starts the next one.
type MemberReader struct {
	cr     countingReader
	br     *bufio.Reader
	format Format

	gz     *gzip.Reader
	zd     *zstd.Decoder
	zf     zframe
	dict   []byte
	cur    io.Reader
	start  int64
	active bool
	eof    bool
	first  bool
}

// NewMemberReader sniffs the format of r and returns a reader positioned
// before the first member. A .warc.zst dictionary frame at the start is read
// and applied to the frames that follow.
func NewMemberReader(r io.Reader) (*MemberReader, error) {
	m := &MemberReader{first: true}
	m.cr.r = r
	m.br = bufio.NewReaderSize(&m.cr, 256<<10)
	m.format = Sniff(m.br)
	if m.format == Zstd {
		if err := m.readDict(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Format returns the container format found.
func (m *MemberReader) Format() Format { return m.format }

// Dict returns the zstd dictionary found at the start of the stream, if any.
func (m *MemberReader) Dict() []byte { return m.dict }

// Offset returns how many compressed bytes of the input have been consumed:
// after a member was read to io.EOF, the offset of its end.
func (m *MemberReader) Offset() int64 { return m.cr.n - int64(m.br.Buffered()) }

// MemberStart returns the compressed offset where the current member began.
func (m *MemberReader) MemberStart() int64 { return m.start }

// Next starts the next member and returns its compressed offset. It returns
// io.EOF when the input holds no further member. Whatever is unread of the
// current member is skipped.
func (m *MemberReader) Next() (int64, error) {
	if m.active {
		if _, err := io.Copy(io.Discard, m); err != nil {
			return m.Offset(), err
		}
	}
	m.active = false
	if m.eof {
		return m.Offset(), io.EOF
	}
	switch m.format {
	case Plain:
		if !m.first {
			m.eof = true
			return m.Offset(), io.EOF
		}
		m.first = false
		m.start = m.Offset()
		m.cur = m.br
	case Gzip:
		if err := m.skipZeroPadding(); err != nil {
			return m.Offset(), err
		}
		m.start = m.Offset()
		if _, err := m.br.Peek(1); err == io.EOF {
			m.eof = true
			return m.start, io.EOF
		}
		if b, _ := m.br.Peek(2); len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			return m.start, fmt.Errorf("offset %d: %w", m.start, ErrTrailingGarbage)
		}
		var err error
		if m.gz == nil {
			m.gz, err = gzip.NewReader(m.br)
		} else {
			err = m.gz.Reset(m.br)
		}
		if err != nil {
			return m.start, fmt.Errorf("offset %d: gzip header: %w", m.start, err)
		}
		m.gz.Multistream(false)
		m.cur = m.gz
	case Zstd:
		for {
			if err := m.skipZeroPadding(); err != nil {
				return m.Offset(), err
			}
			m.start = m.Offset()
			b, err := m.br.Peek(4)
			if len(b) == 0 && err == io.EOF {
				m.eof = true
				return m.start, io.EOF
			}
			if len(b) < 4 {
				return m.start, fmt.Errorf("offset %d: truncated zstd frame", m.start)
			}
			magic := binary.LittleEndian.Uint32(b)
			if magic&skippableMask == skippableMagic {
				if err := m.skipSkippable(); err != nil {
					return m.start, err
				}
				continue
			}
			if magic != zstdMagic {
				return m.start, fmt.Errorf("offset %d: %w", m.start, ErrTrailingGarbage)
			}
			break
		}
		m.zf = zframe{br: m.br, start: m.start}
		if m.zd == nil {
			opts := []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1 << 30)}
			if m.dict != nil {
				if binary.LittleEndian.Uint32(m.dict) == zstdDictMagic {
					opts = append(opts, zstd.WithDecoderDicts(m.dict))
				} else {
					opts = append(opts, zstd.WithDecoderDictRaw(0, m.dict))
				}
			}
			d, err := zstd.NewReader(&m.zf, opts...)
			if err != nil {
				return m.start, fmt.Errorf("offset %d: zstd: %w", m.start, err)
			}
			m.zd = d
		} else if err := m.zd.Reset(&m.zf); err != nil {
			return m.start, fmt.Errorf("offset %d: zstd: %w", m.start, err)
		}
		m.cur = m.zd
	}
	m.active = true
	return m.start, nil
}

// Read reads decompressed bytes of the current member.
func (m *MemberReader) Read(p []byte) (int, error) {
	if !m.active {
		return 0, io.EOF
	}
	n, err := m.cur.Read(p)
	if err == io.EOF {
		m.active = false
		if m.format == Zstd && m.zf.err != nil {
			return n, m.zf.err
		}
		return n, io.EOF
	}
	if err != nil {
		m.active = false
		if err == io.ErrUnexpectedEOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return n, fmt.Errorf("offset %d: %s member truncated: %w", m.start, m.format, io.ErrUnexpectedEOF)
		}
		if m.format == Zstd && m.zf.err != nil {
			return n, m.zf.err
		}
		if strings.HasPrefix(err.Error(), m.format.String()+": ") {
			return n, fmt.Errorf("offset %d: %w", m.start, err)
		}
		return n, fmt.Errorf("offset %d: %s: %w", m.start, m.format, err)
	}
	return n, nil
}

// ReadByte lets bufio-free parsers read single bytes; it is slow, use Read.
func (m *MemberReader) ReadByte() (byte, error) {
	var b [1]byte
	for {
		n, err := m.Read(b[:])
		if n == 1 {
			return b[0], nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// ReadHead reads the current member into buf[:0], growing it as needed
// up to max bytes: all of the member when it is not longer (whole is
// true), else its first max bytes, the rest left to Read. On an error it
// returns what it read and the error. A reader that decodes a member's
// head before handing any of it out can drop a member that fails there
// whole (see Resync).
func (m *MemberReader) ReadHead(buf []byte, max int) (head []byte, whole bool, err error) {
	buf = buf[:cap(buf)]
	if len(buf) == 0 {
		buf = make([]byte, min(max, 64<<10))
	}
	n := 0
	for {
		if n >= max {
			return buf[:n], false, nil
		}
		if n == len(buf) {
			buf = append(buf, make([]byte, min(n, max-n))...)
			buf = buf[:cap(buf)]
		}
		k, err := m.Read(buf[n:min(len(buf), max)])
		n += k
		if err == io.EOF {
			return buf[:n], true, nil
		}
		if err != nil {
			return buf[:n], false, err
		}
	}
}

// Resync abandons the current member after an error and moves forward to
// the next place where a member can start: a gzip header (1f 8b 08 with no
// reserved flag bit set) or a zstd frame (or skippable frame) magic. Next
// then opens the member there. It returns the offset reached and how many
// compressed bytes were skipped; io.EOF when no member start is left (the
// rest of the input was skipped). A plain stream has nothing to resync to.
// A candidate can be a false one inside corrupt data: its Next or Read then
// fails, and Resync goes on from there.
func (m *MemberReader) Resync() (offset, skipped int64, err error) {
	m.active = false
	if m.format == Plain {
		m.eof = true
		return m.Offset(), 0, io.EOF
	}
	for {
		b, perr := m.br.Peek(4)
		if len(b) < 4 {
			if perr != nil && perr != io.EOF {
				return m.Offset(), skipped, perr
			}
			n, _ := m.br.Discard(len(b))
			skipped += int64(n)
			m.eof = true
			return m.Offset(), skipped, io.EOF
		}
		if m.memberStart(b) {
			return m.Offset(), skipped, nil
		}
		// look for a candidate in what is buffered (at least 4 bytes)
		buf, _ := m.br.Peek(m.br.Buffered())
		k := len(buf) - 3 // bytes surely not starting a member
		for i := 1; i+4 <= len(buf); i++ {
			if (buf[i] == 0x1f || buf[i] == 0x28 || buf[i]&0xF0 == 0x50) && m.memberStart(buf[i:]) {
				k = i
				break
			}
		}
		n, _ := m.br.Discard(k)
		skipped += int64(n)
	}
}

// memberStart reports whether b (at least 4 bytes) starts a member of the
// stream's format.
func (m *MemberReader) memberStart(b []byte) bool {
	switch m.format {
	case Gzip:
		return b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 && b[3]&0xE0 == 0
	case Zstd:
		magic := binary.LittleEndian.Uint32(b)
		return magic == zstdMagic || magic&skippableMask == skippableMagic
	}
	return false
}

// skipZeroPadding skips NUL bytes between members (tape-block padding).
func (m *MemberReader) skipZeroPadding() error {
	for {
		b, err := m.br.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if b[0] != 0 {
			return nil
		}
		m.br.Discard(1)
	}
}

func (m *MemberReader) skipSkippable() error {
	h, err := m.br.Peek(8)
	if len(h) < 8 {
		return fmt.Errorf("offset %d: truncated zstd skippable frame: %v", m.start, err)
	}
	size := int64(binary.LittleEndian.Uint32(h[4:]))
	m.br.Discard(8)
	n, err := m.br.Discard(int(size))
	if int64(n) < size {
		return fmt.Errorf("offset %d: truncated zstd skippable frame (%d of %d bytes): %v", m.start, n, size, err)
	}
	return nil
}

// readDict reads the IIPC dictionary frame when the stream starts with one.
func (m *MemberReader) readDict() error {
	h, _ := m.br.Peek(8)
	if len(h) < 8 || binary.LittleEndian.Uint32(h) != warcZstDictMagic {
		return nil
	}
	size := int64(binary.LittleEndian.Uint32(h[4:]))
	if size > MaxDictSize {
		return fmt.Errorf("offset 0: zstd dictionary frame of %d bytes exceeds %d", size, MaxDictSize)
	}
	m.br.Discard(8)
	// Grow the buffer with the bytes actually present, never from the
	// length field alone.
	var frame bytes.Buffer
	if n, err := io.Copy(&frame, io.LimitReader(m.br, size)); n < size {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("offset 0: truncated zstd dictionary frame (%d of %d bytes): %w", n, size, err)
	}
	buf := frame.Bytes()
	if len(buf) >= 4 && binary.LittleEndian.Uint32(buf) == zstdMagic {
		d, err := zstd.NewReader(bytes.NewReader(buf), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return err
		}
		defer d.Close()
		dec, err := io.ReadAll(io.LimitReader(d, MaxDictSize+1))
		if err != nil {
			return fmt.Errorf("offset 0: zstd dictionary: %w", err)
		}
		if len(dec) > MaxDictSize {
			return fmt.Errorf("offset 0: zstd dictionary exceeds %d bytes", MaxDictSize)
		}
		buf = dec
	}
	m.dict = buf
	return nil
}

// zframe hands out exactly the bytes of one zstd frame, walking its block
// headers as they pass, so the decoder sees io.EOF at the frame's end.
type zframe struct {
	br        *bufio.Reader
	start     int64
	state     int // 0 header, 1 block header, 2 checksum, 3 done
	remaining int
	last      bool
	checksum  bool
	err       error
}

func (z *zframe) Read(p []byte) (int, error) {
	for z.remaining == 0 {
		switch z.state {
		case 0:
			h, _ := z.br.Peek(6)
			if len(h) < 5 {
				return 0, z.fail("truncated zstd frame header")
			}
			fhd := h[4]
			fcsFlag := fhd >> 6
			single := fhd&0x20 != 0
			z.checksum = fhd&0x04 != 0
			n := 5
			if !single {
				n++
			}
			n += [4]int{0, 1, 2, 4}[fhd&3]
			switch fcsFlag {
			case 0:
				if single {
					n++
				}
			case 1:
				n += 2
			case 2:
				n += 4
			case 3:
				n += 8
			}
			z.remaining = n
			z.state = 1
		case 1:
			h, _ := z.br.Peek(3)
			if len(h) < 3 {
				return 0, z.fail("truncated zstd block header")
			}
			v := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
			z.last = v&1 != 0
			size := v >> 3
			switch (v >> 1) & 3 {
			case 1:
				size = 1
			case 3:
				return 0, z.fail("reserved zstd block type")
			}
			z.remaining = 3 + size
			if z.last {
				z.state = 2
			}
		case 2:
			z.state = 3
			if z.checksum {
				z.remaining = 4
			}
		default:
			return 0, io.EOF
		}
	}
	if len(p) > z.remaining {
		p = p[:z.remaining]
	}
	n, err := z.br.Read(p)
	z.remaining -= n
	if n == 0 && err != nil {
		if err == io.EOF {
			return 0, z.fail("truncated zstd frame")
		}
		return 0, err
	}
	return n, nil
}

func (z *zframe) fail(msg string) error {
	z.err = fmt.Errorf("offset %d: %s: %w", z.start, msg, io.ErrUnexpectedEOF)
	return z.err
}
