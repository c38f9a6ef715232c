package arc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/record"
)

// Building blocks of synthetic ARC files. Lengths are counted from the
// bytes themselves.
const (
	v1Lines = "1 0 Test Origin\nURL IP-address Archive-date Content-type Archive-length\n"
	v2Lines = "2 0 Alexa Internet\nURL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length\n"
	bodyA   = "HTTP/1.0 200 Document follows\r\nContent-type: text/html\r\nContent-length: 30\r\n\r\n<HTML>\nHello World!!!\n</HTML>\n"
	bodyB   = "a plain text body\nwith two lines\n"
)

func v1Filedesc(length int) string {
	return fmt.Sprintf("filedesc://test.arc 0.0.0.0 20200102030405 text/plain %d\n", length) + v1Lines
}

// v1 is a well-formed version-1 file: version block (length counting the
// two lines), then records A (HTTP) and B (text).
func v1(a, b string) string {
	return v1Filedesc(len(v1Lines)) + "\n" + a + "\n" + b + "\n"
}

func recA(length int) string {
	return fmt.Sprintf("http://www.dryswamp.edu:80/index.html 127.10.100.2 19961104142103 text/html %d\n", length) + bodyA
}

func recB(length int) string {
	return fmt.Sprintf("ftp://example.org/b.txt 0.0.0.0 19961104142104 text/plain %d\n", length) + bodyB
}

type rec struct {
	typ, uri, ctype string
	body            string
}

func gz(t testing.TB, members ...string) []byte {
	var out bytes.Buffer
	for _, m := range members {
		zw := gzip.NewWriter(&out)
		zw.Write([]byte(m))
		zw.Close()
	}
	return out.Bytes()
}

var (
	fdRec = rec{"arc-filedesc", "filedesc://test.arc", "text/plain", v1Lines}
	aRec  = rec{"response", "http://www.dryswamp.edu:80/index.html", "application/http;msgtype=response", bodyA}
	bRec  = rec{"resource", "ftp://example.org/b.txt", "text/plain", bodyB}
)

