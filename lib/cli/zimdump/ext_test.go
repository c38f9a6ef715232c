package zimdump

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/zimtest"
)

func writeZim(t *testing.T, s zimtest.Spec) string {
	t.Helper()
	b, _, err := zimtest.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "t.zim")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDumpStaysInside: names that climb out of the folder ("../x",
// "/abs", "a/../../x", deep "../"), redirects with such names, as HTML
// stubs and as symlinks: nothing is written outside --dir and every link
// resolves inside it.
func TestDumpStaysInside(t *testing.T) {
	spec := zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: 5}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "../x.html", Mime: "text/html", Data: []byte("x")},
			{NS: 'C', Path: "../../../../../../tmp/pwned", Mime: "text/plain", Data: []byte("p")},
			{NS: 'C', Path: "/abs", Mime: "text/plain", Data: []byte("abs")},
			{NS: 'C', Path: "a/../../y", Mime: "text/plain", Data: []byte("y")},
			{NS: 'C', Path: "b/c", Mime: "text/html", Data: []byte("c")},
			{NS: 'C', Path: "../r.html", Target: "C/b/c"},
			{NS: 'C', Path: "b/../../../link", Target: "C/../x.html"},
			{NS: 'C', Path: "d/e/f/../../../../../../up", Target: "C//abs"},
		},
	}
	z := writeZim(t, spec)
	for _, redirect := range []bool{false, true} {
		parent := t.TempDir()
		dir := filepath.Join(parent, "out")
		args := []string{"dump", "--dir=" + dir}
		if redirect {
			args = append(args, "--redirect")
		}
		if r := ours(append(args, z)...); r.rc != 0 {
			t.Fatalf("dump: %+v", r)
		}
		ents, _ := os.ReadDir(parent)
		if len(ents) != 1 || ents[0].Name() != "out" {
			t.Fatalf("written outside: %v", ents)
		}
		got := tree(t, dir)
		for rel, want := range map[string]string{
			"%2E%2E/x.html":     `file -rw-r--r-- "x"`,
			"abs":               `file -rw-r--r-- "abs"`,
			"a/%2E%2E/%2E%2E/y": `file -rw-r--r-- "y"`,
			"%2E%2E/%2E%2E/%2E%2E/%2E%2E/%2E%2E/%2E%2E/tmp/pwned": `file -rw-r--r-- "p"`,
		} {
			if got[rel] != want {
				t.Errorf("redirect=%v %s: %q, want %q", redirect, rel, got[rel], want)
			}
		}
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.Mode()&os.ModeSymlink == 0 {
				return err
			}
			real, err := filepath.EvalSymlinks(p)
			if err == nil && !strings.HasPrefix(real, dir+"/") {
				t.Errorf("link %s resolves outside: %s", p, real)
			}
			if err != nil {
				if l, _ := os.Readlink(p); strings.HasPrefix(l, "/") {
					t.Errorf("absolute link %s -> %s", p, l)
				}
			}
			return nil
		})
		if redirect {
			if got["%2E%2E/r.html"] != "link ../b/c" {
				t.Errorf("symlink redirect: %q", got["%2E%2E/r.html"])
			}
		} else if !strings.Contains(got["%2E%2E/r.html"], `url=../b/c`) {
			t.Errorf("stub redirect: %q", got["%2E%2E/r.html"])
		}
	}
}

