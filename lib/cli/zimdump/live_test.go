package zimdump

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// needPeers ends t with peertest.Missing unless openzim's zimdump (at its
// package path, never the first zimdump on PATH, which may be arcport's)
// and python3-libzim are here.
func needPeers(t *testing.T) {
	t.Helper()
	openzimPeer(t)
	if err := exec.Command("/usr/bin/python3", "-c", "import libzim").Run(); err != nil {
		peertest.Missing(t, "python3-libzim", "/usr/bin/python3 cannot import libzim")
	}
}

// makeZim writes a ZIM with testdata/zim/gen/make_zim.py (python3-libzim).
func makeZim(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), strings.Join(args, "-")+".zim")
	cmd := exec.Command("/usr/bin/python3", append([]string{filepath.Join(fixtures, "gen", "make_zim.py"), args[0], out}, args[1:]...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make_zim.py %v: %v\n%s", args, err, b)
	}
	return out
}

type result struct {
	stdout, stderr string
	rc             int
}

// openzimPath is openzim's zimdump once openzimPeer has checked it.
var openzimPath string

// openzimPeer returns openzim's zimdump (peertest.OpenzimZimdump: its
// package path, its --version naming zim-tools and libzim) or ends t.
func openzimPeer(t testing.TB) string {
	t.Helper()
	if openzimPath == "" {
		openzimPath = peertest.OpenzimZimdump(t)
	}
	return openzimPath
}

// openzim runs openzim's zimdump with args.
func openzim(t testing.TB, args ...string) result {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(openzimPeer(t), args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	}
	// openzim ends argument errors with 255 too; arcport's zimdump with 2
	if rc == 255 && strings.HasPrefix(o.String(), "\n"+usage) {
		rc = exitArgs
	}
	return result{o.String(), e.String(), Status(rc)}
}

func ours(args ...string) result {
	var o, e bytes.Buffer
	rc := Run(args, &o, &e)
	return result{o.String(), e.String(), rc}
}

// TestLiveVsOpenzim runs openzim's zimdump and ours on ZIMs written by
// python3-libzim (zstd and uncompressed, with redirects, long names,
// "../" names, unicode and query characters) and on the fixtures, over
// every --idx, every --url (with and without namespace), several --ns
// prefixes and the argument errors: stdout, stderr and exit status must be
// identical.
func TestLiveVsOpenzim(t *testing.T) {
	needPeers(t)
	zims := []string{makeZim(t, "edge", "zstd"), makeZim(t, "edge", "none"),
		filepath.Join(fixtures, "withns/small.zim"), filepath.Join(fixtures, "nons/small.zim"),
		filepath.Join(fixtures, "withns/wikibooks_be_all_nopic_2017-02.zim"),
		filepath.Join(fixtures, "noTitleListingV0/wikibooks_be_all_nopic_2017-02.zim")}
	var cases [][]string
	for _, z := range zims {
		cases = append(cases, []string{"info", z}, []string{"list", z}, []string{"list", "--details", z})
		paths := strings.Split(strings.TrimSuffix(openzim(t, "list", z).stdout, "\n"), "\n")
		if len(paths) > 25 {
			paths = paths[:25]
		}
		for _, p := range paths {
			cases = append(cases, []string{"list", "--url=" + p, z}, []string{"show", "--url=" + p, z},
				[]string{"list", "--details", "--url", "C/" + p, z}, []string{"show", "--url=/A/" + p, z})
		}
		for _, i := range []string{"-1", "0", "1", "5", "16", "21", "22", "35", "36", "200", "4294967296", "abc", " 3", "+2", "3x", ""} {
			cases = append(cases, []string{"list", "--idx=" + i, z}, []string{"list", "--details", "--idx", i, z}, []string{"show", "--idx=" + i, z})
		}
		for _, ns := range []string{"A", "C", "M", "X", "-", "I", "", "/", "A/", "a", "r", "long", "dé", "Z"} {
			cases = append(cases, []string{"list", "--ns=" + ns, z}, []string{"list", "--details", "--ns=" + ns, z})
		}
		for _, u := range []string{"nonexist", "main.html", "A/main.html", "M/Title", "W/mainPage", "-/favicon", "", "/"} {
			cases = append(cases, []string{"list", "--url=" + u, z}, []string{"show", "--url=" + u, "--ns=A", z})
		}
	}
	z := zims[0]
	for _, a := range []string{"", "list", "list --bogus Z", "list --idx=1 --url=x Z", "show Z", "dump Z", "info Z extra",
		"list --idx", "list --d Z", "list --det Z", "info nonexist.zim", "list --details --details Z",
		"list --ns=A --idx=2 Z", "list --url Z", "dump --dir= Z", "info Z --ns=X", "show --ns=A --idx=1 Z",
		"show --ns=A Z", "list -- Z", "list Z --", "-h", "--help", "list --help Z"} {
		c := strings.Fields(strings.ReplaceAll(a, "Z", z))
		cases = append(cases, c)
	}
	t.Logf("%d command lines compared", len(cases))
	for _, c := range cases {
		want, got := openzim(t, c...), ours(c...)
		if len(c) > 0 && (c[0] == "-h" || c[0] == "--help" || (len(c) > 1 && c[1] == "--help")) {
			// our help adds the arcport extensions after openzim's text
			if !strings.HasPrefix(got.stdout, want.stdout) || got.rc != want.rc {
				t.Errorf("%q: help differs", c)
			}
			continue
		}
		if got != want {
			t.Errorf("zimdump %q\n got rc=%d stdout=%.300q stderr=%q\nwant rc=%d stdout=%.300q stderr=%q",
				c, got.rc, got.stdout, got.stderr, want.rc, want.stdout, want.stderr)
		}
	}
}

