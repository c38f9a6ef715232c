package zimdump

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/zimtest"
)

// TestMain lets the tests run Main itself, in a child process: with
// ZIMCLI_MAIN set, the test binary is zimdump and ZIMCLI_MAIN holds its
// arguments separated by US (0x1F) characters.
func TestMain(m *testing.M) {
	if v, ok := os.LookupEnv("ZIMCLI_MAIN"); ok {
		os.Args = append([]string{"zimdump"}, strings.Split(v, "\x1f")...)
		Main()
	}
	os.Exit(m.Run())
}

// viaMain runs Main in a child process with args as the command line.
func viaMain(t *testing.T, args ...string) result {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "ZIMCLI_MAIN="+strings.Join(args, "\x1f"))
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{o.String(), e.String(), rc}
}

// TestMainArguments: the command line reaches the docopt-like parser as
// typed. Regression: options were moved in front of the command, so
// "warc -o FILE" (as the help shows it) and "show --url PATH" took the
// command for the option's value and failed with "Arguments did not match
// expected patterns".
func TestMainArguments(t *testing.T) {
	zf := filepath.Join(fixtures, "nons/small.zim")
	dir := t.TempDir()
	for _, tc := range [][]string{
		{"show", "--url", "main.html", zf},
		{"show", zf, "--url", "main.html"},
		{"list", "--details", "--idx", "1", zf},
		{"list", zf, "--url", "main.html", "--details"},
		{"info", zf},
		{"warc", "-o", filepath.Join(dir, "a.warc.gz"), zf},
		{"warc", zf, "-o", filepath.Join(dir, "b.warc.gz")},
		{"list", "--idx"},
		{"show", "--bogus", zf},
	} {
		got, want := viaMain(t, tc...), ours(tc...)
		if got != want {
			t.Errorf("%q: Main gives %+v, Run %+v", tc, got, want)
		}
	}
	// the -o files are what --output writes
	ref := filepath.Join(dir, "ref.warc.gz")
	if r := viaMain(t, "warc", "--output="+ref, zf); r.rc != 0 {
		t.Fatalf("--output: %+v", r)
	}
	want, _ := os.ReadFile(ref)
	for _, n := range []string{"a.warc.gz", "b.warc.gz"} {
		if got, err := os.ReadFile(filepath.Join(dir, n)); err != nil || len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s: %v, %d bytes, --output wrote %d", n, err, len(got), len(want))
		}
	}
	// openzim's own commands through Main print what openzim prints
	if r := viaMain(t, "show", "--url", "main.html", zf); r.rc != 0 || !strings.HasPrefix(r.stdout, "<html>") || r.stderr != "" {
		t.Errorf("show --url main.html: %+v", r)
	}
	for _, tc := range [][]string{{"show", "--url", "main.html", zf}, {"list", "--idx", "1", "--details", zf}, {"list", "--url"}} {
		want := openzim(t, tc...) // ends t when openzim's zimdump is missing (fails under CI)
		if got := viaMain(t, tc...); got != want {
			t.Errorf("%q: %+v, openzim %+v", tc, got, want)
		}
	}
}

// TestExtensionFailures: meta, warc and --json, the arcport commands and
// options, fail as the house rule says: exit 1, one line "zimdump: FILE: offset N: reason" on
// stderr, naming the entry when one was being read; warc -o leaves no
// file. openzim's commands keep openzim's "Exception: ..." (exit 1 where openzim gives 255).
func TestExtensionFailures(t *testing.T) {
	bad := filepath.Join(fixtures, "nons/invalid.outofbounds_clusterptrpos.zim")
	missing := filepath.Join(t.TempDir(), "nothing.zim")
	// an XZ cluster whose block check (CRC64, as the xz package writes
	// it) is wrong: the data decodes, the check does not match
	var checkAt, clusterAt uint64
	spec := zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: 4}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "a.html", Mime: "text/html", Data: []byte("<p>a</p>")},
			{NS: 'M', Path: "Title", Mime: "text/plain", Data: []byte("T")},
		},
		Patch: func(b []byte, o zimtest.Offsets) {
			st := b[o.Clusters[0]+1 : o.ClusterPtr]
			back := int(binary.LittleEndian.Uint32(st[len(st)-8:])+1) * 4
			at := len(st) - 12 - back - 8 // the check, before the index
			st[at] ^= 1
			checkAt, clusterAt = o.Clusters[0]+1+uint64(at), o.Clusters[0]
		},
	}
	badXZ := writeZim(t, spec)
	xzWant := fmt.Sprintf(`zimdump: BADXZ: offset %d: cluster 0 at offset %d: xz: block check mismatch \([0-9a-f]{16} stored, [0-9a-f]{16} computed\)`, checkAt, clusterAt)
	tests := []struct {
		args   []string
		stderr string // regexp
	}{
		{[]string{"warc", "-o", "OUT", bad}, `zimdump: BAD: offset 41165: Cluster pointer table outside \(or not fully inside\) ZIM file\.`},
		{[]string{"meta", bad}, `zimdump: BAD: offset 41165: Cluster pointer table outside \(or not fully inside\) ZIM file\.`},
		{[]string{"warc", "-o", "OUT", missing}, `zimdump: MISSING: no such file or directory`},
		{[]string{"meta", "--json", missing}, `zimdump: MISSING: no such file or directory`},
		{[]string{"info", "--json", bad}, `zimdump: BAD: offset 41165: Cluster pointer table outside \(or not fully inside\) ZIM file\.`},
		{[]string{"list", "--json", missing}, `zimdump: MISSING: no such file or directory`},
		{[]string{"list", "--json", "--url=nothere", badXZ}, `zimdump: BADXZ: entry nothere: entry not found`},
		{[]string{"warc", "-o", "OUT", badXZ}, xzWant + ` \(entry C/a\.html\)`},
		{[]string{"meta", badXZ}, xzWant + ` \(entry M/Title\)`},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		args := append([]string(nil), tc.args...)
		for i, a := range args {
			if a == "OUT" {
				args[i] = filepath.Join(dir, "x.warc.gz")
			}
		}
		re := regexp.MustCompile("^" + strings.NewReplacer("BADXZ", regexp.QuoteMeta(badXZ), "BAD", regexp.QuoteMeta(bad), "MISSING", regexp.QuoteMeta(missing)).Replace(tc.stderr) + "\n$")
		r := ours(args...)
		if r.rc != 1 || !re.MatchString(r.stderr) {
			t.Errorf("%q: rc %d, stderr %q, want %s", tc.args, r.rc, r.stderr, re)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%q: left %v", tc.args, ents)
		}
	}
	// openzim's commands: openzim's wording and status
	if r := ours("show", "--url=a.html", badXZ); r.rc != 1 || r.stdout != "" || r.stderr != "Entry not found\n" {
		t.Errorf("show: %+v", r)
	}
	if r := ours("info", bad); r.rc != 1 || r.stdout != "Exception: Cluster pointer table outside (or not fully inside) ZIM file.\n" {
		t.Errorf("info: %+v", r)
	}
}
