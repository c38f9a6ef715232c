package waczpack

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/internal/warcgen"
)

const checkURI = "http://example.com/"

// checkBodies returns an HTTP response (plain and chunked) and what a
// record of each holds.
func checkBodies() (body, msg, cmsg, cstored []byte) {
	body = []byte("<html><title>t</title><body>hello, check</body></html>")
	msg, _ = warcgen.HTTP(body, false)
	cmsg, cstored = warcgen.HTTP(body, true)
	return
}

func checkRec(bd, pd string, block []byte) []byte {
	return warcgen.Record(warcgen.Response(checkURI, bd, pd), block)
}

// TestCheckValid: a WARC.gz holding every digest form seen in the wild
// (sha1/sha256/sha512/md5, base32 and hex, labels in any case, no label),
// both payload conventions of a chunked response and a record without
// digests passes; -v says which convention matched for each record and
// that one has no digest.
func TestCheckValid(t *testing.T) {
	body, msg, cmsg, cstored := checkBodies()
	recs := [][]byte{
		checkRec(warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg),
		checkRec(warcgen.Hex("sha1", "sha1", msg), strings.ToUpper(warcgen.Hex("SHA1", "sha1", body)), msg),
		checkRec(strings.ToLower(warcgen.B32("sha-1", "sha1", msg)), warcgen.Hex("sha256", "sha256", body), msg),
		checkRec(warcgen.Hex("sha512", "sha512", msg), warcgen.Hex("md5", "md5", body), msg),
		checkRec(warcgen.B32("sha256", "sha256", msg), warcgen.B32("", "sha1", body)[1:], msg),
		checkRec(warcgen.B32("sha1", "sha1", cmsg), warcgen.B32("sha1", "sha1", body), cmsg),
		checkRec(warcgen.B32("sha1", "sha1", cmsg), warcgen.B32("sha1", "sha1", cstored), cmsg),
		checkRec("", "", msg),
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "good.warc.gz")
	os.WriteFile(f, warcgen.Gzip(recs...), 0o644)
	so, se, code := run(t, nil, "check", f)
	want := f + ": ok: 8 records, 14 digests checked, 1 records without digests; chunked payloads: 1 digests over the de-chunked payload (WARC 1.1), 1 over the entity as stored (warcio, wget)\n"
	if code != 0 || so != want || se != "" {
		t.Errorf("exit %d\nstdout %q\nwant   %q\nstderr %q", code, so, want, se)
	}
	so, _, code = run(t, nil, "check", "-v", f)
	lines := strings.Split(strings.TrimSuffix(so, "\n"), "\n")
	if code != 0 || len(lines) != 9 {
		t.Fatalf("-v: exit %d, %d lines:\n%s", code, len(lines), so)
	}
	for i, w := range map[int]string{
		0: "response " + checkURI + ": block sha1 ok; payload sha1 ok",
		3: "response " + checkURI + ": block sha512 ok; payload md5 ok",
		5: "payload sha1 ok, over the payload with the chunked transfer coding removed (WARC 1.1)",
		6: "payload sha1 ok, over the entity as stored, chunk framing included (warcio, wget)",
		7: "response " + checkURI + ": no digest (not checked)",
	} {
		if !strings.HasSuffix(lines[i], w) || !strings.HasPrefix(lines[i], f+": record at offset ") {
			t.Errorf("-v line %d: %q, want it to end with %q", i, lines[i], w)
		}
	}
	// -q: nothing
	if so, se, code := run(t, nil, "check", "-q", f); code != 0 || so != "" || se != "" {
		t.Errorf("-q: exit %d, %q %q", code, so, se)
	}
	// whole-file gzip (one member, two records) is not damage: a warning,
	// exit 0, as create packs it (compressed again per record)
	two := filepath.Join(dir, "two-in-one.warc.gz")
	os.WriteFile(two, warcgen.Gzip(append(append([]byte{}, recs[0]...), recs[0]...)), 0o644)
	so, se, code = run(t, nil, "check", two)
	want = "warning: " + two + ": record at offset 0: gzip member holds more than one record: records after the first cannot be addressed by offset\n" +
		two + ": ok: 2 records, 4 digests checked, 0 records without digests\n"
	if code != 0 || so != want || se != "" {
		t.Errorf("two records in one member: exit %d\nstdout %q\nwant   %q\nstderr %q", code, so, want, se)
	}
}