// TestExtensions covers check, meta, --json and --offset on the fixtures.
func TestExtensions(t *testing.T) {
	small := filepath.Join(fixtures, "withns/small.zim")
	if r := ours("check", small); r.rc != 0 || r.stdout != "" {
		t.Errorf("check small.zim: %+v", r)
	}
	bad := filepath.Join(fixtures, "nons/invalid.outofbounds_last_title_entry.zim")
	r := ours("check", bad)
	want := bad + ": offset 41139: checksum mismatch: stored dbf4ab7c1de668876332193f53556af9, computed b47227310fc5ffdcfa37b4b7f6498b49\n" +
		bad + ": offset 40522: title pointer list: Invalid title index entry 15: 16 (16 entries)\n"
	if r.rc != 1 || r.stdout != want {
		t.Errorf("check invalid: rc %d\n%s\nwant\n%s", r.rc, r.stdout, want)
	}
	r = ours("check", filepath.Join(fixtures, "nons/invalid.nonsorted_dirent_table.zim"))
	if r.rc != 1 || r.stdout != filepath.Join(fixtures, "nons/invalid.nonsorted_dirent_table.zim")+": offset 40995: Dirent table is not properly sorted: #0: C/main.html #1: C/favicon.png\n" {
		t.Errorf("check unopenable: %+v", r)
	}
	r = ours("meta", small)
	// values as `zimdump show --url=M/<name>` prints them
	wantMeta := "Counter: image/png=1;text/html=1;\nCreator: =\nDate: 2020-11-15\nDescription: =\nFlavour: \nLanguage: =en\nName: \nPublisher: =\nScraper: \nSource: \nTags: _ftindex:yes;_ftindex\nTitle: =Test ZIM file\n"
	if r.rc != 0 || r.stdout != wantMeta {
		t.Errorf("meta:\n%s\nwant\n%s", r.stdout, wantMeta)
	}
	r = ours("info", "--json", filepath.Join(fixtures, "nons/small.zim"))
	var info map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || r.rc != 0 {
		t.Fatalf("info --json: %v %+v", err, r)
	}
	if info["uuid"] != "3581ae7e-edd5-7e6c-d2f1-c0cab073643f" || info["entries"] != 2.0 || info["all_entries"] != 16.0 ||
		info["main_page"] != "main.html" || info["favicon"] != "Illustration_48x48@1" || info["version"] != "6.1" {
		t.Errorf("info --json: %s", r.stdout)
	}
	r = ours("list", "--json", small)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 17 || lines[0] != `{"idx":0,"path":"-/favicon","namespace":"-","title":"favicon","type":"redirect","redirect_index":2,"redirect_path":"I/favicon.png"}` ||
		lines[1] != `{"idx":1,"path":"A/main.html","namespace":"A","title":"Test ZIM file","type":"item","mime":"text/html","size":207,"cluster":0,"blob":11}` {
		t.Errorf("list --json:\n%s", r.stdout)
	}
	// embedded archive through --offset (its size taken from the header's
	// checksum position): same output as the plain file
	for _, v := range []string{"withns", "nons"} {
		plain := ours("list", "--details", filepath.Join(fixtures, v, "small.zim"))
		emb := ours("list", "--details", "--offset=8", filepath.Join(fixtures, v, "small.zim.embedded"))
		if plain != emb || plain.rc != 0 {
			t.Errorf("%s embedded: %+v", v, emb)
		}
	}
}

// TestArgumentErrors pins the docopt behaviour observed with zimdump 3.1.3.
func TestArgumentErrors(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string
	}{
		{nil, "Arguments did not match expected patterns"},
		{[]string{"list"}, "Arguments did not match expected patterns"},
		{[]string{"list", "--bogus", "x.zim"}, "Unexpected argument: list, --bogus, x.zim"},
		{[]string{"show", "--idx=1", "--url=x", "x.zim"}, "Unexpected argument: show, --idx=1, --url=x, x.zim"},
		{[]string{"list", "--d", "x.zim"}, "'--d' is not a unique prefix: --details, --dir"},
		{[]string{"list", "--idx"}, "--idx requires an argument"},
		{[]string{"list", "--idx", "", "x.zim"}, "--idx requires an argument"},
		{[]string{"info", "a", "b"}, "Unexpected argument: info, a, b"},
		{[]string{"list", "x.zim", "--"}, "Unexpected argument: list, x.zim, --"},
		{[]string{"dump", "x.zim"}, "Arguments did not match expected patterns"},
	}
	for _, tc := range tests {
		r := ours(tc.args...)
		if r.rc != 2 || r.stderr != tc.stderr || r.stdout != "\n"+usage+"\n" {
			t.Errorf("%q: rc %d stderr %q", tc.args, r.rc, r.stderr)
		}
	}
	if r := ours("info", "/nonexistent/x.zim"); r.rc != 1 || r.stdout != "Exception: error 2 opening file \"/nonexistent/x.zim\n" {
		t.Errorf("missing file: %+v", r)
	}
}
