package peertest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// A peer check that lets a test pass when the peer is missing (`if
// exec.LookPath(x); err == nil { compare }`, `if <probe>; err != nil {
// return }`, a t.Log saying "not checked") passes under CI too, where every peer must be
// there; one that runs the first zimdump on PATH may run arcport's own.
// TestNoOptionalPeers keeps new ones out of the test sources.

// peerRule is a kind of peer check a test outside this package must not
// make.
type peerRule struct {
	name string
	re   *regexp.Regexp
	fix  string
}

var peerRules = []peerRule{
	{"lookpath", regexp.MustCompile(`\bLookPath\(`),
		"looks a peer up itself: use peertest.Need (or Missing), which fails under CI; e2e: needCmd/needPeer"},
	{"zimdump-on-path", regexp.MustCompile(`\bexec\.Command(Context)?\((ctx, )?"zimdump"|\bNeed\([a-z]+, "zimdump"`),
		"runs the first zimdump on PATH, which may be arcport's: use peertest.OpenzimZimdump"},
	{"optional-warcio", regexp.MustCompile(`\bFindWarcio\(`),
		"lets the test go on without warcio.js: use peertest.Warcio or WarcioCLI"},
	{"logged-not-missing", regexp.MustCompile(`\bt\.(Log|Logf|Skip|Skipf)\(.*(not installed|not on PATH|not checked with|peer check skipped)`),
		"a missing peer logged or skipped by hand: use peertest.Missing (skips loudly, fails under CI)"},
}

// peerProbe is a condition probing for a peer: a command looked up, a
// tool's path tried, a command run to see whether it works.
var peerProbe = regexp.MustCompile(`\bLookPath\(|\bos\.Stat\([^)]*"/usr/|\bexec\.Command\(.*\)\.Run\(\)`)

// silentPeerReturn reports whether lines[i] opens `if <peer probe>; err !=
// nil {` and the block leaves the test or loop quietly (return, continue,
// a skip) instead of through peertest.Missing (or e2e's needPeer).
func silentPeerReturn(lines []string, i int) bool {
	code, _, _ := strings.Cut(lines[i], "//")
	if !peerProbe.MatchString(code) || !strings.Contains(code, "err != nil") || !strings.HasSuffix(strings.TrimSpace(code), "{") {
		return false
	}
	quiet := false
	for _, l := range lines[i+1:] {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "}") {
			break
		}
		if strings.Contains(l, "Missing(") || strings.Contains(l, "needPeer(") || strings.Contains(l, "Fatal") {
			return false
		}
		if l == "return" || strings.HasPrefix(l, "return ") || l == "continue" || strings.Contains(l, ".Skip") {
			quiet = true
		}
	}
	return quiet
}

// peerAllowed are the matches that stay, per file and rule, with how many
// there are (a new one in the same file fails too) and why.
var peerAllowed = []struct {
	file, rule string
	n          int
	why        string
}{
	{"e2e/helpers_test.go", "lookpath", 3,
		"needCmd/needPeer and warcioCLI: e2e's copy of peertest (e2e cannot import lib/internal); they end the test with needPeer, which fails under CI"},
	{"e2e/hostile/zimgen_test.go", "lookpath", 1,
		"needCmd: e2e/hostile's peertest.Need (it cannot import lib/internal either); it ends the test with needPeer, which fails under CI"},
	{"lib/links/encode_test.go", "lookpath", 2,
		"chromium is chromium or chromium-browser depending on the distribution; when neither is there the test ends with peertest.Missing"},
}

// repoRoot is the directory holding go.mod above the working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatal("no go.mod above the working directory")
		}
		d = filepath.Dir(d)
	}
}

// scanPeerChecks returns, for every Go test file under root (outside this
// package, testdata, node_modules and hidden directories), the lines
// breaking a peer rule: "file:rule" -> "file:line: text".
func scanPeerChecks(t *testing.T, root string) map[string][]string {
	t.Helper()
	self := filepath.Join("lib", "internal", "peertest")
	found := map[string][]string{}
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if n := d.Name(); rel != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || rel == self) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		lines := strings.Split(string(b), "\n")
		for i, line := range lines {
			code, _, _ := strings.Cut(line, "//") // comments may name the patterns
			var hit []string
			for _, r := range peerRules {
				if r.re.MatchString(code) {
					hit = append(hit, r.name)
				}
			}
			if silentPeerReturn(lines, i) {
				hit = append(hit, "silent-return")
			}
			for _, name := range hit {
				k := filepath.ToSlash(rel) + ":" + name
				found[k] = append(found[k], fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), i+1, strings.TrimSpace(line)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("scanned %d test files under %s: not the repository", files, root)
	}
	return found
}

