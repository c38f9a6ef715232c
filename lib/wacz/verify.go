package wacz

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// CheckOptions configures CheckArchive.
type CheckOptions struct {
	// Problem receives every problem: a digest that does not match or
	// cannot be read, and damage to the structure (records that do not end
	// where Content-Length says, a gzip member holding more than one
	// record or cut short, a bad CRC, garbage between records). Its File is
	// the name given to CheckArchive.
	Problem func(*record.Problem)
	// Verbose, when set, receives one line per WARC record saying how its
	// digests compared (without the file name and offset, given apart):
	// which payload-digest convention matched, or that it has none.
	Verbose func(offset int64, line string)
}

// CheckStats counts what CheckArchive saw.
type CheckStats struct {
	Records   int
	Checked   int // digests compared with the computed ones
	Mismatch  int // digests that matched neither convention
	NoDigest  int // records with neither a block nor a payload digest
	AsStored  int // payload digests over the chunked entity as stored
	Dechunked int // payload digests over the de-chunked payload of a chunked entity (WARC 1.1)
	Problems  int
	ARC       bool // the input was ARC (no digests: structure only)
	Parts     int  // parts of the file checked at once (CheckArchiveAt; 0: one pass)
}

// CheckArchive reads a WARC or ARC file (plain, gzip or zstd, told by its
// first bytes) to its end like `warcio check`: it recomputes the
// WARC-Block-Digest and WARC-Payload-Digest of every WARC record (sha1,
// sha256, sha512, md5; see warc.ParseStatedDigest for the forms taken) and
// checks the structure, reporting each problem through opts.Problem. A
// payload digest matches if it is over the payload with the chunked
// transfer coding removed (WARC 1.1) or over the entity as stored (warcio,
// wget). ARC records have no digests: only their structure is checked. The
// error is for what stops the reading (an I/O error, data that is neither
// WARC nor ARC); problems are not errors.
func CheckArchive(r io.Reader, name string, opts CheckOptions) (CheckStats, error) {
	var st CheckStats
	problem := func(p *record.Problem) {
		st.Problems++
		if opts.Problem != nil {
			opts.Problem(p)
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if b, _ := br.Peek(4); string(b) == "PK\x03\x04" {
		return st, fmt.Errorf("%s: a zip file, not a WARC or ARC file (a WACZ? waczpack validate checks those)", name)
	}
	kind, err := SniffInput(br)
	if err != nil {
		return st, fmt.Errorf("%s: %v", name, err)
	}
	if kind == KindARC || kind == KindARCGzip {
		st.ARC = true
		ar, err := arc.NewReader(br, arc.WithName(name), arc.WithPolicy(record.Warn), arc.WithProblemFunc(problem))
		if err != nil {
			return st, err
		}
		for {
			rec, err := ar.Next()
			if err == io.EOF {
				return st, nil
			}
			if err != nil {
				return st, err
			}
			st.Records++
			if rec.Block != nil {
				if _, err := io.Copy(io.Discard, rec.Block); err != nil {
					return st, err
				}
			}
		}
	}
	onDigest := func(c *warc.DigestCheck) {
		b, p := c.Block.Status, c.Payload.Status
		for _, s := range []warc.DigestStatus{b, p} {
			switch s {
			case warc.DigestMatch, warc.DigestMatchAsStored:
				st.Checked++
			case warc.DigestMismatch:
				st.Checked++
				st.Mismatch++
			}
		}
		if b == warc.DigestAbsent && p == warc.DigestAbsent {
			st.NoDigest++
		}
		if p == warc.DigestMatchAsStored {
			st.AsStored++
		} else if p == warc.DigestMatch && c.Payload.Chunked {
			st.Dechunked++
		}
		if opts.Verbose != nil {
			opts.Verbose(c.Offset, DescribeDigests(c))
		}
	}
	wr, err := warc.NewReader(br, warc.WithFilename(name), warc.WithPolicy(record.Warn),
		warc.WithProblemFunc(problem), warc.WithDigestFunc(onDigest))
	if err != nil {
		return st, err
	}
	for {
		_, err := wr.Next()
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		st.Records++
	}
}

// DescribeDigests says in one line how a record's digests compared, for
// -v: "response http://x/: block sha1 ok; payload sha1 ok (...)".
func DescribeDigests(c *warc.DigestCheck) string {
	var b strings.Builder
	b.WriteString(string(c.Type))
	if c.URI != "" {
		b.WriteString(" " + c.URI)
	}
	b.WriteString(": ")
	if c.Block.Status == warc.DigestAbsent && c.Payload.Status == warc.DigestAbsent {
		b.WriteString("no digest (not checked)")
		return b.String()
	}
	b.WriteString("block ")
	b.WriteString(describe(&c.Block))
	b.WriteString("; payload ")
	b.WriteString(describe(&c.Payload))
	return b.String()
}

func describe(d *warc.DigestResult) string {
	switch d.Status {
	case warc.DigestAbsent:
		return "no digest"
	case warc.DigestUnreadable:
		return "digest unreadable"
	case warc.DigestNotChecked:
		return "digest not checked (it describes the revisited record)"
	case warc.DigestMismatch:
		return d.Want.Algorithm + " MISMATCH"
	case warc.DigestMatchAsStored:
		return d.Want.Algorithm + " ok, over the entity as stored, chunk framing included (warcio, wget)"
	}
	if d.Chunked {
		return d.Want.Algorithm + " ok, over the payload with the chunked transfer coding removed (WARC 1.1)"
	}
	return d.Want.Algorithm + " ok"
}

// IsDigestProblem reports whether a problem message of lib/warc's reader is
// about a WARC-Block-Digest or WARC-Payload-Digest (a mismatch or a value
// that cannot be read) rather than the structure.
func IsDigestProblem(msg string) bool {
	for _, p := range []string{"WARC-Block-Digest mismatch", "WARC-Payload-Digest mismatch", "bad WARC-Block-Digest", "bad WARC-Payload-Digest"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