// TestCheckTampered: each damaged file fails with exactly the expected
// lines (file, record offset, URI, stated and computed digests) and exit 1.
func TestCheckTampered(t *testing.T) {
	body, msg, cmsg, cstored := checkBodies()
	good := checkRec(warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg)
	flipped := warcgen.Flip(msg, "hello", "jello")
	headFlip := warcgen.Flip(msg, "Server: warcgen", "Server: warcgem")
	gz := warcgen.Gzip(good)
	other := warcgen.Hex("sha1", "sha1", []byte("not the payload"))
	wrong := warcgen.B32("sha256", "sha1", msg)
	second := int64(len(gz)) // offset of a second member after good
	tests := []struct {
		name  string
		data  []byte
		lines []string // after "FILE: "
	}{
		{"payload-byte.warc", warcgen.Flip(good, "hello", "jello"), []string{
			"record at offset 0: WARC-Block-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", msg) + ", computed " + warcgen.B32("sha1", "sha1", flipped),
			"record at offset 0: WARC-Payload-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", body) + ", computed " + warcgen.B32("sha1", "sha1", warcgen.Flip(body, "hello", "jello")),
		}},
		{"payload-byte.warc.zst", warcgen.Zstd(good, warcgen.Flip(good, "hello", "jello")), []string{
			"record at offset " + strconv.Itoa(len(warcgen.Zstd(good))) + ": WARC-Block-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", msg) + ", computed " + warcgen.B32("sha1", "sha1", flipped),
			"record at offset " + strconv.Itoa(len(warcgen.Zstd(good))) + ": WARC-Payload-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", body) + ", computed " + warcgen.B32("sha1", "sha1", warcgen.Flip(body, "hello", "jello")),
		}},
		{"http-header-byte.warc.gz", warcgen.Gzip(good, warcgen.Flip(good, "Server: warcgen", "Server: warcgem")), []string{
			"record at offset " + strconv.FormatInt(second, 10) + ": WARC-Block-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", msg) + ", computed " + warcgen.B32("sha1", "sha1", headFlip),
		}},
		{"hex.warc", checkRec(warcgen.Hex("sha256", "sha256", msg), strings.ToUpper(warcgen.Hex("sha1", "sha1", body)), flipped), []string{
			"record at offset 0: WARC-Block-Digest mismatch for " + checkURI + ": header " + warcgen.Hex("sha256", "sha256", msg) + ", computed " + warcgen.Hex("sha256", "sha256", flipped),
			"record at offset 0: WARC-Payload-Digest mismatch for " + checkURI + ": header " + strings.ToUpper(warcgen.Hex("sha1", "sha1", body)) + ", computed " + strings.ToUpper(warcgen.Hex("sha1", "sha1", warcgen.Flip(body, "hello", "jello"))),
		}},
		{"label.warc", checkRec(wrong, "", msg), []string{
			`record at offset 0: bad WARC-Block-Digest "` + wrong + `" for ` + checkURI + `: the value has the size of a sha1 digest, not sha256 (wrong algorithm label?)`,
		}},
		{"truncated.warc.gz", gz[:len(gz)-30], []string{
			"record at offset 0: truncated block: 108 of 135 bytes (Content-Length)",
		}},
		{"crc.warc.gz", append(gz[:len(gz)-8:len(gz)-8], 0, 0, 0, 0, gz[len(gz)-4], gz[len(gz)-3], gz[len(gz)-2], gz[len(gz)-1]), []string{
			"record at offset 0: unreadable compressed data (gzip: invalid checksum): skipped up to the end of the file",
		}},
		// Content-Length 100 too small: the block ends inside the HTTP head
		{"length.warc", append(warcgen.Flip(good, "Content-Length: 1", "Content-Length: 0"), good...), []string{
			"record at offset 0: WARC-Block-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", msg) + ", computed " + warcgen.B32("sha1", "sha1", msg[:len(msg)-100]),
			"record at offset 0: WARC-Payload-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", body) + ", computed " + warcgen.B32("sha1", "sha1", nil),
			"record at offset 0: record not followed by CRLF CRLF (Content-Length wrong?): skipped 104 bytes to the next record",
		}},
		{"chunked-neither.warc", checkRec(warcgen.B32("sha1", "sha1", cmsg), other, cmsg), []string{
			"record at offset 0: WARC-Payload-Digest mismatch for " + checkURI + ": header " + other + ", computed " + warcgen.Hex("sha1", "sha1", body) + " (chunked: " + warcgen.Hex("sha1", "sha1", cstored) + " with the chunk framing as stored)",
		}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, tc.name)
			os.WriteFile(f, tc.data, 0o644)
			so, se, code := run(t, nil, "check", f)
			var want strings.Builder
			for _, l := range tc.lines {
				want.WriteString(f + ": " + l + "\n")
			}
			if code != 1 || so != want.String() || !strings.HasPrefix(se, "waczpack check: ") {
				t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr %q", code, so, want.String(), se)
			}
		})
	}
}

