package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/cli/clidoc"
)

var cliBinaries = []string{"arc2warc", "waczpack", "htcache", "zimdump", "mirrorget"}

// gitOut runs git in the repository and returns its output without the
// trailing newline ("" when it fails).
func gitOut(args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = repoRoot()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// goBuildWith builds ./cmd/name into dir with extra go build flags.
func goBuildWith(t *testing.T, dir, name string, flags ...string) string {
	t.Helper()
	args := append([]string{"build"}, flags...)
	args = append(args, "-o", filepath.Join(dir, name), "./cmd/"+name)
	cmd := exec.Command("go", args...)
	cmd.Dir = repoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return filepath.Join(dir, name)
}

func versionOf(t *testing.T, bin string) string {
	t.Helper()
	out, stderr, code := run(t, bin, nil, "--version")
	if code != 0 || stderr != "" {
		t.Fatalf("%s --version: exit %d, %q", bin, code, stderr)
	}
	return string(out)
}

// TestVersion: --version of every binary prints one line, "arcport
// VERSION (COMMIT)": built as the Makefile builds (git describe and the
// commit through -ldflags), with go build and the VCS information the go
// command records (go install's way), and without either.
func TestVersion(t *testing.T) {
	head := gitOut("rev-parse", "--short", "HEAD")
	if head == "" {
		t.Skip("not a git checkout")
	}
	// plain go build (the e2e binaries): the same line from every binary
	var first string
	for _, b := range cliBinaries {
		v := versionOf(t, bin(t, b))
		if !regexp.MustCompile(`^arcport (v[0-9]+\.[0-9]+\.[0-9]+\S*|dev)( \([0-9a-f]{7,}(-dirty)?\))?\n$`).MatchString(v) {
			t.Errorf("%s --version: %q", b, v)
		}
		if first == "" {
			first = v
		} else if v != first {
			t.Errorf("%s --version %q, arc2warc's %q", b, v, first)
		}
	}

	dir := t.TempDir()
	// as make build: VERSION=$(git describe --tags --always --dirty), COMMIT=$(git rev-parse --short HEAD)
	// (others may commit meanwhile: the commit is the one describe or rev-parse named)
	describe := gitOut("describe", "--tags", "--always", "--dirty")
	commit := gitOut("rev-parse", "--short", "HEAD")
	const pkg = "github.com/arcport/arcport/lib/internal/cliutil"
	ld := "-X " + pkg + ".Version=" + describe + " -X " + pkg + ".Commit=" + commit
	v := versionOf(t, goBuildWith(t, dir, "waczpack", "-ldflags", ld))
	want := `^arcport dev \([0-9a-f]{7,}(-dirty)?\)\n$` // no tag reachable
	if tag := gitOut("describe", "--tags", "--abbrev=0"); tag != "" {
		want = `^arcport ` + regexp.QuoteMeta(tag) + `(\+[0-9]+)? \([0-9a-f]{7,}(-dirty)?\)\n$`
	}
	t.Logf("plain go build: %q; make's -ldflags (describe %s): %q", first, describe, v)
	if !regexp.MustCompile(want).MatchString(v) {
		t.Errorf("make's -ldflags (describe %q): --version %q, want %s", describe, v, want)
	}
	if c := regexp.MustCompile(`\(([0-9a-f]+)`).FindStringSubmatch(v); c == nil || c[1] != commit && !strings.Contains(describe, c[1]) {
		t.Errorf("describe %q, commit %s: --version %q", describe, commit, v)
	}
	if strings.HasSuffix(describe, "-dirty") != strings.Contains(v, "-dirty)") {
		t.Errorf("describe %q, --version %q", describe, v)
	}
	// a fixed describe: the exact line
	ld = "-X " + pkg + ".Version=v0.8.0-3-g" + head + " -X " + pkg + ".Commit=" + head
	if v := versionOf(t, goBuildWith(t, dir, "arc2warc", "-ldflags", ld)); v != "arcport v0.8.0+3 ("+head+")\n" {
		t.Errorf("describe v0.8.0-3-g%s: --version %q", head, v)
	}
	// no -ldflags, VCS information recorded: the commit from debug.ReadBuildInfo
	v = versionOf(t, goBuildWith(t, dir, "zimdump", "-buildvcs=true"))
	t.Logf("go build -buildvcs=true: %q", v)
	// (others may commit meanwhile: HEAD before or after the build)
	heads := regexp.QuoteMeta(head) + "|" + regexp.QuoteMeta(gitOut("rev-parse", "--short", "HEAD"))
	if !regexp.MustCompile(`^arcport v\S+ \((` + heads + `)(-dirty)?\)\n$`).MatchString(v) {
		t.Errorf("go build -buildvcs=true: --version %q (HEAD %s)", v, heads)
	}
}

// TestCompletionBinary: `source <(waczpack completion bash)` in bash
// completes the commands, as a user's shell would with the binary on PATH.
func TestCompletionBinary(t *testing.T) {
	bash := needCmd(t, "bash", "bash")
	dir := filepath.Dir(bin(t, "waczpack"))
	// the commands each binary defines, in order (the App the binary runs)
	commands := map[string]string{}
	for _, app := range clidoc.Apps(io.Discard) {
		var names []string
		for _, c := range app.Commands {
			if !c.Hidden && c.Name != "help" {
				names = append(names, c.Name)
			}
		}
		commands[app.Name] = strings.Join(names, " ")
	}
	for _, b := range []string{"waczpack", "htcache", "zimdump"} {
		if !strings.Contains(commands[b], "completion") || strings.Count(commands[b], " ") < 4 {
			t.Fatalf("%s's App defines the commands %q", b, commands[b])
		}
	}
	for _, tc := range []struct{ bin, words, want string }{
		{"waczpack", `waczpack ""`, commands["waczpack"]},
		{"waczpack", `waczpack index --zip`, "--zipnum"},
		{"htcache", `htcache ""`, commands["htcache"]},
		{"zimdump", `zimdump ""`, commands["zimdump"]},
		{"zimdump", `zimdump create --cl`, "--cluster-size"},
		{"arc2warc", `arc2warc --warc`, "--warc-version"},
		{"mirrorget", `mirrorget --fr`, "--frontier"},
	} {
		prog := `source <(` + tc.bin + ` completion bash) || exit 9
COMP_WORDS=(` + tc.words + `); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_arcport_` + tc.bin + ` || exit 8
echo "${COMPREPLY[*]}"`
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		cmd.Dir = t.TempDir() // no file names to complete
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != tc.want {
			t.Errorf("%s <TAB>: %v %q, want %q", tc.words, err, out, tc.want)
		}
	}
}

// TestManPage: `man ./man/arc2warc.1` renders the page (man-db reads a
// name with a slash as a file).
func TestManPage(t *testing.T) {
	man := needCmd(t, "man", "man-db")
	for _, b := range cliBinaries {
		cmd := exec.Command(man, "./man/"+b+".1")
		cmd.Dir = repoRoot()
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=100")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), strings.ToUpper(b)+"(1)") || !strings.Contains(string(out), "SHELL COMPLETION") {
			t.Errorf("man ./man/%s.1: %v\n%s", b, err, out)
		}
	}
}
