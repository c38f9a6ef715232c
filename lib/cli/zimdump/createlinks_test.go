package zimdump

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/zim"
)

// TestCreateKeepsUnchangedLinks: zimdump create from a folder leaves a
// page's bytes as they are when none of its links has to change (links
// to entries written with lower-case escapes, "./", "../", fragments); a
// link that must change (a folder, a root-relative path, a missing file)
// is rewritten and the rest of that page stays as it was.
func TestCreateKeepsUnchangedLinks(t *testing.T) {
	unchanged := `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Caf&eacute;s</title>
<link rel="stylesheet" href="./style.css"></head><body><p><a href="caf%c3%a9.html">caf&eacute;</a>
<a href="sub/page%20two.html#top">two</a> <a href="caf%C3%A9.html#menu">menu</a> <img src="img/a%2Bb.png"></p></body></html>`
	changed := `<html><head><title>Sub</title></head><body><a href="../caf%c3%a9.html">up</a>
<a href="/index.html">root</a> <a href="../">folder</a></body></html>`
	files := map[string]string{
		"index.html":        unchanged,
		"café.html":         `<html><head><title>Caf</title></head><body><a href="index.html">home</a></body></html>`,
		"style.css":         `body { background: url("img/a%2bb.png") }`,
		"img/a+b.png":       "\x89PNG\r\n\x1a\n",
		"sub/page two.html": changed,
	}
	site := t.TempDir()
	for name, body := range files {
		p := filepath.Join(site, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "links.zim")
	if r := ours("create", "--no-index", "-o", out, site); r.rc != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	a, err := zim.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, p := range []string{"index.html", "café.html", "style.css"} {
		if _, got := readEntry(t, a, p); got != files[p] {
			t.Errorf("%s changed:\n%s\nwas\n%s", p, got, files[p])
		}
	}
	_, got := readEntry(t, a, "sub/page two.html")
	for _, want := range []string{`href="../caf%c3%a9.html"`, `href="../index.html">root`, `href="../index.html">folder`} {
		if !strings.Contains(got, want) {
			t.Errorf("sub/page two.html: no %s in\n%s", want, got)
		}
	}
	zimcheckA(t, out)
}
