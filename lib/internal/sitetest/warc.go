package sitetest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// PagesIn reads WARC files (plain, gzip or zstd, with lib/warc under the
// Fail policy) and returns how many response records each WARC-Target-URI
// has across them. Any problem - a truncated record included - fails t.
func PagesIn(t testing.TB, warcFiles ...string) map[string]int {
	t.Helper()
	pages := map[string]int{}
	for _, f := range warcFiles {
		c, err := countFile(f)
		if err != nil {
			t.Fatalf("sitetest: %v", err)
		}
		for u, n := range c.Pages {
			pages[u] += n
		}
	}
	return pages
}

// Partial is what PagesInPartial read.
type Partial struct {
	// Pages counts the complete response records of each WARC-Target-URI.
	Pages map[string]int
	// Types counts the complete records of each WARC-Type.
	Types map[record.Type]int
	// Records is the number of complete records, of any type.
	Records int
	// Cut lists, for each file where reading stopped on an error, the
	// file and the error ("file: error").
	Cut []string
}

// PagesInPartial reads WARC files like PagesIn, but each only until its
// first error, as the file of a killed writer ends in a truncated record:
// it counts the complete records, those whose block was read whole and
// which were followed by the next record's start or the end of the file.
// What follows an error is not read. It fails t only when a file cannot be
// opened.
func PagesInPartial(t testing.TB, warcFiles ...string) Partial {
	t.Helper()
	p := Partial{Pages: map[string]int{}, Types: map[record.Type]int{}}
	for _, f := range warcFiles {
		c, err := countFile(f)
		if !c.opened {
			t.Fatalf("sitetest: %v", err)
		}
		if err != nil {
			p.Cut = append(p.Cut, err.Error())
		}
		for u, n := range c.Pages {
			p.Pages[u] += n
		}
		for ty, n := range c.Types {
			p.Types[ty] += n
		}
		p.Records += c.Records
	}
	return p
}

type counts struct {
	Partial
	opened bool
}

// countFile counts the complete records of file up to its first error
// (returned, naming the file).
func countFile(file string) (counts, error) {
	c := counts{Partial: Partial{Pages: map[string]int{}, Types: map[record.Type]int{}}}
	f, err := os.Open(file)
	if err != nil {
		return c, err
	}
	defer f.Close()
	c.opened = true
	r, err := warc.NewReader(f, warc.WithPolicy(record.Fail), warc.WithFilename(file))
	if err != nil {
		return c, fmt.Errorf("%s: %w", file, err)
	}
	err = countRecords(r, &c.Partial)
	if err != nil {
		return c, fmt.Errorf("%s: after %d complete records: %w", file, c.Records, err)
	}
	return c, nil
}

// countRecords reads r to its end or first error. A record counts once its
// block was read whole and the following Next either succeeded, reached
// the end, or failed on a later record (a problem at a later offset): an
// error about the record itself (such as its gzip member or trailer being
// cut short) means it is incomplete.
func countRecords(r *warc.Reader, p *Partial) error {
	var pending *record.Record
	var pendingType record.Type
	var pendingURI string
	commit := func() {
		if pending != nil {
			p.Records++
			p.Types[pendingType]++
			if pendingType == record.Response {
				p.Pages[pendingURI]++
			}
			pending = nil
		}
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			commit()
			return nil
		}
		if err != nil {
			var pe *record.Problem
			if pending != nil && errors.As(err, &pe) && pe.Offset > pending.Offset {
				commit()
			}
			return err
		}
		commit()
		if _, err := io.Copy(io.Discard, rec.Block); err != nil {
			return fmt.Errorf("record at offset %d: reading its block: %w", rec.Offset, err)
		}
		pending, pendingType, pendingURI = rec, rec.Type(), rec.TargetURI()
	}
}
