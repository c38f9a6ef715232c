package crawl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// counting counts the bytes read from the underlying reader, as the
// connection reader does.
type counting struct {
	r io.Reader
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// frame reads one response from b the way the fetcher does and returns how
// many bytes the message took.
func frame(b []byte, budget int64) (end int64, closeDelimited bool, err error) {
	c := &counting{r: bytes.NewReader(b)}
	br := bufio.NewReaderSize(c, 64)
	consumed := func() int64 { return c.n - int64(br.Buffered()) }
	head, err := readHead(br)
	if err != nil {
		return consumed(), false, err
	}
	off := consumed()
	closeDelimited, err = readBody(br, head, budget, func() int64 { return consumed() - off })
	return consumed(), closeDelimited, err
}

func TestFraming(t *testing.T) {
	tests := []struct {
		name   string
		msg    string
		extra  string // bytes after the message (next response)
		budget int64
		close  bool
		err    error
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "HTTP/1.1 200", -1, false, nil},
		{"chunked with extension and trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5;x=y\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n", "junk", -1, false, nil},
		{"interim responses", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: <a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", "x", -1, false, nil},
		{"304 has no body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n", "HTTP", -1, false, nil},
		{"bare LF", "HTTP/1.0 200 OK\nContent-Length: 2\n\nok", "", -1, false, nil},
		{"close-delimited", "HTTP/1.0 200 OK\r\n\r\nall of it", "", -1, true, nil},
		{"over budget", "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n0123456789", "0123456789", 10, false, errTooBig},
		{"chunked over budget", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567", "\r\n8\r\n89abcdef\r\n0\r\n\r\n", 10, false, errTooBig},
		{"exactly the budget, close-delimited", "HTTP/1.1 200 OK\r\n\r\n0123456789", "", 10, true, nil},
		{"cut body", "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nshort", "", -1, false, io.ErrUnexpectedEOF},
		{"cut chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort", "", -1, false, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		end, cd, err := frame([]byte(tt.msg+tt.extra), tt.budget)
		if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
			t.Errorf("%s: err %v, want %v", tt.name, err, tt.err)
			continue
		}
		if cd != tt.close {
			t.Errorf("%s: close-delimited %v", tt.name, cd)
		}
		if tt.err == nil && end != int64(len(tt.msg)) {
			t.Errorf("%s: message took %d bytes, want %d", tt.name, end, len(tt.msg))
		}
	}
	for _, bad := range []string{"", "GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Le", "SSH-2.0-OpenSSH\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", strings.Repeat("HTTP/1.1 102 Processing\r\n\r\n", 40)} {
		if _, _, err := frame([]byte(bad), -1); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzFraming(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), int64(-1))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"), int64(2))
	f.Add([]byte("HTTP/1.0 200 OK\n\nbody"), int64(10))
	f.Fuzz(func(t *testing.T, b []byte, budget int64) {
		end, _, err := frame(b, budget)
		if end < 0 || end > int64(len(b)) {
			t.Fatalf("consumed %d of %d bytes", end, len(b))
		}
		if err == nil && budget >= 0 && end > int64(len(b)) {
			t.Fatal("read past the input")
		}
	})
}

func FuzzLoadCookies(f *testing.F) {
	if b, err := os.ReadFile("../../testdata/crawl/cookies.txt"); err == nil {
		f.Add(string(b))
	}
	f.Add("#HttpOnly_.a.b\tTRUE\t/\tTRUE\t0\tn\tv\n")
	f.Fuzz(func(t *testing.T, s string) {
		LoadCookies(NewJar(), strings.NewReader(s), "fuzz.txt")
	})
}
