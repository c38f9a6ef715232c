package arc

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/record"
)

// convertAll converts data and returns the records with their bodies.
func convertAll(t *testing.T, name string, data []byte, opts ...ConvertOption) []got {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), WithName(name))
	if err != nil {
		t.Fatal(err)
	}
	c := NewConverter(r, append([]ConvertOption{WithSourceName(name)}, opts...)...)
	var out []got
	for {
		rec, err := c.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		g := got{rec: rec}
		if rec.Block != nil {
			if g.body, err = io.ReadAll(rec.Block); err != nil {
				t.Fatal(err)
			}
		}
		if int64(len(g.body)) != rec.ContentLength() {
			t.Errorf("%s: %s record: body %d bytes, Content-Length %d", name, rec.Type(), len(g.body), rec.ContentLength())
		}
		out = append(out, g)
	}
}

var uuidID = regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[45][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$`)

// withoutIDs replaces record IDs in a header dump by their role.
func withoutIDs(h string, ids map[string]string) string {
	for id, name := range ids {
		h = strings.ReplaceAll(h, id, name)
	}
	return h
}

func TestConvertExample(t *testing.T) {
	plain := fixture(t, "example.arc")
	for _, file := range []string{"example.arc", "example.arc.gz"} {
		t.Run(file, func(t *testing.T) {
			recs := convertAll(t, "some/dir/"+file, fixture(t, file), WithSoftware("arcport arc2warc 1.2.3"))
			if len(recs) != 3 {
				t.Fatalf("%d records", len(recs))
			}
			ids := map[string]string{}
			for i, g := range recs {
				id := g.rec.ID()
				if !uuidID.MatchString(id) {
					t.Errorf("record %d: bad ID %q", i, id)
				}
				if _, dup := ids[id]; dup {
					t.Errorf("duplicate ID %s", id)
				}
				ids[id] = []string{"<INFO>", "<META>", "<RESP>"}[i]
				if g.rec.Version != record.WARC11 {
					t.Errorf("record %d version %q", i, g.rec.Version)
				}
			}
			want := []string{`WARC-Type: warcinfo
WARC-Record-ID: <INFO>
WARC-Date: 2014-02-16T05:02:21Z
Content-Type: application/warc-fields
Content-Length: 479
`, `WARC-Type: metadata
WARC-Record-ID: <META>
WARC-Warcinfo-ID: <INFO>
WARC-Target-URI: filedesc://live-web-example.arc.gz
WARC-Date: 2014-02-16T05:02:21Z
WARC-Concurrent-To: <INFO>
Content-Type: text/plain
Content-Length: 149
`, `WARC-Type: response
WARC-Record-ID: <RESP>
WARC-Warcinfo-ID: <INFO>
WARC-Target-URI: http://example.com/
WARC-Date: 2014-02-16T05:02:21Z
WARC-IP-Address: 93.184.216.119
Content-Type: application/http;msgtype=response
Content-Length: 1591
`}
			info := "software: arcport arc2warc 1.2.3\r\n" +
				"format: WARC File Format 1.1\r\n" +
				"conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n" +
				"description: Converted from ARC file " + file + " following the IIPC WARC Implementation Guidelines; the original version block is in the metadata record that follows\r\n" +
				"arc-file: " + file + "\r\n" +
				"arc-filedesc: filedesc://live-web-example.arc.gz\r\n" +
				"arc-version: 1\r\n" +
				"arc-origin: LiveWeb Capture\r\n"
			want[0] = strings.Replace(want[0], "479", strconv.Itoa(len(info)), 1)
			for i := range want {
				if h := withoutIDs(hdr(recs[i].rec.Header), ids); h != want[i] {
					t.Errorf("record %d:\n%s\nwant\n%s", i, h, want[i])
				}
			}
			if string(recs[0].body) != info {
				t.Errorf("warcinfo body:\n%s\nwant\n%s", recs[0].body, info)
			}
			// The metadata record holds the version block as it was.
			if !bytes.Equal(recs[1].body, plain[:149]) || !bytes.HasSuffix(plain[:151], []byte("Archive-length\n\n")) {
				t.Errorf("metadata body %q", recs[1].body)
			}
			if !bytes.Equal(recs[2].body, between(t, plain, exampleURLLine+"\n", 1591)) {
				t.Error("response body differs")
			}
		})
	}
}

func TestConvertDeterministic(t *testing.T) {
	data := fixture(t, "example.arc.gz")
	ids := func(name string, det bool) []string {
		var out []string
		for _, g := range convertAll(t, name, data, WithDeterministicIDs(det)) {
			out = append(out, g.rec.ID(), g.rec.Header.Get(record.FieldWarcinfoID), g.rec.Header.Get(record.FieldConcurrentTo))
		}
		return out
	}
	a, b := ids("example.arc.gz", true), ids("/elsewhere/example.arc.gz", true)
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("deterministic IDs depend on the directory:\n%v\n%v", a, b)
	}
	if c := ids("other.arc.gz", true); c[0] == a[0] {
		t.Error("deterministic IDs ignore the source name")
	}
	if r := ids("example.arc.gz", false); r[0] == a[0] || r[0] == ids("example.arc.gz", false)[0] {
		t.Error("random IDs repeat")
	}
	if !strings.Contains(a[0], "-5") {
		t.Errorf("deterministic ID %s is not a version-5 UUID", a[0])
	}
}

func TestConvertMapping(t *testing.T) {
	dnsBody := "20200101000000\nexample.org.\t300\tIN\tA\t93.184.216.34\n"
	data := v1(recA(len(bodyA)), recB(len(bodyB))) +
		"dns:example.org 10.0.0.1 20200101000000 text/dns " + itoa(len(dnsBody)) + "\n" + dnsBody + "\n" +
		"http://x.test/notfound 0.0.0.0 20200101000000 no-type 5\nhello\n" +
		"https://x.test/s 1.2.3.4 20200101000000 text/html " + itoa(len(bodyA)) + "\n" + bodyA + "\n" +
		recB(len(bodyB)) + "\n" + // a second file follows, without a version block of its own
		""
	second := "filedesc://two.arc 0.0.0.0 20210101000000 text/plain " + itoa(len(v1Lines)) + "\n" + v1Lines + "\n" + recB(len(bodyB)) + "\n"
	recs := convertAll(t, "m.arc", []byte(data+second), WithWARCVersion(record.WARC10), WithWARCFilename("out.warc.gz"))
	type row struct{ typ, uri, ctype, ip, info string }
	var rows []row
	var infos []string
	for _, g := range recs {
		if g.rec.Type() == record.Warcinfo {
			infos = append(infos, g.rec.ID())
			if g.rec.Header.Get(record.FieldFilename) != "out.warc.gz" || !strings.Contains(string(g.body), "format: WARC File Format 1.0\r\n") {
				t.Errorf("warcinfo %s %q", hdr(g.rec.Header), g.body)
			}
		}
		wi := g.rec.Header.Get(record.FieldWarcinfoID)
		for i, id := range infos {
			if wi == id {
				wi = "info" + itoa(i)
			}
		}
		rows = append(rows, row{string(g.rec.Type()), g.rec.TargetURI(), g.rec.ContentType(), g.rec.Header.Get(record.FieldIPAddress), wi})
		if g.rec.Version != record.WARC10 {
			t.Errorf("version %q", g.rec.Version)
		}
	}
	want := []row{
		{"warcinfo", "", "application/warc-fields", "", ""},
		{"metadata", "filedesc://test.arc", "text/plain", "", "info0"},
		{"response", "http://www.dryswamp.edu:80/index.html", "application/http;msgtype=response", "127.10.100.2", "info0"},
		{"resource", "ftp://example.org/b.txt", "text/plain", "", "info0"},
		{"resource", "dns:example.org", "text/dns", "10.0.0.1", "info0"},
		{"resource", "http://x.test/notfound", "application/octet-stream", "", "info0"},
		{"response", "https://x.test/s", "application/http;msgtype=response", "1.2.3.4", "info0"},
		{"resource", "ftp://example.org/b.txt", "text/plain", "", "info0"},
		{"warcinfo", "", "application/warc-fields", "", ""},
		{"metadata", "filedesc://two.arc", "text/plain", "", "info1"},
		{"resource", "ftp://example.org/b.txt", "text/plain", "", "info1"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d records: %v", len(rows), rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
	if string(recs[4].body) != dnsBody {
		t.Errorf("dns body %q", recs[4].body)
	}
}

func TestConvertHeadless(t *testing.T) {
	recs := convertAll(t, "-", []byte(recB(len(bodyB))+"\n"), WithDeterministicIDs(true))
	if len(recs) != 2 || recs[0].rec.Type() != record.Warcinfo || recs[1].rec.Header.Get(record.FieldWarcinfoID) != recs[0].rec.ID() {
		t.Fatalf("%v", recs)
	}
	want := "software: arcport arc2warc\r\nformat: WARC File Format 1.1\r\n" +
		"conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n" +
		"description: Converted from ARC following the IIPC WARC Implementation Guidelines; the ARC file had no version block\r\n" +
		"arc-version: 1\r\n"
	if string(recs[0].body) != want {
		t.Errorf("warcinfo %q", recs[0].body)
	}
	if d := recs[0].rec.Header.Get(record.FieldDate); d != "1996-11-04T14:21:04Z" {
		t.Errorf("warcinfo date %s", d)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestFormatID(t *testing.T) {
	u := uuid.MustParse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
	if got, want := formatID(u), "<urn:uuid:"+u.String()+">"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}
