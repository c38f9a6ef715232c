package httpmsg

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

func TestReadHeadResponse(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\nX-Folded: a\r\n  b\r\nbogus line\r\nContent-Length: 5\r\n\r\nhello"
	br := bufio.NewReader(strings.NewReader(in))
	h, err := ReadHead(br)
	if err != nil {
		t.Fatal(err)
	}
	if h.Request || h.StatusCode != 200 || h.Reason != "OK" || h.Proto != "HTTP/1.1" || !h.Complete {
		t.Fatalf("bad head %+v", h)
	}
	if h.MIME() != "text/html" || h.Get("x-folded") != "a b" || h.ContentLength() != 5 {
		t.Fatalf("fields: %q %q %d", h.MIME(), h.Get("x-folded"), h.ContentLength())
	}
	if h.Len != int64(strings.Index(in, "hello")) {
		t.Fatalf("Len %d want %d", h.Len, strings.Index(in, "hello"))
	}
	rest, _ := io.ReadAll(br)
	if string(rest) != "hello" {
		t.Fatalf("rest %q", rest)
	}
}

func TestReadHeadVariants(t *testing.T) {
	for _, tc := range []struct {
		in       string
		req      bool
		code     int
		method   string
		target   string
		complete bool
		err      bool
	}{
		{in: "HTTP/1.0 404\n\n", code: 404, complete: true},
		{in: "HTTP/1.1 301 Moved Permanently\nLocation: /x\n\n", code: 301, complete: true},
		{in: "GET /a%20b?q=1 HTTP/1.1\r\nHost: x\r\n\r\n", req: true, method: "GET", target: "/a%20b?q=1", complete: true},
		{in: "POST /with space HTTP/1.0\r\n\r\n", req: true, method: "POST", target: "/with space", complete: true},
		{in: "HTTP/1.1 200 OK\r\nA: b\r\n", code: 200},
		{in: "<html>", err: true},
		{in: "", err: true},
		{in: "HTTP/1.1 2000 OK\r\n\r\n", err: true},
	} {
		h, err := ParseHead([]byte(tc.in))
		if tc.err {
			if err == nil {
				t.Errorf("%q: want error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if h.Request != tc.req || h.StatusCode != tc.code || h.Method != tc.method || h.Target != tc.target || h.Complete != tc.complete {
			t.Errorf("%q: got %+v", tc.in, h)
		}
	}
}

func TestHeadTooLarge(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", MaxHeadSize) + "\r\n\r\n"
	if _, err := ParseHead([]byte(in)); err == nil {
		t.Fatal("huge head accepted")
	}
}

func TestIsStatusLine(t *testing.T) {
	for in, want := range map[string]bool{
		"HTTP/1.1 200 OK": true, "HTTP/1.0 302\r\n": true, "HTTP/2 200": true,
		"HTTP/1.1 20": false, "HTTP/1.1 abc": false, "http/1.1 200": false, "GET / HTTP/1.1": false,
	} {
		if got := IsStatusLine([]byte(in)); got != want {
			t.Errorf("%q: %v", in, got)
		}
	}
}

func TestChunked(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		err     error
		done    bool
	}{
		{in: "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", out: "hello world", done: true},
		{in: "5;ext=1\nhello\n0\nTrailer: x\n\n", out: "hello", done: true},
		{in: "A \r\n0123456789\r\n0\r\n\r\nextra", out: "0123456789", done: true},
		{in: "5\r\nhel", out: "hel", err: io.ErrUnexpectedEOF},
		// the first chunk-size line is not one: the body as it is (warcio)
		{in: "zz\r\nhello", out: "zz\r\nhello"},
		{in: "<!doctype html>\n<title>x</title>", out: "<!doctype html>\n<title>x</title>"},
		{in: "\r\n  Hello\r\n", out: "\r\n  Hello\r\n"},
		{in: "5x\r\nhello", out: "5x\r\nhello"},
		{in: "5\rx", out: "5\rx"},
		{in: "80000001\r\nbig", out: "80000001\r\nbig"}, // over 2^31
		{in: "", err: io.ErrUnexpectedEOF},
		{in: "5", err: io.ErrUnexpectedEOF},
		// a body that breaks after a well-formed first chunk stays an error
		{in: "2\r\nhello\r\n", out: "he", err: ErrBadChunk},
		{in: "5\r\nhello\r\nzz\r\n", out: "hello", err: ErrBadChunk},
		{in: "5\r\nhello\r\n80000001\r\nbig", out: "hellobig", err: io.ErrUnexpectedEOF}, // later sizes: no 2^31 bound
		{in: strings.Repeat(" ", maxFirstLine) + "zz", err: ErrBadChunk},                 // no fallback past maxFirstLine
	} {
		got, err := io.ReadAll(NewChunkedReader(strings.NewReader(tc.in)))
		if string(got) != tc.out || err != tc.err {
			t.Errorf("%q: got %q, %v; want %q, %v", tc.in, got, err, tc.out, tc.err)
		}
		var out bytes.Buffer
		d := Dechunker{W: &out}
		// Push one byte at a time: state must carry across writes.
		for i := 0; i < len(tc.in); i++ {
			d.Write([]byte{tc.in[i]})
		}
		if out.String() != tc.out || d.Done() != tc.done {
			t.Errorf("push %q: got %q done=%v", tc.in, out.String(), d.Done())
		}
		raw := tc.err == nil && !tc.done
		if d.Raw() != raw || (raw && (d.Consumed != int64(len(tc.in)) || d.Decoded != int64(len(tc.in)))) {
			t.Errorf("push %q: Raw %v, want %v; consumed %d decoded %d", tc.in, d.Raw(), raw, d.Consumed, d.Decoded)
		}
		// in one write too
		out.Reset()
		d = Dechunker{W: &out}
		d.Write([]byte(tc.in))
		if out.String() != tc.out || d.Done() != tc.done || d.Raw() != raw {
			t.Errorf("one write %q: got %q done=%v raw=%v", tc.in, out.String(), d.Done(), d.Raw())
		}
	}
}

func TestDecoders(t *testing.T) {
	plain := strings.Repeat("payload bytes ", 100)
	enc := map[string][]byte{}
	var b bytes.Buffer
	gw := gzip.NewWriter(&b)
	gw.Write([]byte(plain))
	gw.Close()
	enc["gzip"] = append([]byte(nil), b.Bytes()...)
	b.Reset()
	zw := zlib.NewWriter(&b)
	zw.Write([]byte(plain))
	zw.Close()
	enc["deflate"] = append([]byte(nil), b.Bytes()...)
	b.Reset()
	bw := brotli.NewWriter(&b)
	bw.Write([]byte(plain))
	bw.Close()
	enc["br"] = append([]byte(nil), b.Bytes()...)
	ze, _ := zstd.NewWriter(nil)
	enc["zstd"] = ze.EncodeAll([]byte(plain), nil)
	for coding, data := range enc {
		r, err := Decoder(bytes.NewReader(data), coding)
		if err != nil {
			t.Fatalf("%s: %v", coding, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || string(got) != plain {
			t.Errorf("%s: %v, %d bytes", coding, err, len(got))
		}
	}
	if _, err := Decoder(strings.NewReader(""), "compress"); err == nil {
		t.Error("unknown coding accepted")
	}
}

func FuzzReadHead(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nA: b\r\n\r\n"))
	f.Add([]byte("GET / HTTP/1.0\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHead(b)
		if err == nil && h.Len > int64(len(b)) {
			t.Fatalf("Len %d > input %d", h.Len, len(b))
		}
	})
}

func FuzzChunked(f *testing.F) {
	f.Add([]byte("5\r\nhello\r\n0\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _ := io.ReadAll(NewChunkedReader(bytes.NewReader(b)))
		if len(got) > len(b) {
			t.Fatalf("decoded more than input")
		}
	})
}