// TestNoOptionalPeers scans every _test.go file of the repository and
// fails on a peer check of the kinds peerRules names outside this package
// and the allowed list; an allowed entry that no longer matches must go.
func TestNoOptionalPeers(t *testing.T) {
	found := scanPeerChecks(t, repoRoot(t))
	allowed := map[string]int{}
	for _, a := range peerAllowed {
		allowed[a.file+":"+a.rule] = a.n
	}
	fix := map[string]string{"silent-return": "a missing peer ends the test or loop quietly: use peertest.Missing (fails under CI)"}
	for _, r := range peerRules {
		fix[r.name] = r.fix
	}
	var keys []string
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if n, ok := allowed[k]; ok && n == len(found[k]) {
			continue
		}
		_, rule, _ := strings.Cut(k, ":")
		t.Errorf("%d peer check(s) of kind %s (allowed %d): %s\n\t%s", len(found[k]), rule, allowed[k], fix[rule], strings.Join(found[k], "\n\t"))
	}
	for k, n := range allowed {
		if len(found[k]) == 0 {
			t.Errorf("peerAllowed lists %s (%d), which no longer matches: remove it", k, n)
		}
	}
}

// TestPeerRules: each rule catches the pattern it is for, and not the
// ways peertest is meant to be used.
func TestPeerRules(t *testing.T) {
	bad := map[string]string{
		`	if _, err := exec.LookPath("zimdump"); err == nil {`:                                             "lookpath",
		`	if p, err := exec.LookPath("unzip"); err != nil { return }`:                                      "lookpath",
		`	want, err := exec.Command("zimdump", "show", p).Output()`:                                        "zimdump-on-path",
		`	peertest.Need(t, "zimdump", "zim-tools")`:                                                        "zimdump-on-path",
		`	if node, dir, err := peertest.FindWarcio(); err == nil {`:                                        "optional-warcio",
		`		t.Logf("%v: not checked with warcio.js", err)`:                                                  "logged-not-missing",
		`		t.Skip("unzip not installed")`:                                                                  "logged-not-missing",
		"	if _, err := os.Stat(\"/usr/bin/zimdump\"); err != nil {\n\t\treturn\n\t}":                       "silent-return",
		"	if err := exec.Command(py, \"-c\", \"import libzim\").Run(); err != nil {\n\t\tt.Skip(err)\n\t}": "silent-return",
	}
	good := []string{
		`	zimdump := peertest.OpenzimZimdump(t)`,
		`	py := peertest.Need(t, "python3", "python3")`,
		`	node, cli := peertest.WarcioCLI(t)`,
		`	out, err := exec.Command(zimdump, "show", p).Output()`,
		`		peertest.Missing(t, "zim-tools", "/usr/bin/zimdump not installed")`,
		`		t.Errorf("%s: entry not found", p)`,
		"	if _, err := os.Stat(\"/usr/bin/zimdump\"); err != nil {\n\t\tpeertest.Missing(t, \"zim-tools\", \"/usr/bin/zimdump\")\n\t}",
	}
	for line, want := range bad {
		var got []string
		for _, r := range peerRules {
			if r.re.MatchString(line) {
				got = append(got, r.name)
			}
		}
		if silentPeerReturn(strings.Split(line, "\n"), 0) {
			got = append(got, "silent-return")
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q: rules %v, want [%s]", line, got, want)
		}
	}
	for _, line := range good {
		for _, r := range peerRules {
			if r.re.MatchString(line) {
				t.Errorf("%q: caught by %s", line, r.name)
			}
		}
		if silentPeerReturn(strings.Split(line, "\n"), 0) {
			t.Errorf("%q: caught by silent-return", line)
		}
	}
}
