package wacz

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

type zipEdit func(name string, data []byte, method uint16) (newData []byte, newMethod uint16, keep bool)

// rewriteZip copies a zip entry by entry through edit, with correct CRCs:
// a content change made this way is only caught by the WACZ hashes.
func rewriteZip(t *testing.T, src string, edit zipEdit) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dst := filepath.Join(t.TempDir(), "edited.wacz")
	f, _ := os.Create(dst)
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		rc, _ := e.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		nd, nm, keep := edit(e.Name, data, e.Method)
		if !keep {
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.Name, Method: nm})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(nd)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// editCDXJ returns an edit that changes the CDXJ lines inside
// indexes/index.cdx.gz (written back as one gzip member).
func editCDXJ(fn func(string) string) zipEdit {
	return func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
		if n != "indexes/index.cdx.gz" {
			return d, m, true
		}
		zr, err := gzip.NewReader(bytes.NewReader(d))
		if err != nil {
			panic(err)
		}
		plain, _ := io.ReadAll(zr)
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		zw.Write([]byte(fn(string(plain))))
		zw.Close()
		return out.Bytes(), m, true
	}
}

func validateFile(t *testing.T, path string) []Problem {
	t.Helper()
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Validate()
}

func hasProblem(probs []Problem, path string, re string) bool {
	rx := regexp.MustCompile(re)
	for _, p := range probs {
		if p.Path == path && rx.MatchString(p.Msg) {
			return true
		}
	}
	return false
}

func goodWACZ(t *testing.T) string {
	t.Helper()
	// with the seed draft's files, so that the byte flips reach them too
	path, _, err := buildWACZ(t, Options{Seeds: []string{"http://example.com/"}, DraftFiles: true}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if probs := validateFile(t, path); len(probs) != 0 {
		t.Fatalf("fresh WACZ not valid: %v", probs)
	}
	return path
}

// TestValidateByteFlip changes bytes of every resource: in the zip file
// itself for STORED entries (the zip CRC and the hash catch it), and in the
// content of every entry, rewritten with a correct CRC (only the WACZ hashes
// can catch it). The problem must name the entry (or, for datapackage.json,
// the digest file that hashes it).
func TestValidateByteFlip(t *testing.T) {
	path := goodWACZ(t)
	zr, _ := zip.OpenReader(path)
	type span struct {
		name     string
		off, len int64
		stored   bool
	}
	var spans []span
	for _, f := range zr.File {
		off, _ := f.DataOffset()
		spans = append(spans, span{f.Name, off, int64(f.UncompressedSize64), f.Method == zip.Store})
	}
	zr.Close()
	if len(spans) != 8 {
		t.Fatalf("%d entries", len(spans))
	}
	orig, _ := os.ReadFile(path)
	named := func(probs []Problem, name string) bool {
		for _, pr := range probs {
			if pr.Path == name || name == DataPackagePath && pr.Path == DataPackageDigestPath {
				return true
			}
		}
		return false
	}
	for _, s := range spans {
		for _, at := range []int64{0, s.len / 2, s.len - 1} {
			if s.stored {
				b := bytes.Clone(orig)
				b[s.off+at] ^= 0x20
				p := filepath.Join(t.TempDir(), "flip.wacz")
				os.WriteFile(p, b, 0o644)
				if probs := validateFile(t, p); !named(probs, s.name) {
					t.Errorf("stored byte %d of %s changed: problems %v", at, s.name, probs)
				}
			}
			p := rewriteZip(t, path, func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
				if n == s.name {
					d[at] ^= 0x01
				}
				return d, m, true
			})
			if probs := validateFile(t, p); !named(probs, s.name) {
				t.Errorf("content byte %d of %s changed: problems %v", at, s.name, probs)
			}
		}
	}
}