func TestRepairs(t *testing.T) {
	big := strings.Repeat("0123456789abcdef\n", 12000) // 204000 bytes, larger than a 128 KiB buffer
	offB := func(s string) int { return strings.Index(s, "ftp://") }
	// A gzip file whose second member lost its last 20 bytes; what the
	// decoder gets out of that member is the block.
	fdLen := len(gz(t, v1Filedesc(len(v1Lines))+"\n"))
	full := gz(t, v1Filedesc(len(v1Lines))+"\n", recA(len(bodyA))+"\n")
	truncGz := full[:len(full)-20]
	truncBody := strings.TrimPrefix(string(stdGunzipPartial(truncGz[fdLen:])), recA(len(bodyA))[:strings.Index(recA(len(bodyA)), "\n")+1])
	// Three records, the middle member damaged: its CRC (badCRC), or its
	// deflate data (badData: a stored block whose length check fails).
	three := gz(t, v1Filedesc(len(v1Lines))+"\n", recA(len(bodyA))+"\n", recB(len(bodyB))+"\n")
	aLen := len(gz(t, recA(len(bodyA))+"\n"))
	badCRC := append([]byte(nil), three...)
	badCRC[fdLen+aLen-8] ^= 0xff // CRC32 of member A
	badData := append([]byte(nil), three[:fdLen+10]...)
	badData = append(badData, 0x01, 0x05, 0x00, 0x05, 0x00) // final stored block, LEN 5, NLEN not ~LEN
	badData = append(badData, three[fdLen+aLen:]...)
	tests := []struct {
		name     string
		data     []byte
		opts     []Option
		want     []rec
		problems []string
		err      string // final error, if any
		strict   string // strict-mode error when not the first problem
	}{
		{
			name: "well-formed",
			data: []byte(v1(recA(len(bodyA)), recB(len(bodyB)))),
			want: []rec{fdRec, aRec, bRec},
		},
		{
			name: "version block length excludes the last newline",
			data: []byte(v1Filedesc(len(v1Lines)-1) + "\n" + recA(len(bodyA)) + "\n"),
			want: []rec{{"arc-filedesc", "filedesc://test.arc", "text/plain", strings.TrimSuffix(v1Lines, "\n")}, aRec},
		},
		{
			name: "version block length counts the blank line (Heritrix)",
			data: []byte(v1Filedesc(len(v1Lines)+1) + "\n" + recA(len(bodyA)) + "\n"),
			want: []rec{{"arc-filedesc", "filedesc://test.arc", "text/plain", v1Lines + "\n"}, aRec},
		},
		{
			name: "version 2 (specification example)",
			data: []byte(fmt.Sprintf("filedesc://IA-001102.arc 0.0.0.0 19960923142103 text/plain 200 - - 0 IA-001102.arc %d\n", len(v2Lines)+1) + v2Lines + "\n" +
				fmt.Sprintf("http://www.dryswamp.edu:80/index.html 127.10.100.2 19961104142103 text/html 200 fac069150613fe55599cc7fa88aa089d - 209 IA-001102.arc %d\n", len(bodyA)) + bodyA + "\n"),
			want: []rec{{"arc-filedesc", "filedesc://IA-001102.arc", "text/plain", v2Lines + "\n"}, aRec},
		},
		{
			name: "declared length too long",
			data: []byte(v1(recA(len(bodyA)+40), recB(len(bodyB)))),
			want: []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf("R x: record at offset %d: declared length %d does not end at a record boundary: next URL-record line found after %d bytes, length corrected",
				len(v1Filedesc(len(v1Lines)))+1, len(bodyA)+40, len(bodyA))},
		},
		{
			name: "declared length too short",
			data: []byte(v1(recA(len(bodyA)-7), recB(len(bodyB)))),
			want: []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf("R x: record at offset %d: declared length %d does not end at a record boundary: next URL-record line found after %d bytes, length corrected",
				len(v1Filedesc(len(v1Lines)))+1, len(bodyA)-7, len(bodyA))},
		},
		{
			name: "last record's declared length too short",
			data: []byte(v1(recA(len(bodyA)), recB(len(bodyB)-5))),
			want: []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf("R x: record at offset %d: declared length %d ends before the end of the last record: length corrected to %d",
				offB(v1(recA(len(bodyA)), "ftp://")), len(bodyB)-5, len(bodyB))},
		},
		{
			name:     "missing newline between records",
			data:     []byte(v1Filedesc(len(v1Lines)) + "\n" + recA(len(bodyA)) + recB(len(bodyB)) + "\n"),
			want:     []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf("R x: record at offset %d: no newline between this record and the previous one", len(v1Filedesc(len(v1Lines))+"\n"+recA(len(bodyA))))},
		},
		{
			name:     "extra newlines between records",
			data:     []byte(v1(recA(len(bodyA))+"\n\n", recB(len(bodyB)))),
			want:     []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf("R x: record at offset %d: 3 newlines between this record and the previous one (1 expected)", offB(v1(recA(len(bodyA))+"\n\n", "ftp://")))},
		},
		{
			name:     "junk between records",
			data:     []byte(v1(recA(len(bodyA))+"\nthis is not\na record\n", recB(len(bodyB)))),
			want:     []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf("S x: record at offset %d: skipped 22 bytes that are not ARC records", len(v1(recA(len(bodyA)), ""))-1)},
			strict:   fmt.Sprintf(`x: record at offset %d: not a URL-record line: "this is not"`, len(v1(recA(len(bodyA)), ""))-1),
		},
		{
			name: "CRLF and runs of spaces in URL-record lines",
			data: []byte(v1Filedesc(len(v1Lines)) + "\n" + strings.Replace(recA(len(bodyA)), " 127.10.100.2  19961104142103 ", " 127.10.100.2  19961104142103 ", 1)[:0] +
				"http://www.dryswamp.edu:80/index.html  127.10.100.2 19961104142103 text/html " + fmt.Sprint(len(bodyA)) + "\r\n" + bodyA + "\n"),
			want: []rec{fdRec, aRec},
			problems: []string{
				fmt.Sprintf("R x: record at offset %d: URL-record line ends in CRLF", len(v1Filedesc(len(v1Lines)))+1),
				fmt.Sprintf("R x: record at offset %d: URL-record line has runs of spaces between fields", len(v1Filedesc(len(v1Lines)))+1),
			},
		},
		{
			name:     "content type with spaces",
			data:     []byte(v1(strings.Replace(recA(len(bodyA)), " text/html ", " text/html; charset=UTF-8 ", 1), recB(len(bodyB)))),
			want:     []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf(`R x: record at offset %d: content type holds spaces: "text/html; charset=UTF-8"`, len(v1Filedesc(len(v1Lines)))+1)},
		},
		{
			name: "version 2, URL and content type with spaces",
			data: []byte(fmt.Sprintf("filedesc://IA-001102.arc 0.0.0.0 19960923142103 text/plain 200 - - 0 IA-001102.arc %d\n", len(v2Lines)+1) + v2Lines + "\n" +
				fmt.Sprintf("ftp://example.org/a b.txt 127.10.100.2 19961104142103 text/plain; charset=x 200 - - 209 IA-001102.arc %d\n", len(bodyB)) + bodyB + "\n"),
			want: []rec{{"arc-filedesc", "filedesc://IA-001102.arc", "text/plain", v2Lines + "\n"}, {"resource", "ftp://example.org/a%20b.txt", "text/plain; charset=x", bodyB}},
			problems: []string{
				fmt.Sprintf(`R x: record at offset %d: URL holds spaces: "ftp://example.org/a b.txt"`, len(v2Lines)+1+len(fmt.Sprintf("filedesc://IA-001102.arc 0.0.0.0 19960923142103 text/plain 200 - - 0 IA-001102.arc %d\n", len(v2Lines)+1))),
				fmt.Sprintf(`R x: record at offset %d: content type holds spaces: "text/plain; charset=x"`, len(v2Lines)+1+len(fmt.Sprintf("filedesc://IA-001102.arc 0.0.0.0 19960923142103 text/plain 200 - - 0 IA-001102.arc %d\n", len(v2Lines)+1))),
			},
		},
		{
			name: "many small records of unknown length",
			data: []byte(v1Filedesc(len(v1Lines)) + "\n" + strings.Repeat(recB(-1)+"\n", 3000)),
			want: append([]rec{fdRec}, func() []rec {
				var out []rec
				for i := 0; i < 3000; i++ {
					out = append(out, bRec)
				}
				return out
			}()...),
			problems: func() []string {
				var out []string
				first := len(v1Filedesc(len(v1Lines))) + 1
				for i := 0; i < 3000; i++ {
					what := "the next record"
					if i == 2999 {
						what = "the end of the file"
					}
					out = append(out, fmt.Sprintf(`D x: record at offset %d: bad length "-1": block taken up to %s (%d bytes)`, first+i*len(recB(-1)+"\n"), what, len(bodyB)))
				}
				return out
			}(),
		},
		{
			name:     "no version block",
			data:     []byte(recA(len(bodyA)) + "\n" + recB(len(bodyB)) + "\n"),
			want:     []rec{aRec, bRec},
			problems: []string{"R x: record at offset 0: no version block (filedesc://) before the first record"},
		},
		{
			name: "impossible date and IP",
			data: []byte(v1(recA(len(bodyA)), strings.Replace(strings.Replace(recB(len(bodyB)), "19961104142104", "19961304142104", 1), "0.0.0.0", "999.1.1.1", 1))),
			want: []rec{fdRec, aRec, bRec},
			problems: []string{
				fmt.Sprintf(`R x: record at offset %d: bad date "19961304142104": using 1996-11-04T14:21:03Z from the previous record`, offB(v1(recA(len(bodyA)), "ftp://"))),
				fmt.Sprintf(`R x: record at offset %d: bad IP address "999.1.1.1": left out`, offB(v1(recA(len(bodyA)), "ftp://"))),
			},
		},
		{
			name: "concatenated version 1 and version 2 files",
			data: []byte(v1(recA(len(bodyA)), recB(len(bodyB))) +
				fmt.Sprintf("filedesc://IA-001102.arc 0.0.0.0 19960923142103 text/plain 200 - - 0 IA-001102.arc %d\n", len(v2Lines)+1) + v2Lines + "\n" +
				fmt.Sprintf("ftp://example.org/b.txt 0.0.0.0 19961104142104 text/plain 200 - - 0 IA-001102.arc %d\n", len(bodyB)) + bodyB + "\n"),
			want: []rec{fdRec, aRec, bRec, {"arc-filedesc", "filedesc://IA-001102.arc", "text/plain", v2Lines + "\n"}, bRec},
		},
		{
			name: "block cut short by the end of the file",
			data: []byte(v1Filedesc(len(v1Lines)) + "\n" + recA(len(bodyA)+100)),
			want: []rec{fdRec, {aRec.typ, aRec.uri, aRec.ctype, strings.TrimSuffix(bodyA, "\n")}},
			problems: []string{fmt.Sprintf("D x: record at offset %d: block cut short by the end of the file: %d of %d bytes",
				len(v1Filedesc(len(v1Lines)))+1, len(bodyA)-1, len(bodyA)+100)},
		},
		{
			name: "large block read through a small buffer",
			opts: []Option{WithBufferSize(minBufSize)},
			data: []byte(v1(fmt.Sprintf("http://x.test/big 1.2.3.4 20200101000000 no-type %d\n", len(big))+big, recB(len(bodyB)))),
			want: []rec{fdRec, {"resource", "http://x.test/big", "application/octet-stream", big}, bRec},
		},
		{
			name: "large block of unknown length: skipped",
			opts: []Option{WithBufferSize(minBufSize)},
			data: []byte(v1("http://x.test/big 1.2.3.4 20200101000000 no-type -1\n"+big, recB(len(bodyB)))),
			want: []rec{fdRec, bRec},
			problems: []string{
				fmt.Sprintf(`S x: record at offset %d: bad length "-1" and no next record within 131072 bytes: record skipped`, len(v1Filedesc(len(v1Lines)))+1),
				fmt.Sprintf(`S x: record at offset %d: skipped %d bytes that are not ARC records`, len(v1Filedesc(len(v1Lines)))+1+len("http://x.test/big 1.2.3.4 20200101000000 no-type -1\n"), len(big)+1),
			},
		},
		{
			name: "large block whose length runs past the end",
			opts: []Option{WithBufferSize(minBufSize)},
			data: []byte(v1Filedesc(len(v1Lines)) + "\n" + fmt.Sprintf("http://x.test/big 1.2.3.4 20200101000000 no-type %d\n", len(big)+5) + big),
			want: []rec{fdRec},
			err:  fmt.Sprintf("x: record at offset %d: block cut short by the end of the file: %d of %d bytes: unexpected EOF", len(v1Filedesc(len(v1Lines)))+1, len(big), len(big)+5),
		},
		{
			name: "gzip, one member per record",
			data: gz(t, v1Filedesc(len(v1Lines))+"\n", recA(len(bodyA))+"\n", recB(len(bodyB))+"\n"),
			want: []rec{fdRec, aRec, bRec},
		},
		{
			name: "gzip, whole file, wrong length",
			data: gz(t, v1(recA(len(bodyA)+40), recB(len(bodyB)))),
			want: []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf("R x: record at offset 0: declared length %d does not end at a record boundary: next URL-record line found after %d bytes, length corrected (uncompressed offset %d)",
				len(bodyA)+40, len(bodyA), len(v1Filedesc(len(v1Lines)))+1)},
		},
		{
			name: "gzip, junk member",
			data: gz(t, v1Filedesc(len(v1Lines))+"\n", recA(len(bodyA))+"\n", "junk without newline", recB(len(bodyB))+"\n"),
			want: []rec{fdRec, aRec, bRec},
			problems: []string{fmt.Sprintf("S x: record at offset %d: skipped 20 bytes that are not ARC records",
				len(gz(t, v1Filedesc(len(v1Lines))+"\n", recA(len(bodyA))+"\n")))},
		},
		{
			name:   "gzip, truncated",
			data:   truncGz,
			want:   []rec{fdRec, {aRec.typ, aRec.uri, aRec.ctype, truncBody}},
			strict: fmt.Sprintf("x: record at offset %d: unreadable compressed data (gzip member truncated: unexpected EOF)", fdLen),
			problems: []string{
				fmt.Sprintf("S x: record at offset %d: unreadable compressed data (gzip member truncated: unexpected EOF): rest of the file skipped", fdLen),
				fmt.Sprintf("D x: record at offset %d: block cut short by the end of the file: %d of %d bytes", fdLen, len(truncBody), len(bodyA)),
			},
		},
		{
			name: "gzip, bad CRC in a member: that record skipped, the next kept",
			data: badCRC,
			want: []rec{fdRec, bRec},
			problems: []string{
				fmt.Sprintf("S x: record at offset %d: unreadable compressed data (gzip: invalid checksum): %d bytes skipped up to the next member at offset %d", fdLen, aLen, fdLen+aLen),
			},
			strict: fmt.Sprintf("x: record at offset %d: unreadable compressed data (gzip: invalid checksum)", fdLen),
		},
		{
			name: "gzip, corrupt deflate data in a member: that record skipped, the next kept",
			data: badData,
			want: []rec{fdRec, bRec},
			problems: []string{
				fmt.Sprintf("S x: record at offset %d: unreadable compressed data (gzip: flate: corrupt input before offset 5): 15 bytes skipped up to the next member at offset %d", fdLen, fdLen+15),
			},
			strict: fmt.Sprintf("x: record at offset %d: unreadable compressed data (gzip: flate: corrupt input before offset 5)", fdLen),
		},
		{
			name: "empty input",
			data: nil,
		},
		{
			name: "WARC input",
			data: []byte("WARC/1.0\r\nWARC-Type: warcinfo\r\n\r\n"),
			err:  "x: not an ARC file: it starts with a WARC record",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, probs, err := readAll(t, "x", tc.data, tc.opts...)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("error %v, want %s", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			var gotRecs []rec
			for _, g := range recs {
				gotRecs = append(gotRecs, rec{string(g.rec.Type()), g.rec.TargetURI(), g.rec.ContentType(), string(g.body)})
			}
			if len(gotRecs) != len(tc.want) {
				t.Fatalf("%d records, want %d:\n%v", len(gotRecs), len(tc.want), gotRecs)
			}
			for i := range tc.want {
				if gotRecs[i] != tc.want[i] {
					t.Errorf("record %d:\n%+q\nwant\n%+q", i, gotRecs[i], tc.want[i])
				}
			}
			if strings.Join(probs, "\n") != strings.Join(tc.problems, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(probs, "\n"), strings.Join(tc.problems, "\n"))
			}
			// Strict: the first problem is the error.
			_, _, err = readAll(t, "x", tc.data, append(tc.opts, WithPolicy(record.Fail))...)
			switch {
			case tc.strict != "":
				if err == nil || err.Error() != tc.strict {
					t.Errorf("strict error %v, want %s", err, tc.strict)
				}
			case len(tc.problems) > 0:
				var p *record.Problem
				if !errors.As(err, &p) || tc.problems[0][2:] != err.Error() {
					t.Errorf("strict error %v, want %s", err, tc.problems[0][2:])
				}
			case tc.err != "":
				if err == nil || err.Error() != tc.err {
					t.Errorf("strict error %v, want %s", err, tc.err)
				}
			case err != nil:
				t.Errorf("strict: %v", err)
			}
		})
	}
}

