package warc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/warcgen"
	"github.com/arcport/arcport/lib/record"
)

// digestCase is one record of the generated corpus with the problems and
// statuses verification must give.
type digestCase struct {
	name     string
	data     []byte
	problems []string // problem messages (without file and offset)
	block    DigestStatus
	payload  DigestStatus
}

func digestCorpus() []digestCase {
	body := []byte("<html><title>t</title><body>hello, digests</body></html>")
	msg, _ := warcgen.HTTP(body, false)
	cmsg, cstored := warcgen.HTTP(body, true)
	const u = "http://example.com/"
	rec := func(bd, pd string, block []byte) []byte {
		return warcgen.Record(warcgen.Response(u, bd, pd), block)
	}
	good := rec(warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg)
	var cases []digestCase
	add := func(name string, data []byte, b, p DigestStatus, problems ...string) {
		cases = append(cases, digestCase{name, data, problems, b, p})
	}
	add("good", good, DigestMatch, DigestMatch)
	add("good.gz", warcgen.Gzip(good), DigestMatch, DigestMatch)
	add("no-digests", rec("", "", msg), DigestAbsent, DigestAbsent)
	// digest forms seen in the wild
	for _, f := range []struct{ name, bd, pd string }{
		{"sha1-hex", warcgen.Hex("sha1", "sha1", msg), warcgen.Hex("sha1", "sha1", body)},
		{"SHA1-HEX", strings.ToUpper(warcgen.Hex("sha1", "sha1", msg)), strings.ToUpper(warcgen.Hex("sha1", "sha1", body))},
		{"sha-1-b32-lower", strings.ToLower(warcgen.B32("sha-1", "sha1", msg)), strings.ToLower(warcgen.B32("SHA-1", "sha1", body))},
		{"sha1-b32-padded", warcgen.B32("sha1", "sha1", msg) + "", warcgen.B32("sha1", "sha1", body)},
		{"sha256-hex", warcgen.Hex("sha256", "sha256", msg), warcgen.Hex("sha256", "sha256", body)},
		{"sha256-b32", warcgen.B32("sha256", "sha256", msg), warcgen.B32("sha256", "sha256", body)},
		{"SHA-256-hex", warcgen.Hex("SHA-256", "sha256", msg), warcgen.Hex("SHA-256", "sha256", body)},
		{"sha512-hex", warcgen.Hex("sha512", "sha512", msg), warcgen.Hex("sha512", "sha512", body)},
		{"md5-hex", warcgen.Hex("md5", "md5", msg), warcgen.Hex("md5", "md5", body)},
		{"mixed", warcgen.Hex("sha256", "sha256", msg), warcgen.B32("sha1", "sha1", body)},
		{"bare-b32", warcgen.B32("", "sha1", msg)[1:], warcgen.Hex("", "sha256", body)[1:]},
	} {
		add(f.name, rec(f.bd, f.pd, msg), DigestMatch, DigestMatch)
	}
	// damage
	bad := warcgen.Flip(good, "hello", "jello")
	add("flipped-payload", bad, DigestMismatch, DigestMismatch,
		"WARC-Block-Digest mismatch for "+u+": header "+warcgen.B32("sha1", "sha1", msg)+", computed "+warcgen.B32("sha1", "sha1", warcgen.Flip(msg, "hello", "jello")),
		"WARC-Payload-Digest mismatch for "+u+": header "+warcgen.B32("sha1", "sha1", body)+", computed "+warcgen.B32("sha1", "sha1", warcgen.Flip(body, "hello", "jello")))
	hexBad := warcgen.Flip(rec(warcgen.Hex("sha256", "sha256", msg), "", msg), "Server: warcgen", "Server: warcgem")
	add("flipped-http-header-hex", hexBad, DigestMismatch, DigestAbsent,
		"WARC-Block-Digest mismatch for "+u+": header "+warcgen.Hex("sha256", "sha256", msg)+", computed "+warcgen.Hex("sha256", "sha256", warcgen.Flip(msg, "Server: warcgen", "Server: warcgem")))
	add("flipped-http-header", warcgen.Flip(good, "Server: warcgen", "Server: warcgem"), DigestMismatch, DigestMatch,
		"WARC-Block-Digest mismatch for "+u+": header "+warcgen.B32("sha1", "sha1", msg)+", computed "+warcgen.B32("sha1", "sha1", warcgen.Flip(msg, "Server: warcgen", "Server: warcgem")))
	wrong := warcgen.B32("sha256", "sha1", msg)
	add("wrong-label", rec(wrong, warcgen.B32("sha1", "sha1", body), msg), DigestUnreadable, DigestMatch,
		`bad WARC-Block-Digest "`+wrong+`" for `+u+`: the value has the size of a sha1 digest, not sha256 (wrong algorithm label?)`)
	wrongMD5 := warcgen.Hex("md5", "sha1", msg)
	add("wrong-label-md5", rec(warcgen.B32("sha1", "sha1", msg), wrongMD5, msg), DigestMatch, DigestUnreadable,
		`bad WARC-Payload-Digest "`+wrongMD5+`" for `+u+`: the value has the size of a sha1 digest, not md5 (wrong algorithm label?)`)
	gz := warcgen.Gzip(good)
	add("truncated-gzip", gz[:len(gz)-30], DigestAbsent, DigestAbsent, "truncated block: 107 of 137 bytes (Content-Length)")
	add("truncated-gzip-trailer", gz[:len(gz)-4], DigestMatch, DigestMatch, "gzip member truncated: unexpected EOF")
	// chunked: either payload convention passes
	add("chunked-dechunked", rec(warcgen.B32("sha1", "sha1", cmsg), warcgen.B32("sha1", "sha1", body), cmsg), DigestMatch, DigestMatch)
	add("chunked-as-stored", rec(warcgen.B32("sha1", "sha1", cmsg), warcgen.B32("sha1", "sha1", cstored), cmsg), DigestMatch, DigestMatchAsStored)
	other := warcgen.Hex("sha1", "sha1", []byte("something else"))
	add("chunked-neither", rec(warcgen.B32("sha1", "sha1", cmsg), other, cmsg), DigestMatch, DigestMismatch,
		"WARC-Payload-Digest mismatch for "+u+": header "+other+", computed "+warcgen.Hex("sha1", "sha1", body)+
			" (chunked: "+warcgen.Hex("sha1", "sha1", cstored)+" with the chunk framing as stored)")
	// revisit: the payload digest is the original's
	rv := warcgen.Record(warcgen.Fields("WARC-Type", "revisit", "WARC-Record-ID", "<urn:uuid:1>", "WARC-Date", "2024-01-02T03:04:05Z",
		"WARC-Target-URI", u, "Content-Type", "application/http;msgtype=response", "WARC-Payload-Digest", other), []byte("HTTP/1.1 304 Not Modified\r\n\r\n"))
	add("revisit", rv, DigestAbsent, DigestNotChecked)
	return cases
}