// TestCheckFixtures: the untampered fixtures pass (WARC and ARC, plain and
// gzip), from local files and over http(s).
func TestCheckFixtures(t *testing.T) {
	names := []string{"example.warc", "example.warc.gz", "example-iana.org-chunked.warc", "example-resource.warc.gz",
		"example-space-in-target-uri.warc.gz", "example-wget-bad-target-uri.warc.gz", "post-test.warc.gz", "example.arc", "example.arc.gz"}
	var paths []string
	for _, n := range names {
		paths = append(paths, samples.Path(n))
	}
	so, se, code := run(t, nil, append([]string{"check"}, paths...)...)
	if code != 0 || strings.Count(so, ": ok: ") != len(names) {
		t.Errorf("exit %d\n%s%s", code, so, se)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(samples.Path("example.warc.gz")))))
	defer srv.Close()
	u := srv.URL + "/example.warc.gz"
	so, se, code = run(t, nil, "check", u)
	if code != 0 || !strings.HasPrefix(so, u+": ok: 6 records") {
		t.Errorf("over http: exit %d\n%s%s", code, so, se)
	}
	// the damaged ARC fixture: one line per problem
	bad := samples.Path("bad.arc")
	so, se, code = run(t, nil, "check", bad, samples.Path("example.arc"))
	want := bad + `: record at offset 0: bad length "-1": block taken up to the next record (72 bytes)
` + bad + `: record at offset 134: bad length "-1": block taken up to the next record (0 bytes)
` + bad + `: record at offset 134: date "201404010000000000" is not 14 digits: read as 20140401000000
` + bad + `: record at offset 262: bad length "abc": block taken up to the end of the file (0 bytes)
` + bad + `: record at offset 262: date "201404010000000000" is not 14 digits: read as 20140401000000
` + samples.Path("example.arc") + ": ok: 2 ARC records (ARC has no digests: structure checked)\n"
	if code != 1 || so != want || se != "waczpack check: 5 problem(s) in 1 of 2 file(s)\n" {
		t.Errorf("bad.arc: exit %d\n%s\nwant:\n%s%s", code, so, want, se)
	}
	// a WACZ is not for check
	wacz := filepath.Join(t.TempDir(), "x.wacz")
	if _, se, code := run(t, nil, "create", "-q", "-o", wacz, samples.Path("example.warc.gz")); code != 0 {
		t.Fatal(se)
	}
	if so, _, code := run(t, nil, "check", wacz); code != 1 || so != wacz+": a zip file, not a WARC or ARC file (a WACZ? waczpack validate checks those)\n" {
		t.Errorf("WACZ: exit %d %q", code, so)
	}
	// stdin
	so, _, code = run(t, mustRead(t, "example.warc.gz"), "check")
	if code != 0 || !strings.HasPrefix(so, "-: ok: 6 records") {
		t.Errorf("stdin: exit %d %q", code, so)
	}
}

// TestValidateDigests: validate recomputes the digests of the WARCs in
// archive/: a record whose payload does not match its WARC-Payload-Digest
// (packed by create, which does not check digests without --verify) is
// one line naming the WACZ, the WARC, the offset, the URI and both
// digests; -v prints one line per record.
func TestValidateDigests(t *testing.T) {
	body, msg, cmsg, cstored := checkBodies()
	good := checkRec(warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg)
	chunked := checkRec(warcgen.B32("sha1", "sha1", cmsg), warcgen.B32("sha1", "sha1", cstored), cmsg)
	bad := warcgen.Flip(good, "hello", "jello")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.warc.gz")
	os.WriteFile(in, warcgen.Gzip(good, chunked, bad), 0o644)
	out := filepath.Join(dir, "x.wacz")
	if _, se, code := run(t, nil, "create", "-q", "-o", out, in); code != 0 {
		t.Fatalf("create: %s", se)
	}
	off := len(warcgen.Gzip(good, chunked))
	so, se, code := run(t, nil, "validate", out)
	want := out + ": archive/in.warc.gz: record at offset " + strconv.Itoa(off) + ": WARC-Block-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", msg) +
		", computed " + warcgen.B32("sha1", "sha1", warcgen.Flip(msg, "hello", "jello")) + "\n" +
		out + ": archive/in.warc.gz: record at offset " + strconv.Itoa(off) + ": WARC-Payload-Digest mismatch for " + checkURI + ": header " + warcgen.B32("sha1", "sha1", body) +
		", computed " + warcgen.B32("sha1", "sha1", warcgen.Flip(body, "hello", "jello")) + "\n"
	if code != 1 || so != "" || se != want {
		t.Errorf("exit %d, stdout %q\nstderr:\n%s\nwant:\n%s", code, so, se, want)
	}
	so, _, code = run(t, nil, "validate", "-v", out)
	if code != 1 || strings.Count(so, "\n") != 3 || !strings.Contains(so, "payload sha1 ok, over the entity as stored, chunk framing included (warcio, wget)") {
		t.Errorf("-v: exit %d\n%s", code, so)
	}
	// untampered: valid
	os.WriteFile(in, warcgen.Gzip(good, chunked), 0o644)
	if _, se, code := run(t, nil, "create", "-q", "-o", out, in); code != 0 {
		t.Fatalf("create: %s", se)
	}
	if so, se, code := run(t, nil, "validate", out); code != 0 || !strings.HasSuffix(so, ": valid WACZ 1.1.1\n") {
		t.Errorf("untampered: exit %d %q %q", code, so, se)
	}
}

