package waczpack

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/samples"
)

func run(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	var so, se bytes.Buffer
	code := Run(args, bytes.NewReader(stdin), &so, &se)
	return so.String(), se.String(), code
}

func mustRead(t *testing.T, name string) []byte {
	b, err := os.ReadFile(samples.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dirFiles lists a directory (to see that nothing is left behind).
func dirFiles(t *testing.T, dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestCreateValidateListGet(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ex.wacz")
	_, se, code := run(t, nil, "-o", out, "--title", "T", "--url", "http://example.com/", "-v", samples.Path("example.warc.gz"))
	if code != 0 {
		t.Fatalf("create: %d %s", code, se)
	}
	if !strings.Contains(se, "2 captures, 1 pages") {
		t.Errorf("summary %q", se)
	}
	so, se, code := run(t, nil, "validate", out)
	if code != 0 || so != out+": valid WACZ 1.1.1\n" {
		t.Errorf("validate: %d %q %q", code, so, se)
	}
	so, _, code = run(t, nil, "ls", out)
	want := "20170306040206 200 text/html http://example.com/\n20170306040348 200 text/html http://example.com/ (revisit of 20170306040206)\n"
	if code != 0 || so != want {
		t.Errorf("ls: %d\n%s\nwant\n%s", code, so, want)
	}
	so, _, _ = run(t, nil, "ls", "--json", out)
	var c map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(so, "\n", 2)[0]), &c); err != nil || c["offset"] != float64(784) || c["length"] != float64(1228) || c["filename"] != "example.warc.gz" {
		t.Errorf("ls --json: %v %v", c, err)
	}
	// get, flags after the arguments
	so, se, code = run(t, nil, "get", out, "http://example.com/", "--ts", "20170306040348", "--headers")
	if code != 0 || !strings.HasPrefix(so, "HTTP/1.1 200 OK\r\n") || !strings.Contains(so, "<title>Example Domain</title>") {
		t.Errorf("get: %d %q %q", code, so[:min(len(so), 80)], se)
	}
	_, se, code = run(t, nil, "get", out, "http://example.com/nothing")
	if code != 1 || !strings.Contains(se, "not found in the index") {
		t.Errorf("get missing: %d %q", code, se)
	}
	if got := dirFiles(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v", got)
	}
}

func TestCreateStdinARC(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "arc.wacz")
	if _, se, code := run(t, mustRead(t, "example.arc.gz"), "create", "-o", out); code != 0 {
		t.Fatalf("create: %d %s", code, se)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if zr.File[0].Name != "archive/data.warc.gz" {
		t.Errorf("stdin's WARC is %s", zr.File[0].Name)
	}
}

func TestBadInput(t *testing.T) {
	trunc := mustRead(t, "example.warc.gz")
	trunc = trunc[:len(trunc)-700]
	cases := []struct {
		name  string
		stdin []byte
		args  []string
		code  int
		msg   string
	}{
		{"truncated", nil, []string{"CUT"}, 1, "cut.warc.gz: record at offset 2621: "},
		{"garbage stdin", []byte("<html>not an archive</html>"), nil, 1, "waczpack: -: not a WARC or ARC file (starts with \"<html>not an archive</ht\")"},
		{"empty stdin", []byte{}, []string{"-"}, 1, "waczpack: -: empty input"},
		{"missing file", nil, []string{"/nonexistent/x.warc"}, 1, "no such file or directory"},
		{"no output", nil, []string{"NOO"}, 2, "create needs -o OUT.wacz"},
		{"bad hash", nil, []string{"--hash", "sha1", "IN"}, 2, "--hash must be sha256 or md5"},
		{"bad split", nil, []string{"--split", "12Q", "IN"}, 2, "--split: bad size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.wacz")
			cut := filepath.Join(dir, "cut.warc.gz")
			os.WriteFile(cut, trunc, 0o644)
			args := []string{"-o", out}
			for _, a := range c.args {
				switch a {
				case "CUT":
					a = cut
				case "IN":
					a = samples.Path("example.warc.gz")
				case "NOO":
					args = nil
					a = samples.Path("example.warc.gz")
				}
				args = append(args, a)
			}
			_, se, code := run(t, c.stdin, args...)
			if code != c.code || !strings.Contains(se, c.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, se, c.code, c.msg)
			}
			if strings.Count(strings.TrimSpace(se), "\n") > 0 {
				t.Errorf("more than one line: %q", se)
			}
			if got := dirFiles(t, dir); len(got) != 1 || got[0] != "cut.warc.gz" {
				t.Errorf("left behind: %v", got)
			}
		})
	}
}