// TestBlockAfterNext checks that Next skips an unread block and that a
// partly read block does not disturb the next record.
func TestBlockPartlyRead(t *testing.T) {
	r, err := NewReader(strings.NewReader(v1(recA(len(bodyA)), recB(len(bodyB)))))
	if err != nil {
		t.Fatal(err)
	}
	r.Next()
	a, _ := r.Next()
	buf := make([]byte, 5)
	io.ReadFull(a.Block, buf)
	b, err := r.Next()
	if err != nil || b.TargetURI() != "ftp://example.org/b.txt" {
		t.Fatalf("%v %v", b, err)
	}
	body, _ := io.ReadAll(b.Block)
	if string(body) != bodyB {
		t.Errorf("body %q", body)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("err %v", err)
	}
	if st := r.Stats(); st != (Stats{Records: 3}) {
		t.Errorf("stats %+v", st)
	}
}

// stdGunzipPartial returns what klauspost's gzip decoder (the one compio
// uses) gets out of a truncated member.
func stdGunzipPartial(b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	out, _ := io.ReadAll(zr)
	return out
}

// TestCorruptPastHead: a member longer than memberHead whose deflate data
// breaks past its first MiB. Its record was partly handed out already, so
// its block is cut short (the record skipped, as arc2warc does), and
// reading goes on with the next member.
func TestCorruptPastHead(t *testing.T) {
	big := samples.Text(3 << 20)
	bigRec := fmt.Sprintf("http://x.test/big 1.2.3.4 20200101000000 text/plain %d\n", len(big)) + big
	fd := gz(t, v1Filedesc(len(v1Lines))+"\n")
	mid := gz(t, bigRec+"\n")
	data := append(append(append([]byte{}, fd...), mid...), gz(t, recB(len(bodyB))+"\n")...)
	// about 2.2 MiB into the member's data: a run of 0xff bytes, which
	// breaks the deflate stream there rather than only its CRC
	for i := 0; i < 64; i++ {
		data[len(fd)+len(mid)*3/4+i] = 0xff
	}

	var probs []string
	r, err := NewReader(bytes.NewReader(data), WithName("x"), WithProblemFunc(func(p *record.Problem) { probs = append(probs, p.Error()) }))
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v (problems %q)", err, probs)
		}
		b, err := io.ReadAll(rec.Block)
		var p *record.Problem
		if errors.As(err, &p) && p.Skipped {
			probs = append(probs, "block: "+p.Error())
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.TargetURI() == "http://x.test/big" {
			t.Errorf("the damaged record came out whole (%d bytes)", len(b))
		}
		uris = append(uris, rec.TargetURI())
	}
	if want := []string{"filedesc://test.arc", "ftp://example.org/b.txt"}; strings.Join(uris, " ") != strings.Join(want, " ") {
		t.Errorf("records %q, want %q", uris, want)
	}
	if len(probs) != 2 || !strings.Contains(probs[0], fmt.Sprintf("x: record at offset %d: unreadable compressed data (gzip: flate: ", len(fd))) ||
		!strings.HasSuffix(probs[0], fmt.Sprintf("resumed at the next member at offset %d", len(fd)+len(mid))) ||
		!strings.HasPrefix(probs[1], fmt.Sprintf("block: x: record at offset %d: block cut short by unreadable compressed data: ", len(fd))) {
		t.Errorf("problems:\n%s", strings.Join(probs, "\n"))
	}
}
