package clidoc

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// manDir is the repository's man/, seen from this package's folder.
const manDir = "../../../man"

// TestManUpToDate: man/BIN.1 is what `make man` writes now from the
// command-line definitions (run it after changing a flag or a command).
func TestManUpToDate(t *testing.T) {
	for _, app := range Apps(io.Discard) {
		name := filepath.Join(manDir, app.Name+".1")
		have, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%v (make man writes it)", err)
			continue
		}
		if want := Man(app); string(have) != want {
			t.Errorf("%s is not what the definitions give: run make man\n%s", name, firstDiff(string(have), want))
		}
	}
	pages, _ := filepath.Glob(filepath.Join(manDir, "*.1"))
	if len(pages) != len(Binaries) {
		t.Errorf("man/ holds %d pages, not %d: %v", len(pages), len(Binaries), pages)
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ: " + strconv.Itoa(len(al)) + " vs " + strconv.Itoa(len(bl)) + " lines"
}

// TestManRenders: man -l renders each page (man-db, groff) without a
// warning, with its NAME, every option of the binary and every command.
func TestManRenders(t *testing.T) {
	man := peertest.Need(t, "man", "man-db")
	for _, app := range Apps(io.Discard) {
		page := filepath.Join(manDir, app.Name+".1")
		cmd := exec.Command(man, "--warnings=w", "-l", page)
		cmd.Env = append(os.Environ(), "MANWIDTH=200", "MANPAGER=cat", "PAGER=cat", "MAN_KEEP_FORMATTING=0", "LC_ALL=C.UTF-8")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil || errb.Len() > 0 {
			t.Errorf("man -l %s: %v\n%s", page, err, errb.String())
			continue
		}
		text := regexp.MustCompile(".\b").ReplaceAllString(out.String(), "") // overstrike, if any
		if !strings.Contains(text, "NAME\n       "+app.Name+" - ") {
			t.Errorf("%s: no NAME section:\n%s", page, text)
		}
		flags := append([]cli.Flag(nil), app.Flags...)
		for _, c := range app.Commands {
			if !strings.Contains(text, app.Name+" "+c.Name) {
				t.Errorf("%s: command %s not rendered", page, c.Name)
			}
			flags = append(flags, c.Flags...)
		}
		for _, f := range flags {
			for _, n := range f.Names() {
				d := "--" + n
				if len(n) == 1 {
					d = "-" + n
				}
				if !regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(d) + `\b`).MatchString(text) {
					t.Errorf("%s: flag %s not rendered", page, d)
				}
			}
		}
	}
}

// completion returns what `BIN completion SHELL` prints, run through the
// App as the binary runs it.
func completion(t *testing.T, app *cli.App, shell string) string {
	var out bytes.Buffer
	app.Writer = &out
	if app.Name == "zimdump" {
		t.Fatal("zimdump's completion runs through zimdump.Run")
	}
	if err := app.Run([]string{app.Name, "completion", shell}); err != nil {
		t.Fatalf("%s completion %s: %v", app.Name, shell, err)
	}
	return out.String()
}

// complete sources script in bash, sets COMP_WORDS to words (the last is
// the word being completed) and calls the completion function that
// `complete -p BIN` names; it returns COMPREPLY, one word a line.
func complete(t *testing.T, bash, script, bin string, words ...string) []string {
	t.Helper()
	dir := t.TempDir()
	sp := filepath.Join(dir, "completion.bash")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	prog := `set -u
source <(cat "$1") || exit 9
fn=$(complete -p ` + bin + ` | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
[ -n "$fn" ] || { echo "no completion function for ` + bin + `" >&2; exit 8; }
COMP_WORDS=(` + strings.Join(quoted, " ") + `)
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
"$fn" ` + bin + ` "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" || exit 7
printf '%s\n' "${COMPREPLY[@]}"
`
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog, "bash", sp)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || errb.Len() > 0 {
		t.Fatalf("bash: %v\n%s", err, errb.String())
	}
	var got []string
	for _, l := range strings.Split(out.String(), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	return got
}

func has(list []string, want ...string) bool {
	m := map[string]bool{}
	for _, w := range list {
		m[w] = true
	}
	for _, w := range want {
		if !m[w] {
			return false
		}
	}
	return true
}

// TestCompletionBash: `source <(BIN completion bash)` in a real bash, then
// the completion function as bash calls it on TAB: commands after the
// binary, a command's flags after "-", the shells after "completion".
func TestCompletionBash(t *testing.T) {
	bash := peertest.Need(t, "bash", "bash")
	apps := map[string]*cli.App{}
	for _, a := range Apps(io.Discard) {
		apps[a.Name] = a
	}
	w := completion(t, apps["waczpack"], "bash")
	if got := complete(t, bash, w, "waczpack", "waczpack", ""); !has(got, "create", "index", "validate", "check", "ls", "get", "lookup", "extract", "merge", "add", "completion") {
		t.Errorf("waczpack <TAB>: %q", got)
	}
	if got := complete(t, bash, w, "waczpack", "waczpack", "va"); strings.Join(got, " ") != "validate" {
		t.Errorf("waczpack va<TAB>: %q", got)
	}
	// every long flag of index that starts with --s, in definition order
	// (--sort --shards --shard and the batch flags)
	var wantS []string
	for _, c := range apps["waczpack"].Commands {
		if c.Name != "index" {
			continue
		}
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if len(n) > 1 && strings.HasPrefix(n, "s") {
					wantS = append(wantS, "--"+n)
				}
			}
		}
	}
	if len(wantS) < 3 {
		t.Fatalf("waczpack index has only %q starting with --s", wantS)
	}
	if got := complete(t, bash, w, "waczpack", "waczpack", "index", "--s"); strings.Join(got, " ") != strings.Join(wantS, " ") {
		t.Errorf("waczpack index --s<TAB>: %q, want %q", got, wantS)
	}
	if got := complete(t, bash, w, "waczpack", "waczpack", "create", "-o", ""); len(got) != 0 {
		t.Errorf("waczpack create -o <TAB> (file names): %q", got)
	}
	if got := complete(t, bash, w, "waczpack", "waczpack", "completion", ""); strings.Join(got, " ") != "bash zsh fish" {
		t.Errorf("waczpack completion <TAB>: %q", got)
	}
	a := completion(t, apps["arc2warc"], "bash")
	if got := complete(t, bash, a, "arc2warc", "arc2warc", "--le"); strings.Join(got, " ") != "--level" {
		t.Errorf("arc2warc --le<TAB>: %q", got)
	}
	h := completion(t, apps["htcache"], "bash")
	if got := complete(t, bash, h, "htcache", "htcache", "e"); strings.Join(got, " ") != "export" {
		t.Errorf("htcache e<TAB>: %q", got)
	}
	m := completion(t, apps["mirrorget"], "bash")
	if got := complete(t, bash, m, "mirrorget", "mirrorget", "--max-s"); !has(got, "--max-size", "--max-size-html", "--max-size-other", "--max-segment-repeat") {
		t.Errorf("mirrorget --max-s<TAB>: %q", got)
	}
}
