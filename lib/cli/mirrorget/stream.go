package mirrorget

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// stream writes captures as ARC v1 (response records only, as ARC knows
// nothing else) or WARC 1.1 (a warcinfo record, then a request and a
// response record per capture), gzip per record.
//
// A capture being written when ctx is cancelled (a signal) is dropped whole
// rather than finished, so that a record of a gigabyte does not hold the
// end of the run: to an -o FILE (file) its records are written through a
// writer that fails once ctx is done, and close cuts the file back to the
// end of the last whole capture; to a pipe, a WARC capture is dropped while
// its blocks are read (before any byte of it is written), and a capture
// whose output has begun is finished, since bytes sent cannot be taken back.
type stream struct {
	ctx    context.Context
	format string
	name   string
	cfg    *crawl.Config
	aw     *arc.Writer
	ww     *warc.Writer
	info   bool
	n      int

	file outFile    // the -o file, nil for a pipe
	out  *ctxWriter // the writers' output
	mark int64      // in file, the end of the last whole capture
	cut  bool       // a capture was interrupted while written to file
}

// outFile is the -o output: a local file, or a tailfile.File over an
// s3:// upload (bytes before a Release are passed on to the upload).
type outFile interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
}

// ctxWriter writes to w, failing once ctx is done while armed.
type ctxWriter struct {
	ctx   context.Context
	w     io.Writer
	armed bool
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if c.armed && c.ctx.Err() != nil {
		return 0, c.ctx.Err()
	}
	return c.w.Write(p)
}

// ctxReader reads r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// newStream returns a stream writing to w; file is w when it is the -o
// file, positioned at its start, else nil.
func newStream(ctx context.Context, w io.Writer, file outFile, format, name string, cfg *crawl.Config) *stream {
	s := &stream{ctx: ctx, format: format, name: name, cfg: cfg, file: file, out: &ctxWriter{ctx: ctx, w: w}}
	s.newWriter()
	return s
}

func (s *stream) newWriter() {
	if s.format == "arc" {
		s.aw = arc.NewWriter(s.out, arc.WithARCFilename(s.name), arc.WithOrigin("mirrorget"))
	} else {
		s.ww = warc.NewWriter(s.out)
	}
}

// warcinfo describes the crawl (WARC 1.1 section 6.2, application/warc-fields).
func (s *stream) warcinfo() *record.Record {
	host, _ := os.Hostname()
	robots := "obey"
	if !s.cfg.Robots {
		robots = "ignore"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "software: mirrorget/%s (arcport)\r\n", cliutil.Version)
	fmt.Fprintf(&b, "format: WARC File Format 1.1\r\n")
	fmt.Fprintf(&b, "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n")
	if host != "" {
		fmt.Fprintf(&b, "hostname: %s\r\n", host)
	}
	fmt.Fprintf(&b, "robots: %s\r\n", robots)
	fmt.Fprintf(&b, "http-header-user-agent: %s\r\n", s.cfg.UserAgent)
	fmt.Fprintf(&b, "description: mirrorget crawl of %s (scope %s)\r\n", strings.Join(s.cfg.Seeds, " "), s.cfg.Scope)
	return &record.Record{
		Header: record.Header{
			{Name: record.FieldType, Value: string(record.Warcinfo)},
			{Name: record.FieldRecordID, Value: crawl.NewRecordID()},
			{Name: record.FieldDate, Value: record.FormatDate(time.Now(), false)},
			{Name: record.FieldFilename, Value: s.name},
			{Name: record.FieldContentType, Value: "application/warc-fields"},
		},
		Block: strings.NewReader(b.String()),
	}
}

// write writes one capture; captures without a response (network errors)
// write nothing.
func (s *stream) write(cp *crawl.Capture) error {
	if s.cut {
		return s.ctx.Err()
	}
	req, resp := cp.WARCRecords()
	if resp == nil {
		return nil
	}
	if s.file != nil || s.ww != nil {
		req.Block = ctxReader{s.ctx, req.Block}
		resp.Block = ctxReader{s.ctx, resp.Block}
	}
	var extra []*record.Record
	if s.ww != nil {
		extra = renderRecords(cp, resp.ID())
	}
	s.out.armed = s.file != nil
	err := s.writeRecords(req, resp, extra...)
	s.out.armed = false
	if err != nil && s.ctx.Err() != nil {
		// interrupted while written: dropped whole
		s.cut = s.file != nil
		return fmt.Errorf("%s: record dropped: %w", cp.URL, s.ctx.Err())
	}
	if err == nil && s.file != nil {
		s.mark, err = s.file.Seek(0, io.SeekCurrent)
		if r, ok := s.file.(interface{ Release(int64) error }); ok && err == nil {
			// whole captures are final: on to the upload
			err = r.Release(s.mark)
		}
	}
	return err
}

func (s *stream) writeRecords(req, resp *record.Record, extra ...*record.Record) error {
	s.n++
	if s.aw != nil {
		if err := s.aw.WriteRecord(resp); err != nil {
			return err
		}
		return s.aw.Flush()
	}
	if !s.info {
		s.info = true
		info := s.warcinfo()
		if err := s.ww.WriteRecord(info); err != nil {
			return err
		}
	}
	if err := s.ww.WriteRecord(req); err != nil {
		return err
	}
	if err := s.ww.WriteRecord(resp); err != nil {
		return err
	}
	for _, r := range extra {
		if err := s.ww.WriteRecord(r); err != nil {
			return err
		}
	}
	// out to the pipe as each fetch completes
	return s.ww.Flush()
}

func (s *stream) close() error {
	if s.cut {
		// the writer is broken: release it, cut the file back, and end
		// the file with a fresh writer
		if s.aw != nil {
			s.aw.Close()
		} else {
			s.ww.Close()
		}
		if err := s.file.Truncate(s.mark); err != nil {
			return err
		}
		if _, err := s.file.Seek(s.mark, io.SeekStart); err != nil {
			return err
		}
		s.cut = false
		s.newWriter()
		if s.mark > 0 {
			return nil // ends with whole records; nothing is pending
		}
		s.info = false
	}
	if s.aw != nil {
		return s.aw.Close()
	}
	if !s.info {
		s.info = true
		if err := s.ww.WriteRecord(s.warcinfo()); err != nil {
			return err
		}
	}
	return s.ww.Close()
}
