package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// hugeLine is the length of the enormous header lines (no newline).
const hugeLine = 100 << 20

// link puts the shared input src into in/ under its own name.
func (c *caseDir) link(t testing.TB, src string) string {
	t.Helper()
	p := filepath.Join(c.in, filepath.Base(src))
	if err := os.Link(src, p); err != nil {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		return c.put(t, filepath.Base(src), b)
	}
	return p
}

// crafted is one hand-made hostile input.
type crafted struct {
	name string                // file name (its extension selects the container)
	gen  func(io.Writer) error // writes the uncompressed bytes, or the file itself when raw
	raw  bool                  // gen writes the file as is (compressed by hand)
	// what the tools must do
	notice bool  // a problem must be reported (exit 1 or a warning)
	at     int64 // offset of the record at fault (-1: any)
	// known: a reported defect makes the WACZ written fail validation.
	known string
	// rssMB overrides craftedRSS.
	rssMB int64
}

// craftedRSS is the peak RSS allowed on crafted inputs, in MiB: well under
// their 100 MiB lines and 1 GiB bombs, so that buffering one of them fails.
const craftedRSS = 128

func (cr crafted) rss() int64 {
	if cr.rssMB > 0 {
		return cr.rssMB
	}
	return craftedRSS
}

// path writes the input once (compressing per its extension) and returns it.
func (cr crafted) path(t testing.TB) string {
	return shared(t, cr.name, func(t testing.TB, p string) {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		bw := bufio.NewWriterSize(f, 1<<20)
		var w io.Writer = bw
		var closer io.Closer
		switch {
		case cr.raw:
		case strings.HasSuffix(cr.name, ".gz"):
			gz, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
			w, closer = gz, gz
		case strings.HasSuffix(cr.name, ".zst"):
			zw, _ := zstd.NewWriter(bw, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
			w, closer = zw, zw
		}
		if err := cr.gen(w); err != nil {
			t.Fatal(err)
		}
		if closer != nil {
			if err := closer.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
	})
}

func str(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// repeat writes s, then n copies of unit, then tail.
func repeat(s, unit string, n int, tail string) func(io.Writer) error {
	return func(w io.Writer) error {
		io.WriteString(w, s)
		u := []byte(strings.Repeat(unit, max(1, (64<<10)/len(unit))))
		per := len(u) / len(unit)
		for i := 0; i < n; i += per {
			k := min(per, n-i)
			if _, err := w.Write(u[:k*len(unit)]); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, tail)
		return err
	}
}

func concat(parts ...func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		for _, p := range parts {
			if err := p(w); err != nil {
				return err
			}
		}
		return nil
	}
}

// ---- ARC ----

const arcLines = "1 0 Hostile\nURL IP-address Archive-date Content-type Archive-length\n"

var arcHead = fmt.Sprintf("filedesc://hostile.arc 0.0.0.0 20200101000000 text/plain %d\n%s\n", len(arcLines), arcLines)

const arcBody = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello\n"

func arcRec(length string) string {
	return fmt.Sprintf("http://a.test/ 1.2.3.4 20200101000001 text/plain %s\n%s\n", length, arcBody)
}

// gzipMembers writes each part as its own gzip member.
func gzipMembers(parts ...string) func(io.Writer) error {
	return func(w io.Writer) error {
		for _, p := range parts {
			gz := gzip.NewWriter(w)
			io.WriteString(gz, p)
			if err := gz.Close(); err != nil {
				return err
			}
		}
		return nil
	}
}

func arcCrafted() []crafted {
	head := int64(len(arcHead))
	return []crafted{
		{name: "len-9e18.arc", gen: str(arcHead + arcRec("9000000000000000000")), notice: true, at: head},
		{name: "len-overflow.arc", gen: str(arcHead + arcRec("99999999999999999999999")), notice: true, at: head},
		{name: "len-negative.arc", gen: str(arcHead + arcRec("-5")), notice: true, at: head},
		{name: "len-beyond-file.arc", gen: str(arcHead + arcRec("1000000")), notice: true, at: head},
		{name: "len-beyond-file.arc.gz", raw: true, gen: gzipMembers(arcHead, arcRec("1000000")), notice: true, at: -1},
		{name: "huge-url-line.arc", gen: repeat(arcHead+"http://", "a", hugeLine, ""), notice: true, at: head},
		{name: "huge-url-line.arc.gz", gen: repeat(arcHead+"http://", "a", hugeLine, ""), notice: true, at: -1},
		{name: "huge-version-block.arc", gen: repeat("filedesc://x.arc 0.0.0.0 20200101000000 text/plain 200\n1 0 X\n", "a", hugeLine, ""), notice: true, at: 255}, // garbage after the 200-byte block
		{name: "gzip-bomb.arc.gz", raw: true, notice: true, at: -1, gen: func(w io.Writer) error {
			gzipMembers(arcHead)(w)
			return writeGzipBomb(w, nil, bombSize(), nil)
		}},
		{name: "gzip-bomb-in-record.arc.gz", raw: true, notice: true, at: -1, gen: func(w io.Writer) error {
			gzipMembers(arcHead)(w)
			return writeGzipBomb(w, []byte("http://a.test/ 1.2.3.4 20200101000001 text/plain 10\n0123456789\n"), bombSize(), nil)
		}},
	}
}

// TestArc2warcCrafted: lying lengths, enormous lines and gzip bombs in ARC
// input. arc2warc -o must report the damage (naming the file and the
// record's offset), stay within the time and memory limits, and leave
// either nothing or a WARC that reads back.
func TestArc2warcCrafted(t *testing.T) {
	a2w := bin(t, "arc2warc")
	for _, cr := range arcCrafted() {
		t.Run(cr.name, func(t *testing.T) {
			acquire(t)
			c := newCase(t)
			in := c.link(t, cr.path(t))
			c.freeze(t)
			out := filepath.Join(c.out, "x.warc.gz")
			res := c.cmd(a2w, "-o", out, in).exec(t)
			e := expect{name: cr.name, offset: true, mustNotice: cr.notice, at: max(cr.at, 0), atZero: cr.at == 0}
			if !check(t, cr.name, res, e) || !c.contained(t, cr.name, res) || !c.atomicOut(t, cr.name, res, "x.warc.gz", a2wSalvage) {
				return
			}
			if len(c.outFiles(t)) > 0 {
				if _, err := readFileValid(out, false); err != nil {
					t.Errorf("%s: output does not read back: %v\n  %s", cr.name, err, res)
				}
			}
		})
	}
}

// ---- WARC ----

func warcRec(typ, uri, ctype, length, block string) string {
	return "WARC/1.1\r\nWARC-Type: " + typ + "\r\nWARC-Record-ID: <urn:uuid:6f1a5bd2-7a4b-4f30-9a49-" + fmt.Sprintf("%012x", len(uri)+len(block)) +
		">\r\nWARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: " + uri + "\r\nContent-Type: " + ctype + "\r\nContent-Length: " + length + "\r\n\r\n" + block + "\r\n\r\n"
}

var warcInfo = warcRec("warcinfo", "", "application/warc-fields", "17", "software: hostile")

func warcResource(length string) string {
	return warcRec("resource", "http://a.test/", "text/plain", length, "hello")
}

// httpResponse wraps an HTTP response (head + body) in a response record
// with a truthful Content-Length.
func httpResponse(head, body string) string {
	blk := head + "\r\n" + body
	return warcRec("response", "http://a.test/page", "application/http; msgtype=response", fmt.Sprint(len(blk)), blk)
}

func warcCrafted() []crafted {
	at := int64(len(warcInfo))
	gzBomb := func(inner string) []byte {
		var b bytes.Buffer
		writeGzipBomb(&b, []byte(inner), bombSize()/16, nil)
		return b.Bytes()
	}
	return []crafted{
		{name: "len-9e18.warc", gen: str(warcInfo + warcResource("9000000000000000000")), notice: true, at: at},
		{name: "len-overflow.warc", gen: str(warcInfo + warcResource("99999999999999999999999")), notice: true, at: at},
		{name: "len-negative.warc", gen: str(warcInfo + warcResource("-1")), notice: true, at: at},
		{name: "len-abc.warc", gen: str(warcInfo + warcResource("abc")), notice: true, at: at},
		{name: "len-9e18.warc.gz", raw: true, gen: gzipMembers(warcInfo, warcResource("9000000000000000000")), notice: true, at: -1},
		{name: "huge-field-line.warc", gen: repeat(warcInfo+"WARC/1.1\r\nWARC-Type: resource\r\nX-Long: ", "a", hugeLine, ""), notice: true, at: at},
		{name: "huge-field-line.warc.gz", gen: repeat(warcInfo+"WARC/1.1\r\nWARC-Type: resource\r\nX-Long: ", "a", hugeLine, ""), notice: true, at: -1},
		{name: "huge-field-line.warc.zst", gen: repeat(warcInfo+"WARC/1.1\r\nWARC-Type: resource\r\nX-Long: ", "a", hugeLine, ""), notice: true, at: -1},
		{name: "huge-version-line.warc", gen: repeat("WARC/1.1", "1", hugeLine, ""), notice: true, at: 0},
		{name: "many-fields.warc", gen: repeat(warcInfo+"WARC/1.1\r\nWARC-Type: resource\r\n", "X-A: b\r\n", hugeLine/8, "\r\n"), notice: true, at: at},
		{name: "gzip-bomb.warc.gz", raw: true, notice: true, at: -1, gen: func(w io.Writer) error {
			gzipMembers(warcInfo)(w)
			return writeGzipBomb(w, nil, bombSize(), nil)
		}},
		{name: "zstd-bomb.warc.zst", raw: true, notice: true, at: -1, gen: func(w io.Writer) error {
			zw, _ := zstd.NewWriter(nil)
			w.Write(zw.EncodeAll([]byte(warcInfo), nil))
			return writeZstdBomb(w, nil, bombSize(), nil)
		}},
		{name: "zstd-huge-window.warc.zst", raw: true, notice: true, at: -1, gen: func(w io.Writer) error {
			// window descriptor 0xF8: 2^41 bytes (2 TiB) window, one raw
			// block holding a record.
			rec := []byte(warcInfo)
			h := uint32(len(rec))<<3 | 1
			b := append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xF8, byte(h), byte(h >> 8), byte(h >> 16)}, rec...)
			_, err := w.Write(b)
			return err
		}},
		// HTTP payloads that lie inside well-formed records.
		{name: "http-chunked-endless.warc", at: -1, gen: func(w io.Writer) error {
			body := strings.Repeat("1\r\na\r\n", 4<<20)
			_, err := io.WriteString(w, warcInfo+httpResponse("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n", body))
			return err
		}},
		{name: "http-chunk-size-huge.warc", at: -1, gen: str(warcInfo + httpResponse("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n", "ffffffffffffffff\r\n<html>hi</html>\r\n0\r\n\r\n"))},
		{name: "http-content-length-9e18.warc", at: -1, gen: str(warcInfo + httpResponse("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9000000000000000000\r\n", "<html><title>x</title></html>"))},
		{name: "http-huge-head-line.warc", at: -1, gen: func(w io.Writer) error {
			_, err := io.WriteString(w, warcInfo+httpResponse("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Long: "+strings.Repeat("a", 32<<20)+"\r\n", "<html></html>"))
			return err
		}},
		{name: "http-gzip-bomb.warc", at: -1, gen: func(w io.Writer) error {
			body := gzBomb("<html><head><title>bomb</title></head><body>")
			_, err := io.WriteString(w, warcInfo+httpResponse("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n", string(body)))
			return err
		}},
	}
}