func TestValidateCatches(t *testing.T) {
	path := goodWACZ(t)
	cases := []struct {
		name  string
		edit  zipEdit
		path  string // a problem about this path
		match string // matching this
	}{
		{"changed WARC byte", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			if strings.HasPrefix(n, "archive/") {
				d[100] ^= 1
			}
			return d, m, true
		}, "archive/example.warc.gz", `^hash sha256:[0-9a-f]{64}, datapackage.json says sha256:`},
		{"changed pages", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			if n == PagesPath {
				d = bytes.Replace(d, []byte("Example Domain"), []byte("Example Domaim"), 1)
			}
			return d, m, true
		}, PagesPath, `^hash `},
		{"longer idx", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			if n == "indexes/index.idx" {
				d = append(d, '\n')
			}
			return d, m, true
		}, "indexes/index.idx", `^size \d+, datapackage.json says \d+`},
		{"idx block past the end", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			if n == "indexes/index.idx" {
				d = regexp.MustCompile(`"length": \d+`).ReplaceAll(d, []byte(`"length": 9999`))
			}
			return d, m, true
		}, "indexes/index.idx", `range 0\+9999 outside indexes/index.cdx.gz`},
		{"changed manifest", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			if n == DataPackagePath {
				d = bytes.Replace(d, []byte(`"data-package"`), []byte(`"data-packagf"`), 1)
			}
			return d, m, true
		}, DataPackageDigestPath, `^hash sha256:.*, datapackage.json hashes to sha256:`},
		{"missing index", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			return d, m, !strings.HasPrefix(n, IndexesDir)
		}, IndexesDir, `^no CDXJ index`},
		{"missing pages", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			return d, m, n != PagesPath
		}, PagesPath, `^missing`},
		{"missing manifest", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			return d, m, n != DataPackagePath
		}, DataPackagePath, `^missing`},
		{"deflated WARC", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			if strings.HasPrefix(n, ArchiveDir) {
				m = zip.Deflate
			}
			return d, m, true
		}, "archive/example.warc.gz", `^compressed in the zip \(method 8\)`},
		{"index past the end", editCDXJ(func(s string) string {
			return strings.Replace(s, `"offset":"2621"`, `"offset":"3800"`, 1)
		}), "indexes/index.cdx.gz", `offset 3800 \+ length 586 is past the end of archive/example.warc.gz \(3816 bytes\)`},
		{"index not at a member", editCDXJ(func(s string) string {
			return strings.Replace(s, `"offset":"2621"`, `"offset":"2622"`, 1)
		}), "indexes/index.cdx.gz", `offset 2622 in archive/example.warc.gz is not the start of a gzip member`},
		{"unsorted index", editCDXJ(func(s string) string {
			lines := strings.SplitAfter(s, "\n")
			return lines[1] + lines[0]
		}), "indexes/index.cdx.gz", `not sorted`},
		{"deflated cdx.gz", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			if n == "indexes/index.cdx.gz" {
				m = zip.Deflate
			}
			return d, m, true
		}, "indexes/index.cdx.gz", `^compressed in the zip \(method 8\): .cdx.gz must be STORED`},
		{"bad page ts", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			if n == PagesPath {
				d = bytes.Replace(d, []byte(`"ts":"2017-03-06T04:02:06Z"`), []byte(`"ts":"20170306040206"`), 1)
			}
			return d, m, true
		}, PagesPath, `line 2: ts "20170306040206" is not an RFC 3339 datetime`},
		{"extra file", func(n string, d []byte, m uint16) ([]byte, uint16, bool) {
			return d, m, true
		}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := rewriteZip(t, path, c.edit)
			probs := validateFile(t, p)
			if c.match == "" {
				if len(probs) != 0 {
					t.Errorf("unchanged copy: %v", probs)
				}
				return
			}
			if !hasProblem(probs, c.path, c.match) {
				t.Errorf("no problem %s: /%s/; got %v", c.path, c.match, probs)
			}
		})
	}
}

func TestValidateNotZip(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("WARC/1.0\r\n"), readTD(t, "example.warc.gz").data} {
		_, err := Open(bytes.NewReader(data), int64(len(data)), "x.wacz")
		if err == nil || !strings.Contains(err.Error(), "x.wacz: not a readable zip file") {
			t.Errorf("Open(%d bytes): %v", len(data), err)
		}
	}
}
