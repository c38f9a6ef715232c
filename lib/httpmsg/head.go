package httpmsg

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/arcport/arcport/lib/record"
)

// MaxHeadSize bounds the size of a head ReadHead accepts.
const MaxHeadSize = 1 << 20

// ErrNotHTTP is returned when the bytes do not start with an HTTP/1.x
// request or status line.
var ErrNotHTTP = errors.New("not an HTTP message")

// ErrHeadTooLarge is returned for heads over the size limit.
var ErrHeadTooLarge = errors.New("HTTP head too large")

// Head is a parsed HTTP request or response head.
type Head struct {
	Request bool   // true for a request
	Method  string // request method
	Target  string // request target as written
	Proto   string // "HTTP/1.1"
	// StatusCode and Reason for a response; Status is the code as written
	// (three digits normally).
	StatusCode int
	Status     string
	Reason     string
	Header     record.Header
	// Len is the number of bytes the head took, including the blank line.
	Len int64
	// Complete is false when the input ended before the blank line.
	Complete bool
}

// IsStatusLine reports whether b starts with an HTTP status line ("HTTP/"
// followed by a version and a three-digit code).
func IsStatusLine(b []byte) bool {
	if !bytes.HasPrefix(b, []byte("HTTP/")) {
		return false
	}
	rest := b[5:]
	sp := bytes.IndexByte(rest, ' ')
	if sp < 1 || sp > 4 {
		return false
	}
	code := bytes.TrimLeft(rest[sp:], " ")
	if len(code) < 3 {
		return false
	}
	for _, c := range code[:3] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(code) == 3 || code[3] == ' ' || code[3] == '\r' || code[3] == '\n' || code[3] == '\t'
}

// Get returns a header value (first occurrence, case-insensitive).
func (h *Head) Get(name string) string { return h.Header.Get(name) }

// ContentType returns the Content-Type value as written.
func (h *Head) ContentType() string { return h.Header.Get("Content-Type") }

// MIME returns the media type of Content-Type: lower case, without
// parameters, or "" when absent.
func (h *Head) MIME() string { return MediaType(h.ContentType()) }

// MediaType strips parameters and spaces from a Content-Type value and
// lower-cases it.
func MediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// Chunked reports whether the message uses the chunked transfer coding.
func (h *Head) Chunked() bool {
	for _, v := range h.Header.Values("Transfer-Encoding") {
		for _, p := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(p), "chunked") {
				return true
			}
		}
	}
	return false
}

// ContentEncoding returns the Content-Encoding codings, lower case, in the
// order they were applied.
func (h *Head) ContentEncoding() []string {
	var out []string
	for _, v := range h.Header.Values("Content-Encoding") {
		for _, p := range strings.Split(v, ",") {
			if p = strings.ToLower(strings.TrimSpace(p)); p != "" && p != "identity" {
				out = append(out, p)
			}
		}
	}
	return out
}

// ContentLength returns the Content-Length header, or -1.
func (h *Head) ContentLength() int64 {
	v := strings.TrimSpace(h.Header.Get("Content-Length"))
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// ReadHead reads an HTTP request or response head from br, up to and
// including the blank line that ends it. Lines may end in CRLF or bare LF;
// continuation lines are folded into the previous field. A head cut short by
// the end of input is returned with Complete false and no error.
func ReadHead(br *bufio.Reader) (*Head, error) {
	first, n, err := readLine(br, MaxHeadSize)
	if err != nil {
		if err == io.EOF && n == 0 {
			return nil, ErrNotHTTP
		}
		if err != io.EOF {
			return nil, err
		}
	}
	h := &Head{Len: int64(n)}
	if err := h.parseStartLine(first); err != nil {
		return nil, err
	}
	for {
		line, n, err := readLine(br, MaxHeadSize-int(h.Len))
		h.Len += int64(n)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if n > 0 && len(line) == 0 {
			h.Complete = true
			return h, nil
		}
		if len(line) > 0 {
			if (line[0] == ' ' || line[0] == '\t') && len(h.Header) > 0 {
				last := &h.Header[len(h.Header)-1]
				last.Value += " " + strings.TrimSpace(string(line))
			} else if name, value, ok := strings.Cut(string(line), ":"); ok {
				h.Header = append(h.Header, record.Field{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
			}
			// A line without a colon is dropped, as browsers do.
		}
		if err == io.EOF {
			return h, nil
		}
	}
}

// ParseHead parses a head held in memory (see ReadHead).
func ParseHead(b []byte) (*Head, error) {
	br := headReaders.Get().(*bufio.Reader)
	br.Reset(bytes.NewReader(b))
	h, err := ReadHead(br)
	br.Reset(nil)
	headReaders.Put(br)
	return h, err
}

// headReaders are ParseHead's readers (page detection parses a head per
// record).
var headReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

func (h *Head) parseStartLine(line []byte) error {
	s := string(line)
	if IsStatusLine(line) {
		proto, rest, _ := strings.Cut(s, " ")
		rest = strings.TrimLeft(rest, " ")
		h.Proto = proto
		h.Status = rest[:3]
		h.StatusCode, _ = strconv.Atoi(h.Status)
		h.Reason = strings.TrimSpace(rest[3:])
		return nil
	}
	parts := strings.Fields(s)
	if len(parts) >= 2 && isToken(parts[0]) && (len(parts) == 2 || strings.HasPrefix(parts[len(parts)-1], "HTTP/")) {
		h.Request = true
		h.Method = parts[0]
		if len(parts) == 2 {
			h.Target = parts[1]
			h.Proto = "HTTP/0.9"
		} else {
			h.Target = strings.Join(parts[1:len(parts)-1], " ")
			h.Proto = parts[len(parts)-1]
		}
		return nil
	}
	return ErrNotHTTP
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// readLine reads one line, returning it without its line ending and the
// number of bytes consumed. It fails with ErrHeadTooLarge past max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, int, error) {
	var line []byte
	n := 0
	for {
		frag, err := br.ReadSlice('\n')
		n += len(frag)
		if n > max {
			return nil, n, fmt.Errorf("%w (over %d bytes)", ErrHeadTooLarge, MaxHeadSize)
		}
		if err == bufio.ErrBufferFull {
			line = append(line, frag...)
			continue
		}
		if line != nil {
			line = append(line, frag...)
		} else {
			line = frag
		}
		l := len(line)
		if l > 0 && line[l-1] == '\n' {
			l--
			if l > 0 && line[l-1] == '\r' {
				l--
			}
		}
		return line[:l], n, err
	}
}
