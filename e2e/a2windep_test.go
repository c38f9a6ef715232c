package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http/httputil"
	"os"
	"strconv"
	"strings"
	"testing"
)

// This file reads WARC and ARC files the plain way their specs describe
// them, with the standard library only (no lib/warc, lib/arc or
// lib/httpmsg), so that the arc2warc tests compare the converter's output
// with values that do not come from the code under test: the ARC's own
// declared lengths and digests computed here.

// ciOn reports whether the tests run under CI (CI=true, 1, yes...), as
// needPeer and lib/internal/peertest decide it.
func ciOn() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v != "" && v != "0" && v != "false"
}

// indepWARC is one WARC record as read by indepReadWARC.
type indepWARC struct {
	off    int64
	fields map[string]string // lower-cased names; the first value of each
	block  []byte
}

func (r indepWARC) get(name string) string { return r.fields[strings.ToLower(name)] }

// indepReadWARC reads the record at off in data (a plain WARC, or one gzip
// member per record) and returns it with the offset of the next one.
func indepReadWARC(t testing.TB, data []byte, off int64) (indepWARC, int64) {
	t.Helper()
	src := bytes.NewReader(data[off:])
	var r io.Reader = src
	gz := len(data) > int(off)+1 && data[off] == 0x1f && data[off+1] == 0x8b
	var zr *gzip.Reader
	if gz {
		var err error
		if zr, err = gzip.NewReader(src); err != nil { // src is a ByteReader: read to the member's end exactly
			t.Fatalf("offset %d: %v", off, err)
		}
		zr.Multistream(false)
		r = zr
	}
	br := bufio.NewReader(r)
	rec := indepWARC{off: off, fields: map[string]string{}}
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "WARC/1.") {
		t.Fatalf("offset %d: no WARC record: %q %v", off, line, err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("offset %d: WARC header: %v", off, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("offset %d: header line %q", off, line)
		}
		if k := strings.ToLower(name); rec.fields[k] == "" {
			rec.fields[k] = strings.TrimSpace(value)
		}
	}
	n, err := strconv.ParseInt(rec.get("Content-Length"), 10, 64)
	if err != nil || n < 0 {
		t.Fatalf("offset %d: Content-Length %q", off, rec.get("Content-Length"))
	}
	rec.block = make([]byte, n)
	if _, err := io.ReadFull(br, rec.block); err != nil {
		t.Fatalf("offset %d: block of %d bytes: %v", off, n, err)
	}
	var end [4]byte
	if _, err := io.ReadFull(br, end[:]); err != nil || string(end[:]) != "\r\n\r\n" {
		t.Fatalf("offset %d: block not followed by CRLF CRLF: %q %v", off, end, err)
	}
	if !gz {
		return rec, off + int64(len(data[off:])) - int64(br.Buffered()) - int64(src.Len())
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("offset %d: more than one record in the gzip member", off)
	}
	return rec, int64(len(data) - src.Len())
}

// indepReadAllWARC reads every record of data.
func indepReadAllWARC(t testing.TB, data []byte) []indepWARC {
	t.Helper()
	var recs []indepWARC
	for off := int64(0); off < int64(len(data)); {
		var rec indepWARC
		rec, off = indepReadWARC(t, data, off)
		recs = append(recs, rec)
	}
	return recs
}

// indepPayload is the payload of an HTTP message as WARC 1.1 defines it:
// the entity body after the blank line ending the head, with the chunked
// transfer coding removed when the chunks decode (the body as stored when
// they do not).
func indepPayload(msg []byte) []byte {
	i, n := bytes.Index(msg, []byte("\r\n\r\n")), 4
	if j := bytes.Index(msg, []byte("\n\n")); j >= 0 && (i < 0 || j < i) {
		i, n = j, 2
	}
	if i < 0 {
		return nil
	}
	head, body := string(msg[:i]), msg[i+n:]
	for _, l := range strings.Split(head, "\n") {
		name, value, _ := strings.Cut(strings.TrimRight(l, "\r"), ":")
		if strings.EqualFold(strings.TrimSpace(name), "Transfer-Encoding") && strings.Contains(strings.ToLower(value), "chunked") {
			if de, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(body))); err == nil {
				return de
			}
		}
	}
	return body
}