// TestDigestCorpus checks verification on the generated corpus: every
// problem line, and the per-record statuses given to WithDigestFunc.
func TestDigestCorpus(t *testing.T) {
	for _, tc := range digestCorpus() {
		t.Run(tc.name, func(t *testing.T) {
			var checks []DigestCheck
			var problems []string
			r, err := NewReader(bytes.NewReader(tc.data), WithFilename(tc.name),
				WithDigestFunc(func(c *DigestCheck) { checks = append(checks, *c) }),
				WithProblemFunc(func(p *record.Problem) { problems = append(problems, p.Msg) }))
			if err != nil {
				t.Fatal(err)
			}
			for {
				if _, err := r.Next(); err != nil {
					break
				}
			}
			if strings.Join(problems, "\n") != strings.Join(tc.problems, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(tc.problems, "\n"))
			}
			if tc.name == "truncated-gzip" {
				if len(checks) != 0 {
					t.Errorf("a truncated block got a digest outcome: %+v", checks)
				}
				return
			}
			if len(checks) != 1 {
				t.Fatalf("%d digest outcomes, want 1", len(checks))
			}
			c := checks[0]
			if c.Block.Status != tc.block || c.Payload.Status != tc.payload {
				t.Errorf("block %v, payload %v; want %v, %v", c.Block.Status, c.Payload.Status, tc.block, tc.payload)
			}
			if c.URI != "http://example.com/" || c.Offset != 0 {
				t.Errorf("uri %q offset %d", c.URI, c.Offset)
			}
		})
	}
}

func TestFormatLike(t *testing.T) {
	d := record.Digest{Algorithm: "sha1", Sum: warcgen.Sum("sha1", []byte("x"))}
	b32 := warcgen.B32("", "sha1", []byte("x"))[1:]
	hx := warcgen.Hex("", "sha1", []byte("x"))[1:]
	for _, tc := range []struct{ stated, want string }{
		{"sha1:" + b32, "sha1:" + b32},
		{"SHA-1:" + strings.ToLower(b32), "SHA-1:" + strings.ToLower(b32)},
		{"sha1:" + hx, "sha1:" + hx},
		{"sha1:" + strings.ToUpper(hx), "sha1:" + strings.ToUpper(hx)},
		{hx, hx},
		{"sha1:zz", "sha1:" + b32},
	} {
		if got := FormatLike(tc.stated, d); got != tc.want {
			t.Errorf("FormatLike(%q) = %q, want %q", tc.stated, got, tc.want)
		}
	}
}

// FuzzParseStatedDigest: whatever parses, FormatLike writes back in a form
// that parses to the same digest; nothing panics.
func FuzzParseStatedDigest(f *testing.F) {
	x := []byte("x")
	for _, s := range []string{
		warcgen.B32("sha1", "sha1", x), warcgen.Hex("sha256", "sha256", x), warcgen.Hex("SHA-512", "sha512", x),
		warcgen.Hex("md5", "md5", x), warcgen.B32("", "sha1", x)[1:], strings.ToLower(warcgen.B32("sha-1", "sha1", x)),
		"sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ====", "sha256:", ":", "", "sha1:2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseStatedDigest(s)
		if err != nil {
			return
		}
		back := FormatLike(s, d)
		d2, err := ParseStatedDigest(back)
		if err != nil || !bytes.Equal(d2.Sum, d.Sum) || d2.Algorithm != d.Algorithm {
			t.Fatalf("%q parsed as %v, written back as %q: %v, %v", s, d, back, d2, err)
		}
	})
}
