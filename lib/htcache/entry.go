package htcache

import (
	"io"
	"time"
)

// Entry is one cache entry: one URL HTTrack fetched (or failed to).
type Entry struct {
	// Name is the URL as HTTrack stored it, raw bytes (zip entry name, or
	// "http://" + address + path for the old cache). Use URI for a
	// percent-encoded form.
	Name string
	// Offset is the entry's position in its file: the local file header
	// in the zip, the record header in the .dat file.
	Offset int64
	// Method is the zip compression method (0 stored, 8 deflate); 0 for
	// the old cache.
	Method uint16
	// Flags is the zip general purpose bit flag.
	Flags uint16
	// CRC32 is the CRC-32 of the stored data (zip only).
	CRC32 uint32
	// CompressedSize is the number of bytes the data occupies in the file.
	CompressedSize int64
	// StoredSize is the size of the data stored with the entry (after
	// decompression): the body when Meta.InCache, usually 0 otherwise.
	StoredSize int64
	// Modified is the zip entry time, which HTTrack sets from Last-Modified
	// (not the fetch time); zero for the old cache.
	Modified time.Time
	// Meta is the HTTrack metadata.
	Meta Meta
	// Old is true for an entry read from old.zip (see Cache.OldPath):
	// Offset is then a position in old.zip.
	Old bool

	dataOffset int64
	open       func() (io.ReadCloser, error)
}

// URI returns the entry's URL percent-encoded as a URI (see URI).
func (e *Entry) URI() string { return URI(e.Name) }

// OpenStored opens the data stored with the entry in the cache file itself,
// decompressed, checked against the declared size and CRC-32 when read to
// the end. For entries whose body is external (Meta.InCache false) this is
// normally empty: use Cache.Body to get the body wherever it is.
func (e *Entry) OpenStored() (io.ReadCloser, error) {
	if e.open == nil {
		return io.NopCloser(eofReader{}), nil
	}
	return e.open()
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
