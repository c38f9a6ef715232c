package warc

import (
	"io"

	"github.com/arcport/arcport/lib/record"
)

// VerifyDigests reads every record of r with digest checking on (see
// WithVerifyDigests) and returns how many records it read and every problem
// found, digest mismatches included. Problems are collected rather than
// printed; under the Fail policy (set through opts) reading stops at the
// first one, which is also returned as err.
func VerifyDigests(r io.Reader, opts ...Option) (records int, problems []*record.Problem, err error) {
	collect := func(p *record.Problem) { problems = append(problems, p) }
	opts = append(append([]Option{}, opts...), WithVerifyDigests(true), WithProblemFunc(collect))
	rd, err := NewReader(r, opts...)
	if err != nil {
		return 0, nil, err
	}
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return records, problems, nil
		}
		if err != nil {
			if p, ok := err.(*record.Problem); ok && rd.policy == record.Fail {
				problems = append(problems, p)
			}
			return records, problems, err
		}
		records++
	}
}
