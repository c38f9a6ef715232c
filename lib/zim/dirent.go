package zim

import (
	"bytes"
	"encoding/binary"
	"io"
)

// Dirent kinds by MIME type value.
const (
	mimeRedirect   = 0xFFFF
	mimeLinkTarget = 0xFFFE // deprecated
	mimeDeleted    = 0xFFFD // deprecated
)

// maxDirentSize bounds the bytes read for one directory entry (its path and
// title included); a dirent whose strings are not terminated within it is
// refused.
const maxDirentSize = 1 << 20

// EntryKind tells what a directory entry is.
type EntryKind uint8

// Entry kinds.
const (
	KindItem       EntryKind = iota // content stored in a cluster blob
	KindRedirect                    // points to another entry
	KindDeprecated                  // old link-target (0xfffe) or deleted (0xfffd) entry, to be ignored
)

// Entry is a directory entry.
type Entry struct {
	Index         uint32 // position in the path pointer list
	Offset        int64  // byte offset of the dirent in the archive
	Kind          EntryKind
	MimeIndex     uint16 // index in the MIME type list (items); the raw value otherwise
	Namespace     byte
	Path          string // path without namespace
	RawTitle      string // title as stored; may be empty
	Cluster       uint32 // items
	Blob          uint32 // items
	RedirectIndex uint32 // redirects
}

// IsRedirect reports whether e is a redirect.
func (e *Entry) IsRedirect() bool { return e.Kind == KindRedirect }

// LongPath returns "N/path", the namespace and path.
func (e *Entry) LongPath() string { return string(e.Namespace) + "/" + e.Path }

// Title returns the title, or the path when the stored title is empty.
func (e *Entry) Title() string {
	if e.RawTitle == "" {
		return e.Path
	}
	return e.RawTitle
}

// parseDirent decodes a dirent from b. It returns ok=false when b is too
// short to hold the whole dirent (more bytes are needed).
func parseDirent(b []byte) (e Entry, ok bool) {
	le := binary.LittleEndian
	if len(b) < 8 {
		return e, false
	}
	mime := le.Uint16(b)
	extra := int(b[2])
	e.Namespace = b[3]
	e.MimeIndex = mime
	p := 8
	switch mime {
	case mimeRedirect:
		if len(b) < 12 {
			return e, false
		}
		e.Kind = KindRedirect
		e.RedirectIndex = le.Uint32(b[8:])
		p = 12
	case mimeLinkTarget, mimeDeleted:
		e.Kind = KindDeprecated
	default:
		if len(b) < 16 {
			return e, false
		}
		e.Kind = KindItem
		e.Cluster = le.Uint32(b[8:])
		e.Blob = le.Uint32(b[12:])
		p = 16
	}
	i := bytes.IndexByte(b[p:], 0)
	if i < 0 {
		return e, false
	}
	e.Path = string(b[p : p+i])
	p += i + 1
	i = bytes.IndexByte(b[p:], 0)
	if i < 0 {
		return e, false
	}
	e.RawTitle = string(b[p : p+i])
	p += i + 1
	if len(b)-p < extra {
		return e, false
	}
	return e, true
}

// direntReader reads dirents through a window buffer, so that reading
// consecutive dirents costs one ReadAt per window. Not safe for concurrent
// use; each goroutine uses its own.
type direntReader struct {
	a      *Archive
	buf    []byte
	bufOff int64
	window int
}

func newDirentReader(a *Archive, window int) *direntReader {
	return &direntReader{a: a, window: window, bufOff: -1}
}

// read returns the dirent at archive offset off.
func (d *direntReader) read(off int64) (Entry, error) {
	a := d.a
	if off < 0 || off >= a.size {
		return Entry{}, a.errf(off, "Invalid dirent pointer")
	}
	if d.bufOff >= 0 && off >= d.bufOff && off < d.bufOff+int64(len(d.buf)) {
		rel := off - d.bufOff
		if e, ok := parseDirent(d.buf[rel:]); ok {
			e.Offset = off
			return e, nil
		}
		if d.bufOff+int64(len(d.buf)) >= a.size {
			return Entry{}, a.errf(off, "dirent truncated by the end of the archive")
		}
	}
	n := d.window
	for {
		if int64(n) > a.size-off {
			n = int(a.size - off)
		}
		if cap(d.buf) < n {
			d.buf = make([]byte, n)
		}
		d.buf = d.buf[:n]
		if _, err := a.r.ReadAt(d.buf, off); err != nil && err != io.EOF {
			d.bufOff = -1
			return Entry{}, a.errf(off, "reading dirent: %v", err)
		}
		d.bufOff = off
		if e, ok := parseDirent(d.buf); ok {
			e.Offset = off
			return e, nil
		}
		if off+int64(n) >= a.size {
			return Entry{}, a.errf(off, "dirent truncated by the end of the archive")
		}
		if n >= maxDirentSize {
			return Entry{}, a.errf(off, "dirent longer than %d bytes (unterminated path or title)", maxDirentSize)
		}
		n *= 2
		if n > maxDirentSize {
			n = maxDirentSize
		}
	}
}
