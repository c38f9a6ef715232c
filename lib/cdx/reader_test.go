package cdx

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

func TestParseCDXJ(t *testing.T) {
	for _, c := range []struct {
		line          string
		key, ts, json string // json: fields re-serialized
		err           bool
	}{
		{`com,example)/ 20170306040206 {"url":"http://example.com/","length":"1228"}`,
			"com,example)/", "20170306040206", `{"url":"http://example.com/","length":"1228"}`, false},
		// warcio.js keeps non-HTTP URLs, spaces included, as keys.
		{`file:///example with spaces.png 20190619161643 {"url":"file:///example with spaces.png"}` + "\r\n",
			"file:///example with spaces.png", "20190619161643", `{"url":"file:///example with spaces.png"}`, false},
		// A record without target URI nor date.
		{`undefined  {"mime":"text/plain"}`, "undefined", "", `{"mime":"text/plain"}`, false},
		// Numbers (py-wacz idx style) kept as written; spaces after ':' allowed.
		{`com,example)/ 20201007212236 {"offset": 0, "length": 194}`, "com,example)/", "20201007212236", `{"offset":0,"length":194}`, false},
		// A " {" inside the key is passed over when the rest is not JSON.
		{`urn:a {b} 2020 {"x":"{y}"}`, "urn:a {b}", "2020", `{"x":"{y}"}`, false},
		{`com,example)/ 2020 {"a":"\u00e9\ud83d\ude00","b":[1,{"c":null}]}`, "com,example)/", "2020", `{"a":"é😀","b":[1,{"c":null}]}`, false},
		{`com,example)/ 20170306040206`, "", "", "", true},
		{`com,example)/ 2017 {"url":}`, "", "", "", true},
		{`com,example)/ 2017 {"url":"x"} trailing`, "", "", "", true},
		{`{"url":"x"}`, "", "", "", true},
		{`com,example)/ 2017 ["x"]`, "", "", "", true},
		{`a 1 {"s":"\x"}`, "", "", "", true},
	} {
		e, err := ParseCDXJ([]byte(c.line))
		if c.err {
			if err == nil || !errors.Is(err, ErrNotCDXJ) {
				t.Errorf("ParseCDXJ(%q) = %v, want ErrNotCDXJ", c.line, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseCDXJ(%q): %v", c.line, err)
			continue
		}
		if e.URLKey != c.key || e.Timestamp != c.ts {
			t.Errorf("ParseCDXJ(%q) key %q ts %q, want %q %q", c.line, e.URLKey, e.Timestamp, c.key, c.ts)
		}
		got := e.String()
		got = got[len(e.URLKey)+len(e.Timestamp)+2:]
		if got != c.json {
			t.Errorf("ParseCDXJ(%q) fields %s, want %s", c.line, got, c.json)
		}
	}
}

func TestEntryRoundTrip(t *testing.T) {
	// Every line warcio.js wrote for the fixtures parses and re-serializes
	// to the same bytes.
	b, err := os.ReadFile("testdata/quirks.cdxj")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		e, err := ParseCDXJ([]byte(line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := e.String(); got != line {
			t.Errorf("round trip:\n got  %.300s\n want %.300s", got, line)
		}
		n++
	}
	if n < 40 {
		t.Fatalf("only %d lines in testdata/quirks.cdxj", n)
	}
}

func TestReaderBadLines(t *testing.T) {
	in := strings.Join([]string{
		`!meta 0 {"format": "cdxj-gzip-1.0"}`,
		`com,example)/a 2020 {"url":"http://example.com/a"}`,
		``,
		`garbage that is not an entry`,
		`com,example)/b 2020 {"url":`,
		` CDX N b a m s k r M S V g`,
		`com,example)/c 2021 {"url":"http://example.com/c"}`,
		strings.Repeat("x", MaxLineSize+10) + ` {"a":"b"}`,
		`com,example)/d 2022 {"url":"http://example.com/d"}`,
	}, "\n")
	r := NewReader(strings.NewReader(in), "idx.cdxj")
	type res struct {
		key  string
		line int
	}
	var got []res
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			if le.File != "idx.cdxj" || !strings.HasPrefix(le.Error(), "idx.cdxj: line ") {
				t.Errorf("error %q does not name the file", le.Error())
			}
			got = append(got, res{"ERR", le.Line})
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res{e.URLKey, r.Line()})
	}
	want := []res{{"com,example)/a", 2}, {"ERR", 4}, {"ERR", 5}, {"com,example)/c", 7}, {"ERR", 8}, {"com,example)/d", 9}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// FuzzParseCDXJ: no panic, and what parses re-serializes to a line that
// parses to the same entry.
func FuzzParseCDXJ(f *testing.F) {
	if b, err := os.ReadFile("testdata/quirks.cdxj"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte(`!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}`))
	f.Add([]byte(`com,example)/ 20201007212236 {"offset": 0, "length": 194, "digest": "sha256:00"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := ParseCDXJ(line)
		if err != nil {
			return
		}
		again, err := ParseCDXJ([]byte(e.String()))
		if err != nil {
			t.Fatalf("re-serialized %q does not parse: %v", e.String(), err)
		}
		if again.String() != e.String() {
			t.Fatalf("unstable: %q then %q", e.String(), again.String())
		}
	})
}

// FuzzReader: a stream of arbitrary bytes never panics and errors carry
// line numbers that increase.
func FuzzReader(f *testing.F) {
	if b, err := os.ReadFile("testdata/quirks.cdxj"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("a 1 {}\n\n!x\nbad\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(strings.NewReader(string(data)), "f")
		last := 0
		for i := 0; i < 1<<16; i++ {
			_, err := r.Next()
			if err == io.EOF {
				return
			}
			var le *LineError
			if errors.As(err, &le) {
				if le.Line <= last {
					t.Fatalf("line %d after %d", le.Line, last)
				}
				last = le.Line
			} else if err != nil {
				t.Fatal(err)
			}
		}
	})
}
