package mirrorget

import (
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
type stream struct {
	format string
	name   string
	cfg    *crawl.Config
	aw     *arc.Writer
	ww     *warc.Writer
	info   bool
	n      int
}

func newStream(w io.Writer, format, name string, cfg *crawl.Config) *stream {
	s := &stream{format: format, name: name, cfg: cfg}
	if format == "arc" {
		s.aw = arc.NewWriter(w, arc.WithARCFilename(name), arc.WithOrigin("mirrorget"))
	} else {
		s.ww = warc.NewWriter(w)
	}
	return s
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
	req, resp := cp.WARCRecords()
	if resp == nil {
		return nil
	}
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
	// out to the pipe as each fetch completes
	return s.ww.Flush()
}

func (s *stream) close() error {
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
