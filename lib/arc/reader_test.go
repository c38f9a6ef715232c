package arc

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/record"
)

const fixtures = "../../testdata/arc"

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// got is what a test sees of one record.
type got struct {
	rec  *record.Record
	body []byte
}

// readAll reads every record of data, returning records, problems (as
// strings, with "R"/"S" flags) and the final error (nil at io.EOF).
func readAll(t testing.TB, name string, data []byte, opts ...Option) ([]got, []string, error) {
	t.Helper()
	var probs []string
	opts = append([]Option{WithName(name), WithProblemFunc(func(p *record.Problem) {
		flag := ""
		if p.Repaired {
			flag += "R "
		}
		if p.Skipped {
			flag += "S "
		}
		if !p.Repaired && !p.Skipped {
			flag = "D " // damage: salvaged, neither repaired nor skipped
		}
		probs = append(probs, flag+p.Error())
	})}, opts...)
	r, err := NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		return nil, probs, err
	}
	var out []got
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, probs, nil
		}
		if err != nil {
			return out, probs, err
		}
		g := got{rec: rec}
		if rec.Block != nil {
			g.body, err = io.ReadAll(rec.Block)
			if err != nil {
				return out, probs, err
			}
		}
		if int64(len(g.body)) != rec.ContentLength() {
			t.Errorf("%s: record at %d: body has %d bytes, Content-Length %d", name, rec.Offset, len(g.body), rec.ContentLength())
		}
		out = append(out, g)
	}
}