func TestValidateCLI(t *testing.T) {
	dir := t.TempDir()
	notzip := filepath.Join(dir, "x.wacz")
	os.WriteFile(notzip, mustRead(t, "example.warc"), 0o644)
	_, se, code := run(t, nil, "validate", notzip)
	if code != 1 || se != "waczpack: "+notzip+": not a readable zip file: zip: not a valid zip file\n" {
		t.Errorf("non-zip: %d %q", code, se)
	}
	// a WACZ with a deflated WARC and no pages: one line per problem
	good := filepath.Join(dir, "good.wacz")
	if _, se, code := run(t, nil, "-o", good, samples.Path("example.warc.gz")); code != 0 {
		t.Fatal(se)
	}
	zr, _ := zip.OpenReader(good)
	bad := filepath.Join(dir, "bad.wacz")
	f, _ := os.Create(bad)
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		if e.Name == "pages/pages.jsonl" {
			continue
		}
		m := e.Method
		if strings.HasPrefix(e.Name, "archive/") {
			m = zip.Deflate
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: e.Name, Method: m})
		rc, _ := e.Open()
		io.Copy(w, rc)
		rc.Close()
	}
	zw.Close()
	f.Close()
	zr.Close()
	so, se, code := run(t, nil, "validate", bad)
	lines := strings.Split(strings.TrimSpace(se), "\n")
	want := []string{
		bad + ": pages/pages.jsonl: listed in datapackage.json but not in the zip",
		bad + ": archive/example.warc.gz: compressed in the zip (method 8): WARC files must be STORED for random access",
		bad + ": pages/pages.jsonl: missing (WACZ 1.1.1 requires it)",
	}
	if code != 1 || so != "" || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("validate bad: %d\n%s\nwant\n%s", code, se, strings.Join(want, "\n"))
	}
}

func TestIndexCLI(t *testing.T) {
	so, se, code := run(t, nil, "index", samples.Path("example.warc.gz"))
	want := `com,example)/ 20170306040206 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"1228","offset":"784","filename":"example.warc.gz"}
com,example)/ 20170306040348 {"url":"http://example.com/","mime":"warc/revisit","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"586","offset":"2621","filename":"example.warc.gz"}
`
	if code != 0 || so != want {
		t.Errorf("index: %d %s\n%s", code, se, so)
	}
	so, _, code = run(t, mustRead(t, "example.arc.gz"), "index", "--cdx11")
	if code != 0 || !strings.HasPrefix(so, " CDX N b a m s k r M S V g\ncom,example)/ 20140216050221 http://example.com/ text/html 200 ") {
		t.Errorf("index --cdx11 of ARC on stdin: %d %q", code, so)
	}
}

func TestReorder(t *testing.T) {
	cases := []struct{ in, out string }{
		{"get x.wacz http://a/ --ts 2020", "get --ts 2020 -- x.wacz http://a/"},
		{"-o x.wacz a.warc --title T b.warc", "create -o x.wacz --title T -- a.warc b.warc"},
		{"a.warc -o x.wacz -- -odd", "create -o x.wacz -- a.warc -odd"},
		{"ls --json x.wacz", "ls --json -- x.wacz"},
		{"--version", "--version"},
	}
	for _, c := range cases {
		if got := strings.Join(Reorder(strings.Fields(c.in)), " "); got != c.out {
			t.Errorf("%q -> %q, want %q", c.in, got, c.out)
		}
	}
}
