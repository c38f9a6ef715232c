package waczpack

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gzMembers compresses each part as a gzip member of its own.
func gzMembers(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(p))
		zw.Close()
	}
	return b.Bytes()
}

// gzLen is the size of part as a gzip member of its own.
func gzLen(part string) int { return len(gzMembers(part)) }

func warcRec(n int, body string, cl string) string {
	return fmt.Sprintf("WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%08d-1111-1111-1111-111111111111>\r\nWARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://r%d.test/\r\nContent-Type: text/plain\r\nContent-Length: %s\r\n\r\n%s\r\n\r\n", n, n, cl, body)
}

// noEnd is a WARC header that lacks its blank line (CRLF CRLF).
func noEnd(n int) string {
	return strings.SplitAfter(warcRec(n, "", "5"), "Content-Length: 5\r\n")[0]
}

const arcFDBlock = "1 0 test\nURL IP-address Archive-date Content-type Archive-length\n\n"

var arcFD = fmt.Sprintf("filedesc://x.arc 0.0.0.0 20200101000000 text/plain %d\n", len(arcFDBlock)) + arcFDBlock

func arcRec(n int, length string) string {
	body := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello"
	if length == "" {
		length = fmt.Sprint(len(body))
	}
	return fmt.Sprintf("http://r%d.test/ 1.2.3.4 20200101000000 text/plain %s\n%s\n", n, length, body)
}

// damagedInputs are WARC and ARC files (plain and gzip per record) with one
// damaged record at a known offset: a header without its end, and
// declared lengths that are impossible (negative, past the end).
func damagedInputs() []struct {
	name string
	data []byte
	off  int
	msg  string
} {
	type in = struct {
		name string
		data []byte
		off  int
		msg  string
	}
	r1, r3 := warcRec(1, "hello", "5"), warcRec(3, "hello", "5")
	a1, a3 := arcRec(1, ""), arcRec(3, "")
	return []in{
		{"noend-mid.warc", []byte(r1 + noEnd(2) + r3), len(r1), "truncated WARC header (208 bytes, no blank line): the next record starts inside it"},
		{"noend-eof.warc", []byte(r1 + noEnd(2)), len(r1), "truncated WARC header (208 bytes, no blank line)"},
		{"noend-mid.warc.gz", gzMembers(r1, noEnd(2), r3), gzLen(r1), "truncated WARC header (208 bytes, no blank line)"},
		{"neg.warc", []byte(r1 + warcRec(2, "hello", "-5") + r3), len(r1), `bad Content-Length "-5": block taken up to the next record`},
		{"neg.warc.gz", gzMembers(r1, warcRec(2, "hello", "-5"), r3), gzLen(r1), `bad Content-Length "-5": block taken up to the next record`},
		{"past.warc", []byte(r1 + warcRec(2, "hello", "500")), len(r1), "truncated block: 9 of 500 bytes (Content-Length)"},
		{"past.warc.gz", gzMembers(r1, warcRec(2, "hello", "500")), gzLen(r1), "truncated block: 9 of 500 bytes (Content-Length)"},
		{"neg.arc", []byte(arcFD + a1 + arcRec(2, "-5") + a3), len(arcFD + a1), `bad length "-5": block taken up to the next record (50 bytes)`},
		{"neg.arc.gz", gzMembers(arcFD, a1, arcRec(2, "-5"), a3), gzLen(arcFD) + gzLen(a1), `bad length "-5": block taken up to the next record (50 bytes)`},
		{"past.arc", []byte(arcFD + a1 + arcRec(2, "100000")), len(arcFD + a1), "block cut short by the end of the file: 50 of 100000 bytes"},
		{"past.arc.gz", gzMembers(arcFD, a1, arcRec(2, "100000")), gzLen(arcFD) + gzLen(a1), "block cut short by the end of the file: 50 of 100000 bytes"},
	}
}

// TestDamagedRecordCLI: create and index give the same verdict on a
// damaged record - exit 1, one line naming the file and the record's
// offset - and create leaves no WACZ. create exited 0 with a warning on a
// header without CRLF CRLF followed by another record, and on impossible
// lengths (negative Content-Length, ARC lengths negative or past the end
// of the file), where index exited 1.
func TestDamagedRecordCLI(t *testing.T) {
	for _, c := range damagedInputs() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, c.name)
			if err := os.WriteFile(in, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("waczpack: %s: record at offset %d: %s\n", in, c.off, c.msg)
			out := filepath.Join(dir, "out.wacz")
			_, se, code := run(t, nil, "create", "-o", out, in)
			if code != 1 || se != want {
				t.Errorf("create: exit %d, stderr %q; want exit 1, %q", code, se, want)
			}
			if files := dirFiles(t, dir); len(files) != 1 {
				t.Errorf("create left %v", files)
			}
			_, se, code = run(t, nil, "index", in)
			if code != 1 || se != want {
				t.Errorf("index: exit %d, stderr %q; want exit 1, %q", code, se, want)
			}
		})
	}
}
