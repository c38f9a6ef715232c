package record

import "fmt"

// Policy says what a reader does about malformed input: ignore it silently,
// report it and go on (repairing or skipping), or stop with an error. The same
// reader thus serves a lenient converter and a strict validator.
type Policy int

// Error policies.
const (
	// Warn repairs what is safe and skips what is not, reporting each
	// problem to the reader's ProblemFunc. It is the default.
	Warn Policy = iota
	// Ignore repairs and skips like Warn, without reporting.
	Ignore
	// Fail stops at the first problem, returning it as an error.
	Fail
)

// Problem is one defect found in input.
type Problem struct {
	File     string // file name as given by the user ("-" or "" for stdin)
	Offset   int64  // offset of the record the problem belongs to
	Msg      string // what is wrong, without file or offset
	Repaired bool   // true if the reader repaired it and yielded the record
	Skipped  bool   // true if the record (or bytes) were dropped
}

// Error formats the problem as "file: record at offset N: msg".
func (p *Problem) Error() string {
	f := p.File
	if f == "" {
		f = "-"
	}
	return fmt.Sprintf("%s: record at offset %d: %s", f, p.Offset, p.Msg)
}

// ProblemFunc receives problems found under the Warn policy.
type ProblemFunc func(*Problem)
