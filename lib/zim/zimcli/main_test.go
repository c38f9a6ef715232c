package zimcli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if _, err := exec.LookPath("zimdump"); err == nil {
		for _, tc := range [][]string{{"show", "--url", "main.html", zf}, {"list", "--idx", "1", "--details", zf}, {"list", "--url"}} {
			if got, want := viaMain(t, tc...), openzim(tc...); got != want {
				t.Errorf("%q: %+v, openzim %+v", tc, got, want)
			}
		}
	}
}
