package wacz

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func FuzzParseCDXJ(f *testing.F) {
	f.Add(`com,example)/ 20170306040206 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"1228","offset":"784","filename":"example.warc.gz"}`)
	f.Add(`file:///example with spaces.png 20190619161643 {"url":"file:///example with spaces.png","length":342,"offset":241}`)
	f.Add(`a 1 {"offset":-1,"length":"x"}`)
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseCDXJ(line)
		if err != nil {
			return
		}
		if c.Offset < 0 || c.Length < 0 {
			t.Fatalf("negative offset/length from %q", line)
		}
		if !strings.HasPrefix(line, c.URLKey+" "+c.Timestamp+" ") {
			t.Fatalf("key/timestamp not a prefix of %q", line)
		}
	})
}

func FuzzParsePageList(f *testing.F) {
	f.Add("{\"format\":\"json-pages-1.0\",\"id\":\"pages\",\"title\":\"All\"}\n{\"url\":\"http://a/\",\"ts\":\"2020-01-01T00:00:00Z\",\"title\":\"A\"}\n")
	f.Add("# list\nhttp://example.com/\nhttps://example.com/x?y\n")
	f.Add("{\"url\":\"http://a/\",\"ts\":\"20200101\"}\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, reqs, err := ParsePageList(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		for _, r := range reqs {
			if r.URL == "" {
				t.Fatal("page without URL accepted")
			}
		}
	})
}

// FuzzValidate opens arbitrary bytes as a WACZ and validates them: errors
// or problems, never a panic or a hang.
func FuzzValidate(f *testing.F) {
	path, _, err := buildWACZ(f, Options{Seeds: []string{"http://example.com/"}}, readTD(f, "example.warc.gz"))
	if err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Open(bytes.NewReader(b), int64(len(b)), "fuzz.wacz")
		if err != nil {
			return
		}
		r.ValidateWith(ValidateOptions{Digests: true, Verbose: func(Problem) {}})
		r.Captures(func(c *Capture) error {
			if rec, err := r.Record(c); err == nil && rec.Block != nil {
				io.Copy(io.Discard, io.LimitReader(rec.Block, 1<<20))
			}
			return nil
		})
		r.Pages()
		r.Find("http://example.com/", time.Time{})
	})
}

// FuzzCreate packs arbitrary bytes (and their gzip) as input: an error or a
// WACZ that validates, never a panic.
func FuzzCreate(f *testing.F) {
	for _, n := range []string{"example.warc.gz", "example.warc", "example.arc", "example-bad-non-chunked.warc.gz"} {
		f.Add(readTD(f, n).data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.wacz")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		w, err := NewWriter(out, Options{TempDir: dir, Created: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddInput("fuzz.warc", bytes.NewReader(b)); err != nil {
			w.Close()
			return
		}
		if err := w.Close(); err != nil {
			return
		}
		r, err := OpenFile(path)
		if err != nil {
			t.Fatalf("output does not open: %v", err)
		}
		defer r.Close()
		if probs := r.Validate(); len(probs) > 0 {
			t.Fatalf("output does not validate: %v", probs)
		}
	})
}