// hdr renders a header as "Name: value" lines.
func hdr(h record.Header) string {
	var b strings.Builder
	for _, f := range h {
		fmt.Fprintf(&b, "%s: %s\n", f.Name, f.Value)
	}
	return b.String()
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// between returns the bytes of data from the end of the first occurrence of
// after up to n bytes.
func between(t testing.TB, data []byte, after string, n int) []byte {
	t.Helper()
	i := bytes.Index(data, []byte(after))
	if i < 0 {
		t.Fatalf("%q not found", after)
	}
	i += len(after)
	return data[i : i+n]
}

const (
	exampleFDLine  = "filedesc://live-web-example.arc.gz 127.0.0.1 20140216050221 text/plain 75"
	exampleURLLine = "http://example.com/ 93.184.216.119 20140216050221 text/html 1591"
)

func TestReadFixtures(t *testing.T) {
	plain := fixture(t, "example.arc")
	spaced := fixture(t, "example-space-in-url.arc")
	fdBlock := between(t, plain, exampleFDLine+"\n", 75)
	respBlock := between(t, plain, exampleURLLine+"\n", 1591)
	spacedLine := "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False 93.184.216.119 20140216050221 text/html 1591"
	spacedBlock := between(t, spaced, spacedLine+"\n", 1578)
	if !bytes.HasSuffix(spacedBlock, []byte("</html>\n")) || len(spaced) != bytes.Index(spaced, spacedBlock)+1578+1 {
		t.Fatal("fixture example-space-in-url.arc changed")
	}
	fdHeader := `WARC-Type: arc-filedesc
WARC-Target-URI: filedesc://live-web-example.arc.gz
WARC-Date: 2014-02-16T05:02:21Z
WARC-IP-Address: 127.0.0.1
Content-Type: text/plain
Content-Length: 75
`
	respHeader := `WARC-Type: response
WARC-Target-URI: http://example.com/
WARC-Date: 2014-02-16T05:02:21Z
WARC-IP-Address: 93.184.216.119
Content-Type: application/http;msgtype=response
Content-Length: 1591
`
	type want struct {
		header     string
		body       []byte
		offset     int64
		diskLength int64
	}
	tests := []struct {
		file     string
		records  []want
		problems []string
	}{
		{"example.arc", []want{
			{fdHeader, fdBlock, 0, 151},
			{respHeader, respBlock, 151, int64(len(plain)) - 151},
		}, nil},
		{"example.arc.gz", []want{
			// Two gzip members: the version block ends at 171.
			{fdHeader, fdBlock, 0, 171},
			{respHeader, respBlock, 171, 1027 - 171},
		}, nil},
		{"example-space-in-url.arc", []want{
			{fdHeader, fdBlock, 0, 151},
			{strings.NewReplacer("http://example.com/", "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples%20From%20The%20Live%20Web&IsPopUp=False",
				"1591", "1578").Replace(respHeader), spacedBlock, 151, int64(len(spaced)) - 151},
		}, []string{
			`R example-space-in-url.arc: record at offset 151: URL holds spaces: "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False"`,
			// The HTTP head lost its CRs: the declared length runs past the end.
			`D example-space-in-url.arc: record at offset 151: block cut short by the end of the file: 1578 of 1591 bytes`,
		}},
		{"bad.arc", []want{
			{`WARC-Type: arc-filedesc
WARC-Target-URI: filedesc://bad.arc.gz
WARC-Date: 2014-03-01T00:00:00Z
WARC-IP-Address: 127.0.0.1
Content-Type: text/plain
Content-Length: 72
`, []byte("1 0 Bad Capture\nURL IP-address Archive-date Content-type Archive-length\n"), 0, 134},
			{`WARC-Type: resource
WARC-Target-URI: http://example.com/
WARC-Date: 2014-04-01T00:00:00Z
WARC-IP-Address: 93.184.216.119
Content-Type: text/html
Content-Length: 0
`, []byte{}, 134, 68},
			{`WARC-Type: resource
WARC-Target-URI: http://example.com/
WARC-Date: 2014-01-02T00:00:00Z
WARC-IP-Address: 127.0.0.1
Content-Type: text/plain
Content-Length: 1
`, []byte("\n"), 202, 60},
			{`WARC-Type: resource
WARC-Target-URI: http://example.com/
WARC-Date: 2014-04-01T00:00:00Z
WARC-IP-Address: 93.184.216.119
Content-Type: text/html
Content-Length: 0
`, []byte{}, 262, 69},
		}, []string{
			`D bad.arc: record at offset 0: bad length "-1": block taken up to the next record (72 bytes)`,
			`D bad.arc: record at offset 134: bad length "-1": block taken up to the next record (0 bytes)`,
			`R bad.arc: record at offset 134: date "201404010000000000" is not 14 digits: read as 20140401000000`,
			`D bad.arc: record at offset 262: bad length "abc": block taken up to the end of the file (0 bytes)`,
			`R bad.arc: record at offset 262: date "201404010000000000" is not 14 digits: read as 20140401000000`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data := fixture(t, tc.file)
			recs, probs, err := readAll(t, tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(tc.records) {
				t.Fatalf("%d records, want %d", len(recs), len(tc.records))
			}
			for i, w := range tc.records {
				g := recs[i]
				if h := hdr(g.rec.Header); h != w.header {
					t.Errorf("record %d header:\n%s\nwant:\n%s", i, h, w.header)
				}
				if !bytes.Equal(g.body, w.body) {
					t.Errorf("record %d body differs (%d bytes, want %d)", i, len(g.body), len(w.body))
				}
				if g.rec.Offset != w.offset || g.rec.DiskLength != w.diskLength {
					t.Errorf("record %d offset/disk length %d/%d, want %d/%d", i, g.rec.Offset, g.rec.DiskLength, w.offset, w.diskLength)
				}
				if g.rec.Version != "ARC/1" || g.rec.ARC == nil || g.rec.ARC.Version != 1 {
					t.Errorf("record %d version %q %+v", i, g.rec.Version, g.rec.ARC)
				}
			}
			if strings.Join(probs, "\n") != strings.Join(tc.problems, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(probs, "\n"), strings.Join(tc.problems, "\n"))
			}
			// Strict mode stops at the first problem with the same text.
			_, _, err = readAll(t, tc.file, data, WithPolicy(record.Fail))
			if len(tc.problems) == 0 {
				if err != nil {
					t.Errorf("strict: %v", err)
				}
			} else {
				var p *record.Problem
				if !errors.As(err, &p) || err.Error() != tc.problems[0][2:] {
					t.Errorf("strict: error %v, want %s", err, tc.problems[0])
				}
			}
		})
	}
	// The gzip fixture holds the same bytes as the plain one.
	if !bytes.Equal(gunzip(t, fixture(t, "example.arc.gz")), plain) {
		t.Fatal("example.arc.gz is not example.arc compressed")
	}
}

func TestARCInfo(t *testing.T) {
	recs, _, err := readAll(t, "x", fixture(t, "example-space-in-url.arc"))
	if err != nil {
		t.Fatal(err)
	}
	a := recs[1].rec.ARC
	want := record.ARCInfo{Version: 1,
		URL:         "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False",
		IP:          "93.184.216.119",
		Date:        "20140216050221",
		ContentType: "text/html",
		Length:      1578,
		Line:        "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False 93.184.216.119 20140216050221 text/html 1591",
	}
	if *a != want {
		t.Errorf("ARCInfo\n%+v\nwant\n%+v", *a, want)
	}
}

// sha1hex is used to compare large bodies in messages.
func sha1hex(b []byte) string { return fmt.Sprintf("%x", sha1.Sum(b)) }
