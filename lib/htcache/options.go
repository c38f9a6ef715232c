package htcache

import (
	"time"

	"github.com/arcport/arcport/lib/record"
)

// Option configures readers (NewZipReader, NewNdxReader, Open,
// NewRecordReader).
type Option func(*config)

type config struct {
	policy    record.Policy
	onProblem record.ProblemFunc
	verify    bool
	verifySet bool
	loc       *time.Location
	warcinfo  bool
	software  string
}

func newConfig(opts []Option) config {
	c := config{policy: record.Warn}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithPolicy sets what readers do about damaged input (default record.Warn:
// skip damaged entries, report them, go on).
func WithPolicy(p record.Policy) Option { return func(c *config) { c.policy = p } }

// WithProblemFunc receives the problems found under record.Warn.
func WithProblemFunc(f record.ProblemFunc) Option { return func(c *config) { c.onProblem = f } }

// WithVerify makes the zip reader inflate every entry while scanning and
// check its size and CRC-32 before yielding it, skipping (and reporting)
// damaged ones. It is off by default for ZipReader and on by default for
// Cache; it is always on for a zip without a central directory (a crawl
// interrupted before the end), so that only complete, intact entries are
// recovered.
func WithVerify(v bool) Option { return func(c *config) { c.verify, c.verifySet = v, true } }

// WithLocation gives the time zone of the machine that ran the crawl: HTTrack
// logs local times. Without it the zone is inferred from hts-cache/new.txt
// (see CrawlLog), falling back to UTC.
func WithLocation(loc *time.Location) Option { return func(c *config) { c.loc = loc } }

// WithWarcinfo makes RecordReader yield a warcinfo record first, naming the
// HTTrack version and command line found in the logs and software as the
// converting software.
func WithWarcinfo(software string) Option {
	return func(c *config) { c.warcinfo, c.software = true, software }
}

// problem applies the error policy to one defect: under Fail it returns the
// problem as an error, otherwise it reports it (Warn) and returns nil.
func (c *config) problem(file string, off int64, repaired, skipped bool, msg string) error {
	p := &record.Problem{File: file, Offset: off, Msg: msg, Repaired: repaired, Skipped: skipped}
	switch c.policy {
	case record.Fail:
		return p
	case record.Warn:
		if c.onProblem != nil {
			c.onProblem(p)
		}
	}
	return nil
}
