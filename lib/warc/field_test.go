package warc

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// fieldInfo is a warcinfo record put before the damaged ones, so that their
// offset is not 0.
const fieldInfo = "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n" +
	"WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Length: 0\r\n\r\n\r\n\r\n"

// fieldRecord is a resource record whose header holds the given lines
// after WARC-Type.
func fieldRecord(lines ...string) string {
	return "WARC/1.1\r\nWARC-Type: resource\r\n" + strings.Join(lines, "\r\n") +
		"\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000002>\r\nWARC-Date: 2020-01-01T00:00:00Z\r\n" +
		"Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
}

// TestBadFieldsRepaired (e2e/hostile TestKnownCreateBareCR): header fields
// the Writer refuses (a bare CR, a space or a tab in a name; a bare CR in a
// value, also through a continuation line) are repaired by the Reader and
// reported as problems of their record, so that every record read under
// Warn can be written again; under Fail they stop the reader with the file
// and the record's offset.
func TestBadFieldsRepaired(t *testing.T) {
	at := "f.warc: record at offset 154: "
	if len(fieldInfo) != 154 {
		t.Fatalf("warcinfo of %d bytes", len(fieldInfo))
	}
	cases := []struct {
		name     string
		lines    []string
		want     record.Field // the field as read
		problems []string
	}{
		{"bare CR in name", []string{"WARC-Target\rURI: http://a.test/"},
			record.Field{Name: "WARC-Target-URI", Value: "http://a.test/"},
			[]string{at + `bad field name "WARC-Target\rURI": read as "WARC-Target-URI"`}},
		{"space in name", []string{"X Foo: bar"},
			record.Field{Name: "X-Foo", Value: "bar"},
			[]string{at + `bad field name "X Foo": read as "X-Foo"`}},
		{"tab in name", []string{"X\tFoo: bar"},
			record.Field{Name: "X-Foo", Value: "bar"},
			[]string{at + `bad field name "X\tFoo": read as "X-Foo"`}},
		{"bare CR in value", []string{"WARC-Target-URI: http://a.test/\rx"},
			record.Field{Name: "WARC-Target-URI", Value: "http://a.test/ x"},
			[]string{at + "field WARC-Target-URI: bare CR in the value read as a space"}},
		{"bare CR in a continuation", []string{"X-Foo: a", " b\rc"},
			record.Field{Name: "X-Foo", Value: "a b c"},
			[]string{at + "field X-Foo: bare CR in the value read as a space"}},
		{"both", []string{"X\rFoo: a\rb"},
			record.Field{Name: "X-Foo", Value: "a b"},
			[]string{at + `bad field name "X\rFoo": read as "X-Foo"`, at + "field X-Foo: bare CR in the value read as a space"}},
		{"trailing CRs are line ends", []string{"X-Foo: a\r\r"},
			record.Field{Name: "X-Foo", Value: "a"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(fieldInfo + fieldRecord(c.lines...))
			recs, problems, err := readAllFrom(t, data, "f.warc")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(problems, c.problems) {
				t.Errorf("problems\n %q\nwant\n %q", problems, c.problems)
			}
			if len(recs) != 2 {
				t.Fatalf("%d records", len(recs))
			}
			rec := recs[1].rec
			if rec.Offset != 154 || rec.Header[1] != c.want || string(recs[1].block) != "hello" {
				t.Errorf("offset %d, field %q, block %q", rec.Offset, rec.Header[1], recs[1].block)
			}
			// what was read is written again, and reads back unchanged
			var out bytes.Buffer
			w := NewWriter(&out, WithCompression(compio.Plain))
			rec.Block = bytes.NewReader(recs[1].block)
			if err := w.WriteRecord(rec); err != nil {
				t.Fatalf("WriteRecord: %v", err)
			}
			w.Close()
			back, problems, err := readAllFrom(t, out.Bytes(), "out.warc")
			if err != nil || len(problems) > 0 || len(back) != 1 || back[0].rec.Header.Get(c.want.Name) != c.want.Value {
				t.Errorf("read back: %v %q, %d records", err, problems, len(back))
			}
			// under Fail the first problem is the error
			_, _, err = readAllFrom(t, data, "f.warc", WithPolicy(record.Fail))
			var p *record.Problem
			if len(c.problems) == 0 {
				if err != nil {
					t.Errorf("Fail: %v", err)
				}
			} else if !errors.As(err, &p) || p.Error() != c.problems[0] {
				t.Errorf("Fail: %v, want %s", err, c.problems[0])
			}
		})
	}
}

// FuzzReadThenWrite: whatever the Reader yields under Warn, the Writer
// takes, unless the record has no WARC-Type (which the Reader reports).
func FuzzReadThenWrite(f *testing.F) {
	f.Add([]byte(fieldInfo + fieldRecord("WARC-Target\rURI: http://a.test/")))
	f.Add([]byte(fieldInfo + fieldRecord("X Foo: a\rb", "\tc\rd")))
	f.Add(readFixture(f, "example.warc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), WithProblemFunc(func(*record.Problem) {}))
		if err != nil {
			return
		}
		w := NewWriter(io.Discard, WithCompression(compio.Plain))
		defer w.Close()
		for i := 0; i < 100; i++ {
			rec, err := r.Next()
			if err != nil {
				return
			}
			if rec.Header.Get(record.FieldType) == "" {
				continue
			}
			if err := w.WriteRecord(rec); err != nil && !strings.Contains(err.Error(), "reading block") {
				t.Fatalf("record at %d read, not written: %v", rec.Offset, err)
			}
		}
	})
}
