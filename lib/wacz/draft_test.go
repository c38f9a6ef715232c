package wacz

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// rootFiles lists the zip entries of the WACZ at path that are not in a
// folder, and checks that datapackage.json lists every entry but itself
// and datapackage-digest.json.
func rootFiles(t *testing.T, path string) []string {
	t.Helper()
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if p := r.Validate(); len(p) != 0 {
		t.Fatalf("%s: %v", path, p)
	}
	dp, err := r.DataPackage()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, res := range dp.Resources {
		listed[res.Path] = true
	}
	var root []string
	for _, f := range r.Files() {
		if !strings.Contains(f.Name, "/") {
			root = append(root, f.Name)
		}
		if f.Name != DataPackagePath && f.Name != DataPackageDigestPath && !strings.HasSuffix(f.Name, "/") && !listed[f.Name] {
			t.Errorf("%s: %s not listed in datapackage.json", path, f.Name)
		}
	}
	if r.HasDraftFiles() != (len(root) > 2) {
		t.Errorf("%s: HasDraftFiles %v with root files %v", path, r.HasDraftFiles(), root)
	}
	sort.Strings(root)
	return root
}

// TestDraftFilesOptIn: a WACZ holds the seed draft's webarchive.yaml and
// pages.csv only with Options.DraftFiles (or MergeOptions.DraftFiles);
// add and merge keep them when a WACZ they read has them, and do not add
// them to one that has none.
func TestDraftFilesOptIn(t *testing.T) {
	plainRoot := []string{DataPackageDigestPath, DataPackagePath}
	draftRoot := []string{DataPackageDigestPath, DataPackagePath, PagesCSVPath, WebArchiveYAMLPath}
	want := func(name, path string, root []string) {
		t.Helper()
		if got := rootFiles(t, path); strings.Join(got, " ") != strings.Join(root, " ") {
			t.Errorf("%s: root files %q, want %q", name, got, root)
		}
	}
	ex, res := readTD(t, "example.warc.gz"), readTD(t, "example-resource.warc.gz")
	plain, _, err := buildWACZ(t, Options{}, ex)
	if err != nil {
		t.Fatal(err)
	}
	want("create", plain, plainRoot)
	draft, _, err := buildWACZ(t, Options{DraftFiles: true, Title: "D"}, ex)
	if err != nil {
		t.Fatal(err)
	}
	want("create DraftFiles", draft, draftRoot)

	// add in place: kept as the WACZ had them, or asked for
	cp := func(src string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(t.TempDir(), "x.wacz")
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	for _, c := range []struct {
		name  string
		src   string
		draft bool
		root  []string
	}{
		{"add to plain", plain, false, plainRoot},
		{"add DraftFiles to plain", plain, true, draftRoot},
		{"add to draft", draft, false, draftRoot},
	} {
		p := cp(c.src)
		if _, err := appendInputs(t, p, Options{DraftFiles: c.draft}, res); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want(c.name, p, c.root)
		if c.src == draft {
			r, _ := OpenFile(p)
			rc, err := r.File(PagesCSVPath).Open()
			if err != nil {
				t.Fatal(err)
			}
			b := make([]byte, 4096)
			n, _ := rc.Read(b)
			rc.Close()
			r.Close()
			if lines := strings.Count(string(b[:n]), "\n"); lines != 3 {
				t.Errorf("%s: pages.csv after add has %d lines, want header + 2 pages:\n%s", c.name, lines, b[:n])
			}
		}
	}

	// merge
	merge := func(draftOpt bool, srcs ...string) string {
		t.Helper()
		var rs []*Reader
		for _, s := range srcs {
			r, err := OpenFile(s)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rs = append(rs, r)
		}
		out := filepath.Join(t.TempDir(), "m.wacz")
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := Merge(f, rs, MergeOptions{DraftFiles: draftOpt, TempDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want("merge plain", merge(false, plain, plain), plainRoot)
	want("merge plain DraftFiles", merge(true, plain, plain), draftRoot)
	want("merge plain+draft", merge(false, plain, draft), draftRoot)
}
