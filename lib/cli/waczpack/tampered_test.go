package waczpack

import (
	"archive/zip"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/warcgen"
)

var (
	updateTampered = flag.Bool("update", false, "rewrite the expected lines of testdata/tampered (*.expected)")
	regenTampered  = flag.Bool("regen", false, "make the archives of testdata/tampered again (then -update)")
)

// tamperedDir is the committed corpus of damaged archives.
const tamperedDir = "../../../testdata/tampered"

// TestTamperedCorpus: every archive of testdata/tampered fails `waczpack
// check` (bare WARCs) or `waczpack validate` (WACZ) with exactly the lines
// of its NAME.expected, and the untampered good.* pass. -update rewrites
// the .expected files from what the commands print; -regen makes the
// archives again (a new signing key, so -update must follow).
func TestTamperedCorpus(t *testing.T) {
	if *regenTampered {
		regenerateTampered(t)
	}
	names, _ := filepath.Glob(filepath.Join(tamperedDir, "*"))
	var archives []string
	for _, n := range names {
		if !strings.HasSuffix(n, ".expected") && !strings.HasSuffix(n, ".md") {
			archives = append(archives, filepath.Base(n))
		}
	}
	sort.Strings(archives)
	if len(archives) < 12 {
		t.Fatalf("testdata/tampered holds %d archives: %v", len(archives), archives)
	}
	for _, name := range archives {
		t.Run(name, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join(tamperedDir, name))
			if err != nil {
				t.Fatal(err)
			}
			// run on a copy: validate must not touch the corpus anyway
			dir := t.TempDir()
			p := filepath.Join(dir, name)
			os.WriteFile(p, orig, 0o644)
			cmd := "check"
			if strings.HasSuffix(name, ".wacz") {
				cmd = "validate"
			}
			so, se, code := run(t, nil, cmd, p)
			var got strings.Builder
			fmt.Fprintf(&got, "$ waczpack %s %s\nexit %d\n", cmd, name, code)
			for _, out := range []struct{ tag, s string }{{"stdout", so}, {"stderr", se}} {
				for _, l := range strings.Split(strings.TrimSuffix(out.s, "\n"), "\n") {
					if l != "" {
						fmt.Fprintf(&got, "%s: %s\n", out.tag, strings.ReplaceAll(l, dir+"/", ""))
					}
				}
			}
			exp := filepath.Join(tamperedDir, name+".expected")
			if *updateTampered {
				if err := os.WriteFile(exp, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(exp)
			if err != nil {
				t.Fatalf("%v (go test -run TestTamperedCorpus -update writes it)", err)
			}
			if got.String() != string(want) {
				t.Errorf("got:\n%s\nwant (%s):\n%s", got.String(), exp, want)
			}
			good := strings.HasPrefix(name, "good.")
			if good && code != 0 || !good && code != 1 {
				t.Errorf("%s: exit %d", name, code)
			}
			if now, _ := os.ReadFile(p); !bytes.Equal(now, orig) {
				t.Errorf("%s changed by %s", name, cmd)
			}
		})
	}
}

// regenerateTampered writes the corpus: a good WARC.gz of two responses
// (plain and chunked, with digests) and one file per kind of damage, a
// WACZ of it signed with a new P-384 key and its tampered copies.
func regenerateTampered(t *testing.T) {
	os.MkdirAll(tamperedDir, 0o755)
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(tamperedDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	body, msg, cmsg, cstored := checkBodies()
	good := checkRec(warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg)
	chunked := checkRec(warcgen.B32("sha1", "sha1", cmsg), warcgen.B32("sha1", "sha1", cstored), cmsg)
	gz := warcgen.Gzip(good, chunked)
	write("good.warc.gz", gz)
	write("payload-byte.warc.gz", warcgen.Gzip(good, warcgen.Flip(chunked, "hello", "jello")))
	write("http-header-byte.warc.gz", warcgen.Gzip(warcgen.Flip(good, "Server: warcgen", "Server: warcgem"), chunked))
	write("warc-header-byte.warc", append(warcgen.Flip(good, "Content-Length: 1", "Content-Length: 0"), chunked...))
	write("digest-label.warc.gz", warcgen.Gzip(checkRec(warcgen.B32("sha256", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg), chunked))
	write("truncated.warc.gz", gz[:len(gz)-30])

	key := writeKey(t, elliptic.P384())
	mk := func(in string) []byte {
		out := filepath.Join(t.TempDir(), "x.wacz")
		if _, se, code := run(t, nil, "create", "-q", "-o", out, "--title", "Tampered corpus", "--sign-key", key, filepath.Join(tamperedDir, in)); code != 0 {
			t.Fatalf("create from %s: %s", in, se)
		}
		b, _ := os.ReadFile(out)
		return b
	}
	w := mk("good.warc.gz")
	write("good.wacz", w)
	write("payload-byte.wacz", mk("payload-byte.warc.gz"))
	write("truncated.wacz", w[:len(w)-200])

	// a byte of the stored WARC flipped in place, in the first record's payload
	zr, err := zip.NewReader(bytes.NewReader(w), int64(len(w)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "archive/") {
			off, _ := f.DataOffset()
			b := append([]byte(nil), w...)
			b[off+int64(f.CompressedSize64)/4] ^= 0x20
			write("flipped-stored-byte.wacz", b)
		}
	}

	src := filepath.Join(tamperedDir, "good.wacz")
	edit := func(name, entry string, fn func([]byte) []byte) {
		b, err := os.ReadFile(editEntry(t, src, entry, fn))
		if err != nil {
			t.Fatal(err)
		}
		write(name, b)
	}
	edit("bad-signature.wacz", "datapackage-digest.json", func(b []byte) []byte {
		return regexp.MustCompile(`"signature": "[A-Za-z0-9+/]{8}`).ReplaceAll(b, []byte(`"signature": "AAAAAAAA`))
	})
	other, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	spki, _ := x509.MarshalPKIXPublicKey(&other.PublicKey)
	edit("swapped-key.wacz", "datapackage-digest.json", func(b []byte) []byte {
		return regexp.MustCompile(`"publicKey": "[^"]*"`).ReplaceAll(b, []byte(`"publicKey": "`+base64.StdEncoding.EncodeToString(spki)+`"`))
	})
	edit("forged-manifest.wacz", "datapackage.json", func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"title": "Tampered corpus"`), []byte(`"title": "Forged corpus"`), 1)
	})
}
