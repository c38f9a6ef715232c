package arc_test

import (
	"fmt"
	"io"
	"os"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/record"
)

// Reading an ARC file: every record comes with WARC-vocabulary headers,
// and problems are reported with the file name and offset.
func ExampleNewReader() {
	f, err := os.Open("../../testdata/arc/bad.arc")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	r, err := arc.NewReader(f, arc.WithName("bad.arc"), arc.WithProblemFunc(func(p *record.Problem) {
		fmt.Println("problem:", p)
	}))
	if err != nil {
		panic(err)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Println(rec.Type(), rec.TargetURI(), rec.Header.Get("WARC-Date"), rec.ContentLength())
	}
	// Output:
	// problem: bad.arc: record at offset 0: bad length "-1": block taken up to the next record (72 bytes)
	// arc-filedesc filedesc://bad.arc.gz 2014-03-01T00:00:00Z 72
	// problem: bad.arc: record at offset 134: bad length "-1": block taken up to the next record (0 bytes)
	// problem: bad.arc: record at offset 134: date "201404010000000000" is not 14 digits: read as 20140401000000
	// resource http://example.com/ 2014-04-01T00:00:00Z 0
	// resource http://example.com/ 2014-01-02T00:00:00Z 1
	// problem: bad.arc: record at offset 262: bad length "abc": block taken up to the end of the file (0 bytes)
	// problem: bad.arc: record at offset 262: date "201404010000000000" is not 14 digits: read as 20140401000000
	// resource http://example.com/ 2014-04-01T00:00:00Z 0
}

// Converting ARC records to WARC records: the version block becomes a
// warcinfo and a metadata record.
func ExampleNewConverter() {
	f, err := os.Open("../../testdata/arc/example.arc.gz")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	r, err := arc.NewReader(f)
	if err != nil {
		panic(err)
	}
	c := arc.NewConverter(r, arc.WithSourceName("example.arc.gz"), arc.WithDeterministicIDs(true))
	for {
		rec, err := c.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Println(rec.Type(), rec.TargetURI(), rec.ContentType())
	}
	// Output:
	// warcinfo  application/warc-fields
	// metadata filedesc://live-web-example.arc.gz text/plain
	// response http://example.com/ application/http;msgtype=response
}