// TestCreateVerifyDigests: create --verify recomputes the input's record
// digests: a mismatch is one line (input, offset, URI, both digests), exit
// 1 and no WACZ; valid input (both chunked payload conventions) packs.
func TestCreateVerifyDigests(t *testing.T) {
	body, msg, cmsg, cstored := checkBodies()
	good := checkRec(warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg)
	chunked := checkRec(warcgen.B32("sha1", "sha1", cmsg), warcgen.B32("sha1", "sha1", cstored), cmsg)
	dechunked := checkRec(warcgen.Hex("sha256", "sha256", cmsg), warcgen.Hex("sha256", "sha256", body), cmsg)
	bad := checkRec(warcgen.B32("sha1", "sha1", msg), warcgen.Hex("sha1", "sha1", []byte("other")), msg)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.wacz")
	for _, gz := range []bool{true, false} {
		in := filepath.Join(dir, "in.warc")
		data := append(append(append(append([]byte{}, good...), chunked...), dechunked...), bad...)
		off := len(good) + len(chunked) + len(dechunked)
		if gz {
			in += ".gz"
			data = warcgen.Gzip(good, chunked, dechunked, bad)
			off = len(warcgen.Gzip(good, chunked, dechunked))
		}
		os.WriteFile(in, data, 0o644)
		_, se, code := run(t, nil, "create", "--verify", "-o", out, in)
		want := in + ": record at offset " + strconv.Itoa(off) + ": WARC-Payload-Digest mismatch for " + checkURI + ": header " +
			warcgen.Hex("sha1", "sha1", []byte("other")) + ", computed " + warcgen.Hex("sha1", "sha1", body) + "\n" +
			"waczpack: " + out + " not written: 1 record digest problem(s) in the input (--verify)\n"
		if code != 1 || se != want {
			t.Errorf("gzip %v: exit %d\nstderr:\n%s\nwant:\n%s", gz, code, se, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("gzip %v: %s written", gz, out)
		}
		// without --verify it packs (validate then finds the mismatch)
		if _, se, code := run(t, nil, "create", "-q", "-o", out, in); code != 0 {
			t.Errorf("gzip %v: without --verify: exit %d %s", gz, code, se)
		}
		os.Remove(out)
		data = append(append(append([]byte{}, good...), chunked...), dechunked...)
		if gz {
			data = warcgen.Gzip(good, chunked, dechunked)
		}
		os.WriteFile(in, data, 0o644)
		if _, se, code := run(t, nil, "create", "--verify", "-v", "-o", out, in); code != 0 ||
			!strings.Contains(se, out+": --verify: 6 record digests recomputed, all matching; 0 records without digests; chunked payloads: 1 digests over the de-chunked payload (WARC 1.1), 1 over the entity as stored (warcio, wget)\n") {
			t.Errorf("gzip %v: valid input: exit %d %s", gz, code, se)
		}
		os.Remove(out)
		os.Remove(in)
	}
	// the fixtures pass
	if _, se, code := run(t, nil, "create", "--verify", "-q", "-o", out, samples.Path("example.warc.gz"), samples.Path("post-test.warc.gz"), samples.Path("example.arc.gz")); code != 0 {
		t.Errorf("fixtures: exit %d %s", code, se)
	}
}
