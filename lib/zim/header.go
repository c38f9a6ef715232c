package zim

import (
	"encoding/binary"
	"fmt"
)

// Magic is the ZIM magic number (bytes "ZIM\x04" on disk).
const Magic = 0x044D495A

// HeaderSize is the size of a version 5/6 header with a checksum position;
// old archives have a 72-byte header (mimeListPos 72) and no checksum.
const HeaderSize = 80

// NoPage is the value of Header.MainPage and LayoutPage when unset.
const NoPage = 0xFFFFFFFF

// Header is the fixed header at the start of an archive.
type Header struct {
	MajorVersion  uint16
	MinorVersion  uint16
	UUID          [16]byte
	EntryCount    uint32
	ClusterCount  uint32
	PathPtrPos    uint64
	TitlePtrPos   uint64
	ClusterPtrPos uint64
	MimeListPos   uint64
	MainPage      uint32
	LayoutPage    uint32
	ChecksumPos   uint64 // only meaningful when HasChecksum
}

// HasChecksum reports whether the header has a checksum position (a header
// of 80 bytes, mimeListPos >= 80), as libzim decides it.
func (h Header) HasChecksum() bool { return h.MimeListPos >= 80 }

// HasMainPage reports whether MainPage is set.
func (h Header) HasMainPage() bool { return h.MainPage != NoPage }

// NewNamespaceScheme reports whether entries use the C/M/W/X namespaces
// (libzim's test: minor version >= 1).
func (h Header) NewNamespaceScheme() bool { return h.MinorVersion >= 1 }

// UUIDString formats the UUID as libzim does (8-4-4-4-12 lower-case hex).
func (h Header) UUIDString() string {
	u := h.UUID
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// parseHeader decodes and sanity-checks the 80 header bytes b, with
// libzim's checks and messages.
func parseHeader(b []byte) (Header, string) {
	var h Header
	le := binary.LittleEndian
	if le.Uint32(b[0:]) != Magic {
		return h, "Invalid magic number"
	}
	h.MajorVersion = le.Uint16(b[4:])
	if h.MajorVersion != 5 && h.MajorVersion != 6 {
		return h, "Invalid version"
	}
	h.MinorVersion = le.Uint16(b[6:])
	copy(h.UUID[:], b[8:24])
	h.EntryCount = le.Uint32(b[24:])
	h.ClusterCount = le.Uint32(b[28:])
	h.PathPtrPos = le.Uint64(b[32:])
	h.TitlePtrPos = le.Uint64(b[40:])
	h.ClusterPtrPos = le.Uint64(b[48:])
	h.MimeListPos = le.Uint64(b[56:])
	h.MainPage = le.Uint32(b[64:])
	h.LayoutPage = le.Uint32(b[68:])
	h.ChecksumPos = le.Uint64(b[72:])
	switch {
	case (h.EntryCount == 0) != (h.ClusterCount == 0):
		return h, "No article <=> No cluster"
	case h.MimeListPos != 80 && h.MimeListPos != 72:
		return h, "mimelistPos must be 80."
	case h.PathPtrPos < h.MimeListPos:
		return h, "urlPtrPos must be > mimelistPos."
	case h.TitlePtrPos < h.MimeListPos:
		return h, "titleIdxPos must be > mimelistPos."
	case h.ClusterPtrPos < h.MimeListPos:
		return h, "clusterPtrPos must be > mimelistPos."
	case h.ClusterCount > h.EntryCount:
		return h, "Cluster count cannot be higher than article count."
	case h.ChecksumPos != 0 && h.ChecksumPos < h.MimeListPos:
		return h, "checksumPos must be > mimeListPos."
	}
	if !h.HasChecksum() {
		h.ChecksumPos = 0
	}
	return h, ""
}
