package arc

import "github.com/arcport/arcport/lib/record"

// Option configures a Reader.
type Option func(*config)

type config struct {
	policy   record.Policy
	problems record.ProblemFunc
	name     string
	bufSize  int
}

// WithPolicy sets what the reader does about malformed input (default
// record.Warn: repair or skip, and report).
func WithPolicy(p record.Policy) Option { return func(c *config) { c.policy = p } }

// WithProblemFunc sets the function that receives each problem found under
// the record.Warn policy.
func WithProblemFunc(f record.ProblemFunc) Option { return func(c *config) { c.problems = f } }

// WithName sets the file name used in problem reports and errors ("-" for
// standard input).
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithBufferSize sets the read buffer size (default 1 MiB, at least 128 KiB).
// Blocks up to about this size are checked against the following record
// before they are handed out, so a wrong declared length can be repaired.
func WithBufferSize(n int) Option {
	return func(c *config) {
		if n < minBufSize {
			n = minBufSize
		}
		c.bufSize = n
	}
}