// arcRecord is one record of an ARC file as its header line declares it.
type arcRecord struct {
	off                         int    // of the header line in the (uncompressed) ARC
	line                        string // the header line
	url, ip, date, ctype, lenTx string
	declared                    int // -1 when the length is not a number
	at                          int // where the block starts
}

// indepARCHeader parses the ARC header line starting at off: URL (which
// may hold spaces: the last four fields are IP, date, content type and
// length).
func indepARCHeader(t testing.TB, arc []byte, off int) arcRecord {
	t.Helper()
	end := bytes.IndexByte(arc[off:], '\n')
	if end < 0 {
		t.Fatalf("ARC offset %d: header line without end", off)
	}
	line := string(arc[off : off+end])
	f := strings.Fields(line)
	if len(f) < 5 {
		t.Fatalf("ARC offset %d: header line %q", off, line)
	}
	n := len(f)
	if !strings.Contains(f[0], ":") || strings.Trim(f[n-3], "0123456789") != "" {
		t.Fatalf("ARC offset %d: not a header line (URL, IP, date, type, length): %q", off, line)
	}
	r := arcRecord{off: off, line: line, url: strings.Join(f[:n-4], " "), ip: f[n-4], date: f[n-3], ctype: f[n-2], lenTx: f[n-1], declared: -1, at: off + end + 1}
	if v, err := strconv.Atoi(r.lenTx); err == nil && v >= 0 {
		r.declared = v
	}
	return r
}