// TestWaczpackCrafted: lying lengths, enormous lines, header floods,
// bombs (gzip and zstd containers, zstd windows, gzip content coding) and
// lying HTTP payloads through waczpack index, create (strict: fails on a
// damaged record, leaving nothing, or repairs it with a warning) and
// create --text (page text
// extraction decodes the payload).
func TestWaczpackCrafted(t *testing.T) {
	wp := bin(t, "waczpack")
	for _, cr := range warcCrafted() {
		t.Run(cr.name, func(t *testing.T) {
			acquire(t)
			c := newCase(t)
			in := c.link(t, cr.path(t))
			c.freeze(t)
			e := expect{name: cr.name, offset: true, mustNotice: cr.notice, at: max(cr.at, 0), atZero: cr.at == 0, rssMB: cr.rss()}
			res := c.cmd(wp, "index", in).exec(t)
			if !check(t, "index "+cr.name, res, e) || !c.contained(t, "index "+cr.name, res) {
				return
			}
			// create may repair what it can (exit 0 with a warning).
			for _, extra := range [][]string{nil, {"--text"}} {
				out := filepath.Join(c.out, "x.wacz")
				args := append(append([]string{"create", "-o", out}, extra...), in)
				res = c.cmd(wp, args...).exec(t)
				what := strings.Join(args[:len(args)-1], " ") + " " + cr.name
				if !check(t, what, res, e) || !c.contained(t, what, res) || !c.atomicOut(t, what, res, "x.wacz", "") {
					return
				}
				if res.code == 0 {
					if v := c.cmd(wp, "validate", out).exec(t); v.code != 0 && cr.known != "" && extra != nil {
						t.Skip(cr.known)
					} else if v.code != 0 {
						t.Errorf("%s: the WACZ does not validate\n  %s", what, v)
					}
					os.Remove(out)
				}
			}
		})
	}
}