// tree describes a directory: relative path -> type, mode and content or
// link target.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			m[rel] = "link " + l
		case fi.IsDir():
			m[rel] = fmt.Sprintf("dir %v", fi.Mode().Perm())
		default:
			b, _ := os.ReadFile(p)
			m[rel] = fmt.Sprintf("file %v %q", fi.Mode().Perm(), b)
		}
		return nil
	})
	return m
}

func diffTrees(t *testing.T, got, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("%s:\n got %.200s\nwant %.200s", k, got[k], want[k])
		}
	}
}

// TestDumpVsOpenzim dumps python3-libzim archives and fixtures with both
// tools, with and without --redirect, and compares the trees (names, long
// name truncation, modes, bytes, HTML refresh stubs, link targets, the
// _exceptions folder) and the messages.
func TestDumpVsOpenzim(t *testing.T) {
	needPeers(t)
	zims := []string{makeZim(t, "edge", "zstd", "safe"), makeZim(t, "edge", "none", "safe"),
		filepath.Join(fixtures, "withns/small.zim"), filepath.Join(fixtures, "nons/wikibooks_be_all_nopic_2017-02.zim"),
		filepath.Join(fixtures, "withns/wikibooks_be_all_nopic_2017-02.zim")}
	for i, z := range zims {
		for _, redirect := range []bool{false, true} {
			dir := t.TempDir()
			if i == 0 && !redirect {
				// a folder that is not empty: names taken by folders
				// fail at their place and go to the errors folder
				for _, side := range []string{"/ref/", "/ours/"} {
					for _, p := range []string{"index.html/x", "img.png/y", "a/b/c.html/z"} {
						if err := os.MkdirAll(dir+side+p, 0o755); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			args := func(d string) []string {
				a := []string{"dump", "--dir=" + d + "/"}
				if redirect {
					a = append(a, "--redirect")
				}
				return append(a, z)
			}
			want := openzim(t, args(dir+"/ref")...)
			got := ours(args(dir + "/ours")...)
			if got.rc != want.rc || got.stdout != want.stdout ||
				strings.ReplaceAll(got.stderr, dir+"/ours", "D") != strings.ReplaceAll(want.stderr, dir+"/ref", "D") {
				t.Errorf("%s redirect=%v: got %+v, want %+v", z, redirect, got, want)
			}
			diffTrees(t, tree(t, dir+"/ours"), tree(t, dir+"/ref"))
		}
	}
}
