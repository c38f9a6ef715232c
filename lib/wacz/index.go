package wacz

import (
	"bytes"
	"io"
	"runtime"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
)

// recordWriter writes records gzip per record and reports where each went.
type recordWriter interface {
	WriteRecord(*record.Record) error
	Close() error
}

// lazyWARCWriter is lib/warc's Writer, created at the first record so it
// keeps that record's WARC version (WARC/1.0 input stays WARC/1.0).
type lazyWARCWriter struct {
	w       io.Writer
	tempDir string
	fn      func(*record.Record, int64, int64)
	ww      *warc.Writer
}

func newRecordWriter(w io.Writer, tempDir string, fn func(*record.Record, int64, int64)) recordWriter {
	return &lazyWARCWriter{w: w, tempDir: tempDir, fn: fn}
}

func (l *lazyWARCWriter) WriteRecord(rec *record.Record) error {
	if l.ww == nil {
		v := record.WARC11
		if rec.Version == record.WARC10 {
			v = record.WARC10
		}
		l.ww = warc.NewWriter(l.w, warc.WithVersion(v), warc.OnWritten(l.fn), warc.WithTempDir(l.tempDir))
	}
	return l.ww.WriteRecord(rec)
}

func (l *lazyWARCWriter) Close() error {
	if l.ww == nil {
		return nil
	}
	return l.ww.Close()
}

// indexSet gathers the collection's CDXJ lines and writes them sorted as a
// ZipNum index (indexes/index.cdx.gz + indexes/index.idx, both STORED),
// the layout py-wacz writes and ReplayWeb.page reads block by block.
type indexSet struct {
	sorter *cdx.Sorter
	tmpDir string
	n      int
}

func newIndexSet(tmpDir string) *indexSet {
	return &indexSet{sorter: cdx.NewSorter(cdx.WithTempDir(tmpDir), cdx.WithChunkSize(16<<20)), tmpDir: tmpDir}
}

func (s *indexSet) add(line []byte) error {
	s.n++
	return s.sorter.Add(line)
}

func (s *indexSet) cleanup() { s.sorter.Close() }

func (s *indexSet) write(zw *ZipWriter, hashAlg string) ([]Resource, error) {
	return s.writeFrom(zw, hashAlg, s.sorter.Each)
}

// writeFrom is write with the sorted lines given by each (the sorter's
// lines, or those merged with another sorted stream).
func (s *indexSet) writeFrom(zw *ZipWriter, hashAlg string, each func(func([]byte) error) error) ([]Resource, error) {
	data, err := zw.Create(IndexesDir+cdx.DefaultZipNumFile, Store, hashAlg)
	if err != nil {
		return nil, err
	}
	// the summary goes to a spill while the data entry is being written
	idx := &spill{dir: s.tmpDir}
	defer idx.Close()
	// blocks compressed on the cores while the sorted lines are read (a
	// few at once: each holds its ~300 KB of lines until written)
	zn := cdx.NewZipNumWriter(data, idx, cdx.WithCompressors(min(runtime.GOMAXPROCS(0), 4)))
	if err := each(func(line []byte) error { return zn.WriteLine(line) }); err != nil {
		return nil, err
	}
	if err := zn.Close(); err != nil {
		return nil, err
	}
	if s.n == 0 {
		// No captures: the ZipNum has no blocks, and the .cdx.gz would be
		// 0 bytes, which is not gzip. An empty member is: anything reading
		// the index whole (zcat, validate) reads no lines from it.
		if err := emptyGzip(data); err != nil {
			return nil, err
		}
	}
	if err := data.Close(); err != nil {
		return nil, err
	}
	out := []Resource{{Name: resourceName(data.Name()), Path: data.Name(), Hash: data.Hash(), Bytes: data.Size()}}
	ie, err := zw.Create(IndexesDir+"index.idx", Store, hashAlg)
	if err != nil {
		return nil, err
	}
	if err := idx.rewind(); err != nil {
		return nil, err
	}
	if _, err := io.Copy(ie, idx); err != nil {
		return nil, err
	}
	if err := ie.Close(); err != nil {
		return nil, err
	}
	return append(out, Resource{Name: resourceName(ie.Name()), Path: ie.Name(), Hash: ie.Hash(), Bytes: ie.Size()}), nil
}

// emptyGzip writes a gzip member holding nothing.
func emptyGzip(w io.Writer) error {
	return gzip.NewWriter(w).Close()
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (lb limitedBuffer) Write(p []byte) (int, error) {
	if room := lb.n - lb.b.Len(); room > 0 {
		lb.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