// indepGunzip returns data uncompressed when it is gzip (every member).
func indepGunzip(t testing.TB, data []byte) []byte {
	t.Helper()
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// warcDate turns an ARC date (14 digits; longer ones are cut to 14) into
// a WARC-Date.
func warcDate(d string) string {
	if len(d) > 14 {
		d = d[:14]
	}
	if len(d) != 14 {
		return "?" + d
	}
	return fmt.Sprintf("%s-%s-%sT%s:%s:%sZ", d[0:4], d[4:6], d[6:8], d[8:10], d[10:12], d[12:14])
}

// checkAgainstARC checks a converted WARC (warcData) against the ARC it
// came from, both read here (indepReadAllWARC, indepARCHeader): the version
// block becomes a warcinfo and a metadata record holding the header line
// and the block; every other ARC record becomes one record with the ARC's
// URL (spaces escaped), IP address and date, whose block is the ARC's
// bytes right after the header line: exactly the declared length when it
// is a number that fits in the file, otherwise (a damaged record,
// salvaged) bytes of the ARC up to the next record or the end. Content-
// Length is the block's length; WARC-Block-Digest and WARC-Payload-Digest
// are the SHA-1 of the block and of the HTTP entity body (or the block,
// for a resource), computed here. It returns the number of records whose
// length was the declared one.
func checkAgainstARC(t testing.TB, name string, arcData, warcData []byte) (declaredOK int) {
	t.Helper()
	arc := indepGunzip(t, arcData)
	recs := indepReadAllWARC(t, warcData)
	ids := map[string]bool{}
	for _, r := range recs {
		if id := r.get("WARC-Record-ID"); id == "" || ids[id] {
			t.Errorf("%s: offset %d: record ID %q missing or repeated", name, r.off, id)
		} else {
			ids[id] = true
		}
		if r.get("WARC-Block-Digest") != a2wSHA1(r.block) {
			t.Errorf("%s: offset %d: WARC-Block-Digest %s, SHA-1 of the block %s", name, r.off, r.get("WARC-Block-Digest"), a2wSHA1(r.block))
		}
	}
	i, pos, warcinfo := 0, 0, ""
	next := func() indepWARC {
		t.Helper()
		if i >= len(recs) {
			t.Fatalf("%s: WARC ends after %d records, the ARC has more from offset %d", name, len(recs), pos)
		}
		i++
		return recs[i-1]
	}
	for pos < len(arc) {
		if arc[pos] == '\n' { // the newline after each record
			pos++
			continue
		}
		a := indepARCHeader(t, arc, pos)
		isFiledesc := strings.HasPrefix(a.url, "filedesc://")
		if warcinfo == "" && !isFiledesc { // no version block: a warcinfo is made up
			info := next()
			if info.get("WARC-Type") != "warcinfo" {
				t.Fatalf("%s: first record %s, want warcinfo", name, info.get("WARC-Type"))
			}
			warcinfo = info.get("WARC-Record-ID")
		}
		var w indepWARC
		var block []byte
		if isFiledesc {
			info := next()
			w = next()
			warcinfo = info.get("WARC-Record-ID")
			if info.get("WARC-Type") != "warcinfo" || w.get("WARC-Type") != "metadata" || w.get("WARC-Concurrent-To") != warcinfo || w.get("WARC-Target-URI") != a.url {
				t.Errorf("%s: version block at %d: %s + %s %q", name, pos, info.get("WARC-Type"), w.get("WARC-Type"), w.get("WARC-Target-URI"))
			}
			if !bytes.HasPrefix(w.block, []byte(a.line+"\n")) {
				t.Fatalf("%s: version block at %d: metadata block %.100q does not start with the header line", name, pos, w.block)
			}
			block = w.block[len(a.line)+1:]
		} else {
			w = next()
			block = w.block
			if got, want := w.get("WARC-Target-URI"), strings.ReplaceAll(a.url, " ", "%20"); got != want {
				t.Errorf("%s: ARC record at %d: WARC-Target-URI %q, want %q", name, pos, got, want)
			}
			if got := w.get("WARC-IP-Address"); got != a.ip {
				t.Errorf("%s: ARC record at %d: WARC-IP-Address %q, want %q", name, pos, got, a.ip)
			}
			if got, want := w.get("WARC-Date"), warcDate(a.date); got != want {
				t.Errorf("%s: ARC record at %d: WARC-Date %q, want %q", name, pos, got, want)
			}
			if got := w.get("WARC-Warcinfo-ID"); got != warcinfo {
				t.Errorf("%s: ARC record at %d: WARC-Warcinfo-ID %q, want %q", name, pos, got, warcinfo)
			}
			typ, ctype, payload := "resource", a.ctype, block
			if bytes.HasPrefix(block, []byte("HTTP/")) && (strings.HasPrefix(a.url, "http://") || strings.HasPrefix(a.url, "https://")) {
				typ, ctype, payload = "response", "application/http;msgtype=response", indepPayload(block)
			}
			if w.get("WARC-Type") != typ || w.get("Content-Type") != ctype {
				t.Errorf("%s: ARC record at %d: %s %q, want %s %q", name, pos, w.get("WARC-Type"), w.get("Content-Type"), typ, ctype)
			}
			if got, want := w.get("WARC-Payload-Digest"), a2wSHA1(payload); got != want {
				t.Errorf("%s: ARC record at %d: WARC-Payload-Digest %s, recomputed %s", name, pos, got, want)
			}
		}
		if a.declared >= 0 && a.at+a.declared <= len(arc) {
			if len(block) != a.declared {
				t.Errorf("%s: ARC record at %d declares %d bytes, the WARC block has %d", name, pos, a.declared, len(block))
			}
			declaredOK++
		}
		if a.at+len(block) > len(arc) || !bytes.Equal(arc[a.at:a.at+len(block)], block) {
			t.Fatalf("%s: ARC record at %d: the WARC block (%d bytes) is not the ARC's bytes after the header line", name, pos, len(block))
		}
		pos = a.at + len(block) // then the newline ending the record, or (salvage) the next header line
	}
	if i != len(recs) {
		t.Errorf("%s: WARC has %d records, the ARC gives %d", name, len(recs), i)
	}
	return declaredOK
}
