package wacz

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// zipDir is a zip file's central directory as Append needs it: every
// entry with its local header offset (which archive/zip does not export)
// and where the directory starts.
type zipDir struct {
	entries   []*centralEntry
	dirOffset int64
}

// readZipDir reads the end records (ZIP64 ones included) and the central
// directory of the size bytes of ra. name is used in errors.
func readZipDir(ra io.ReaderAt, size int64, name string) (*zipDir, error) {
	le16 := func(b []byte) uint64 { return uint64(binary.LittleEndian.Uint16(b)) }
	le32 := func(b []byte) uint64 { return uint64(binary.LittleEndian.Uint32(b)) }
	le64 := binary.LittleEndian.Uint64
	n := min(size, 22+uint16max)
	if n < 22 {
		return nil, fmt.Errorf("%s: %d bytes is too short for a zip file", name, size)
	}
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	at := -1
	for j := len(buf) - 22; j >= 0; j-- {
		if binary.LittleEndian.Uint32(buf[j:]) == sigEnd && j+22+int(le16(buf[j+20:])) <= len(buf) {
			at = j
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%s: no zip end record", name)
	}
	endOff := size - n + int64(at)
	end := buf[at:]
	records, dirSize, dirOff := le16(end[10:]), le32(end[12:]), le32(end[16:])
	if records == uint16max || dirSize == uint32max || dirOff == uint32max {
		if endOff < 20 {
			return nil, fmt.Errorf("%s: no ZIP64 end locator before the end record at offset %d", name, endOff)
		}
		var loc [20]byte
		if _, err := ra.ReadAt(loc[:], endOff-20); err != nil {
			return nil, fmt.Errorf("%s: ZIP64 end locator at offset %d: %v", name, endOff-20, err)
		}
		if binary.LittleEndian.Uint32(loc[:]) != sigLocator64 {
			return nil, fmt.Errorf("%s: no ZIP64 end locator at offset %d", name, endOff-20)
		}
		off64 := le64(loc[8:])
		if off64 > uint64(size) || uint64(size)-off64 < 56 {
			return nil, fmt.Errorf("%s: ZIP64 end record offset %d is past the end", name, off64)
		}
		var e64 [56]byte
		if _, err := ra.ReadAt(e64[:], int64(off64)); err != nil {
			return nil, fmt.Errorf("%s: ZIP64 end record at offset %d: %v", name, off64, err)
		}
		if binary.LittleEndian.Uint32(e64[:]) != sigEnd64 {
			return nil, fmt.Errorf("%s: no ZIP64 end record at offset %d", name, off64)
		}
		records, dirSize, dirOff = le64(e64[32:]), le64(e64[40:]), le64(e64[48:])
	}
	if dirOff > uint64(size) || dirSize > uint64(size)-dirOff || records > dirSize/46 {
		return nil, fmt.Errorf("%s: central directory at offset %d (%d bytes, %d entries) does not fit in the file", name, dirOff, dirSize, records)
	}
	d := &zipDir{dirOffset: int64(dirOff)}
	br := bufio.NewReaderSize(io.NewSectionReader(ra, int64(dirOff), int64(dirSize)), 64<<10)
	pos := int64(dirOff)
	for k := uint64(0); k < records; k++ {
		var h [46]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return nil, fmt.Errorf("%s: central directory entry at offset %d: %v", name, pos, err)
		}
		if binary.LittleEndian.Uint32(h[:]) != sigCentral {
			return nil, fmt.Errorf("%s: central directory entry at offset %d: bad signature", name, pos)
		}
		ce := &centralEntry{
			flags: uint16(le16(h[8:])), method: uint16(le16(h[10:])),
			dosTime: uint16(le16(h[12:])), dosDate: uint16(le16(h[14:])),
			crc: uint32(le32(h[16:])), csize: le32(h[20:]), usize: le32(h[24:]), offset: le32(h[42:]),
		}
		nl, xl, cl := le16(h[28:]), le16(h[30:]), le16(h[32:])
		rest := make([]byte, nl+xl+cl)
		if _, err := io.ReadFull(br, rest); err != nil {
			return nil, fmt.Errorf("%s: central directory entry at offset %d: %v", name, pos, err)
		}
		ce.name = string(rest[:nl])
		extra := rest[nl : nl+xl]
		for len(extra) >= 4 {
			id, l := le16(extra), le16(extra[2:])
			if uint64(len(extra)-4) < l {
				break
			}
			f := extra[4 : 4+l]
			if id == zip64ExtraID {
				// the values present are those whose header field overflowed, in this order
				for _, v := range []*uint64{&ce.usize, &ce.csize, &ce.offset} {
					if *v == uint32max && len(f) >= 8 {
						*v = le64(f)
						f = f[8:]
					}
				}
			}
			extra = extra[4+l:]
		}
		if ce.offset >= dirOff {
			return nil, fmt.Errorf("%s: %s: local header offset %d is not before the central directory (%d)", name, ce.name, ce.offset, dirOff)
		}
		d.entries = append(d.entries, ce)
		pos += 46 + int64(len(rest))
	}
	return d, nil
}
