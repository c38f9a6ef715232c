package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/warc"
)

// errNoFile is a capture whose WARC is not where the index says.
var errNoFile = errors.New("archive file not found")

// openArchive opens the WARC or ARC file an index line names: inside a
// WACZ its archive/NAME entry (stored, read in place); for a folder the
// file in one of its archive folders, never outside them (os.Root: a name
// with ".." or a symbolic link that leaves the folder is refused).
func (c *Collection) openArchive(name string) (io.ReaderAt, int64, io.Closer, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return nil, 0, nil, errNoFile
	}
	if c.wacz != nil {
		clean := path.Clean("/" + name)[1:]
		if clean != name {
			return nil, 0, nil, errNoFile
		}
		f := c.wacz.r.File(wacz.ArchiveDir + name)
		if f == nil {
			return nil, 0, nil, errNoFile
		}
		ra, n, err := storedEntry(c.wacz.zd, f)
		if err != nil {
			return nil, 0, nil, err
		}
		return ra, n, nil, nil
	}
	if len(c.remoteArchives) > 0 {
		clean := path.Clean("/" + name)[1:]
		if clean != name || strings.Contains(name, "://") || strings.ContainsAny(name, "?#") {
			return nil, 0, nil, errNoFile
		}
		for _, prefix := range c.remoteArchives {
			f, err := c.store.OpenAt(context.Background(), prefix+name)
			if err != nil {
				continue
			}
			return f, f.Size(), f, nil
		}
		return nil, 0, nil, errNoFile
	}
	for _, dir := range c.archives {
		f, err := os.OpenInRoot(dir, name)
		if err != nil {
			continue
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			f.Close()
			continue
		}
		return f, st.Size(), f, nil
	}
	return nil, 0, nil, errNoFile
}

// capture is one record read from an archive at an index line's place.
type capture struct {
	rec    *record.Record
	closer io.Closer
}

func (cp *capture) Close() {
	if cp.closer != nil {
		cp.closer.Close()
	}
}

// readCapture reads the record at offset (length bytes) of an archive.
func (c *Collection) readCapture(filename string, offset, length int64) (*capture, error) {
	ra, size, closer, err := c.openArchive(filename)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*capture, error) {
		if closer != nil {
			closer.Close()
		}
		return nil, err
	}
	if offset < 0 || offset > size {
		return fail(fmt.Errorf("%s: offset %d past the end (%d bytes)", filename, offset, size))
	}
	if length <= 0 || length > size-offset {
		length = size - offset
	}
	br := bufio.NewReaderSize(io.NewSectionReader(ra, offset, length), 32<<10)
	kind, err := wacz.SniffInput(br)
	if err != nil && offset > 0 && (isARCName(filename) || arcRecordLine(br)) {
		// a record in the middle of an ARC starts with its URL line, not
		// the "filedesc:" that tells an ARC file from its start
		kind, err = wacz.KindARC, nil
		if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
			kind = wacz.KindARCGzip
		}
	}
	if err != nil {
		return fail(fmt.Errorf("%s at %d: %v", filename, offset, err))
	}
	var rd record.Reader
	switch kind {
	case wacz.KindARC, wacz.KindARCGzip:
		rd, err = arc.NewReader(br, arc.WithName(filename))
	default:
		rd, err = warc.NewReader(br, warc.WithFilename(filename))
	}
	if err != nil {
		return fail(err)
	}
	rec, err := rd.Next()
	for err == nil && rec.Type() == record.ARCFiledesc {
		rec, err = rd.Next()
	}
	if err != nil {
		return fail(fmt.Errorf("%s at %d: %v", filename, offset, err))
	}
	return &capture{rec: rec, closer: closer}, nil
}

// httpParts splits a record into its HTTP head (nil for a block that is
// not an HTTP response) and the payload that follows it, the transfer
// coding undone as pywb undoes it (a body that is not valid chunked
// encoding is passed as it is), with the payload's size when it is known
// without reading it (-1 otherwise).
func httpParts(rec *record.Record) (*httpmsg.Head, io.Reader, int64, error) {
	block := rec.Block
	if block == nil {
		block = strings.NewReader("")
	}
	size := rec.ContentLength()
	if rec.ARC != nil {
		size = -1
	}
	if rec.ARC == nil && httpmsg.MediaType(rec.ContentType()) != "application/http" {
		return nil, block, size, nil
	}
	br := bufio.NewReaderSize(block, 32<<10)
	if peek, _ := br.Peek(12); !httpmsg.IsStatusLine(peek) {
		return nil, br, size, nil
	}
	h, err := httpmsg.ReadHead(br)
	if err != nil {
		return nil, nil, -1, err
	}
	var body io.Reader = br
	if h.Chunked() {
		body = httpmsg.NewChunkedReader(br)
		size = -1
	} else if size >= 0 {
		size = max(size-h.Len, 0)
	}
	return h, body, size, nil
}

// isARCName reports whether an archive's name says ARC (.arc, .arc.gz).
func isARCName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".arc") || strings.HasSuffix(n, ".arc.gz")
}

// arcRecordLine reports whether br starts with an ARC URL-record line
// (plain): URL, IP address, a 14-digit date, a type and a length.
func arcRecordLine(br *bufio.Reader) bool {
	b, _ := br.Peek(1024)
	line, _, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return false
	}
	f := strings.Fields(string(line))
	if len(f) != 5 || len(f[2]) != 14 || !strings.Contains(f[0], ":") {
		return false
	}
	for _, s := range []string{f[2], f[4]} {
		if _, err := strconv.ParseUint(s, 10, 64); err != nil {
			return false
		}
	}
	return true
}
