// Tests that hold the documentation to the code: every command and flag
// the command-line definitions know appears in the binary's page under
// docs/, and every relative link in README.md and docs/*.md leads to a
// file of the repository (and a #anchor to a heading of that file).
//
//	go test ./lib/cli/ -run TestDocs -count=1
package cli_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/arcport/arcport/lib/cli/arc2warc"
	"github.com/arcport/arcport/lib/cli/htcache"
	"github.com/arcport/arcport/lib/cli/mirrorget"
	"github.com/arcport/arcport/lib/cli/waczpack"
	"github.com/arcport/arcport/lib/cli/zimdump"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/urfave/cli/v2"
)

// root is the repository root, seen from this package's folder.
const root = "../.."

// cmdFlags is what one command (or a binary without commands) takes.
type cmdFlags struct {
	cmd   string   // "" for the binary itself
	flags []string // names as typed: "-o", "--spool-max"
}

// binFlags is one binary's command line as its definition gives it.
type binFlags struct {
	bin    string
	cmds   []cmdFlags
	common []string // flags every action takes (storage flags, --help, --version): anywhere in the page
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// fromApp walks a urfave/cli App after cliutil.Prepare, as the binary
// runs it (Prepare adds the storage flags to every action and the
// completion command).
func fromApp(bin string, app *cli.App) binFlags {
	cliutil.Prepare(app)
	common := map[string]bool{}
	for _, f := range cliutil.StorageFlags() {
		for _, n := range f.Names() {
			common[dashed(n)] = true
		}
	}
	return walkApp(bin, app, common)
}

// walkApp lists the commands and flags of app; the flags in common (and
// --help, --version) may be documented anywhere in the page.
func walkApp(bin string, app *cli.App, common map[string]bool) binFlags {
	for _, n := range []string{"--help", "--version", "-h"} {
		common[n] = true
	}
	b := binFlags{bin: bin}
	for n := range common {
		b.common = append(b.common, n)
	}
	sort.Strings(b.common)
	names := func(fs []cli.Flag) []string {
		var out []string
		for _, f := range fs {
			for _, n := range f.Names() {
				if d := dashed(n); !common[d] {
					out = append(out, d)
				}
			}
		}
		return out
	}
	if len(app.Flags) > 0 || len(app.Commands) == 0 {
		b.cmds = append(b.cmds, cmdFlags{flags: names(app.Flags)})
	}
	var walk func(prefix string, cs []*cli.Command)
	walk = func(prefix string, cs []*cli.Command) {
		for _, c := range cs {
			if c.Name == "help" {
				continue
			}
			b.cmds = append(b.cmds, cmdFlags{cmd: prefix + c.Name, flags: names(c.Flags)})
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", app.Commands)
	return b
}

// zimdumpFlags: zimdump parses its arguments as openzim's docopt does,
// not through urfave/cli; zimdump.App describes that command line (held
// to the parsers by TestAppMatchesParser) for its man page and completion.
func zimdumpFlags() binFlags {
	return walkApp("zimdump", zimdump.App(io.Discard), map[string]bool{})
}

func allBinaries() []binFlags {
	return []binFlags{
		fromApp("arc2warc", arc2warc.NewApp(nil, io.Discard, io.Discard)),
		fromApp("waczpack", waczpack.App(nil, io.Discard, io.Discard)),
		fromApp("htcache", htcache.NewApp(io.Discard, io.Discard)),
		zimdumpFlags(),
		fromApp("mirrorget", mirrorget.App()),
	}
}

// mentions reports whether text names the flag as a word of its own:
// "--max-size" is not found in "--max-size-html", "-o" not in "-O".
func mentions(text, flag string) bool {
	re := regexp.MustCompile(`(?:^|[^\w-])` + regexp.QuoteMeta(flag) + `(?:$|[^\w-])`)
	return re.MatchString(text)
}

// heading is one Markdown heading line of a page.
type heading struct {
	level int
	text  string
	line  int
}

// headings lists the ATX headings outside fenced code blocks.
func headings(lines []string) []heading {
	var hs []heading
	fence := ""
	for i, l := range lines {
		trim := strings.TrimSpace(l)
		if f := fenceOf(trim); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(trim, fence) && strings.TrimLeft(trim, fence[:1]) == "":
				fence = ""
			}
			continue
		}
		if fence != "" || !strings.HasPrefix(l, "#") {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "#"))
		if n > 6 || (len(l) > n && l[n] != ' ') {
			continue
		}
		hs = append(hs, heading{level: n, text: strings.TrimSpace(strings.TrimRight(strings.TrimSpace(l[n:]), "#")), line: i})
	}
	return hs
}

func fenceOf(trim string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trim, f) {
			return trim[:len(trim)-len(strings.TrimLeft(trim, f[:1]))]
		}
	}
	return ""
}

// section returns the lines under the first heading that names cmd (as
// "BIN CMD" or `CMD`), up to the next heading of the same or a higher level.
func section(lines []string, bin, cmd string) (string, bool) {
	hs := headings(lines)
	re := regexp.MustCompile(`(?:\b` + regexp.QuoteMeta(bin+" "+cmd) + "|`" + regexp.QuoteMeta(cmd) + "`)" + `(?:$|[^\w-])`)
	for i, h := range hs {
		if !re.MatchString(h.text) {
			continue
		}
		end := len(lines)
		for _, n := range hs[i+1:] {
			if n.level <= h.level {
				end = n.line
				break
			}
		}
		return strings.Join(lines[h.line:end], "\n"), true
	}
	return "", false
}

// TestDocsFlags: every command of every binary has a heading in
// docs/BIN.md, every flag of a command appears in that command's section
// (the whole page for a binary without commands), and the flags every
// command takes appear somewhere in the page.
func TestDocsFlags(t *testing.T) {
	for _, b := range allBinaries() {
		t.Run(b.bin, func(t *testing.T) {
			page := filepath.Join(root, "docs", b.bin+".md")
			data, err := os.ReadFile(page)
			if err != nil {
				t.Fatalf("%s: %v", page, err)
			}
			text := string(data)
			lines := strings.Split(text, "\n")
			for _, f := range b.common {
				if !mentions(text, f) {
					t.Errorf("docs/%s.md: flag %s is not documented", b.bin, f)
				}
			}
			for _, c := range b.cmds {
				where, name := text, "the page"
				if c.cmd != "" {
					s, ok := section(lines, b.bin, c.cmd)
					if !ok {
						t.Errorf("docs/%s.md: no heading names the command %q (\"## %s %s\")", b.bin, c.cmd, b.bin, c.cmd)
						continue
					}
					where, name = s, fmt.Sprintf("the section of %q", c.cmd)
				}
				for _, f := range c.flags {
					if !mentions(where, f) {
						t.Errorf("docs/%s.md: flag %s is not in %s", b.bin, f, name)
					}
				}
			}
		})
	}
}

// TestDocsFlagsFound guards the test above against reading nothing.
func TestDocsFlagsFound(t *testing.T) {
	want := map[string][2]int{ // at least this many commands and flags
		"arc2warc": {1, 10}, "waczpack": {10, 40}, "htcache": {5, 10}, "zimdump": {8, 20}, "mirrorget": {1, 50},
	}
	for _, b := range allBinaries() {
		n := 0
		for _, c := range b.cmds {
			n += len(c.flags)
		}
		if w := want[b.bin]; len(b.cmds) < w[0] || n < w[1] {
			t.Errorf("%s: %d commands and %d flags found, want at least %d and %d", b.bin, len(b.cmds), n, w[0], w[1])
		}
	}
}

// docPages are the pages whose links are checked.
func docPages(t *testing.T) []string {
	pages := []string{filepath.Join(root, "README.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(more) == 0 {
		t.Fatal("no docs/*.md")
	}
	return append(pages, more...)
}

var (
	inlineLinkRe = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLinkRe    = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	codeSpanRe   = regexp.MustCompile("`+[^`]*`+")
	htmlIDRe     = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// proseLines returns the page's lines with fenced code blocks blanked and
// code spans removed: links are not read inside code.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, l := range lines {
		trim := strings.TrimSpace(l)
		if f := fenceOf(trim); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(trim, fence) && strings.TrimLeft(trim, fence[:1]) == "":
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if fence != "" {
			lines[i] = ""
			continue
		}
		lines[i] = codeSpanRe.ReplaceAllString(l, "")
	}
	return lines
}

// links lists the link targets of a page with their line numbers.
func links(text string) (targets []string, lineNos []int) {
	for i, l := range proseLines(text) {
		for _, m := range inlineLinkRe.FindAllStringSubmatch(l, -1) {
			targets, lineNos = append(targets, m[1]), append(lineNos, i+1)
		}
		for _, m := range refLinkRe.FindAllStringSubmatch(l, -1) {
			targets, lineNos = append(targets, m[1]), append(lineNos, i+1)
		}
	}
	return targets, lineNos
}

var slugLinkRe = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading: the rendered text lowered, every
// character but letters, digits, spaces, hyphens and underscores dropped,
// spaces made hyphens.
func slug(h string) string {
	h = slugLinkRe.ReplaceAllString(h, "$1")
	h = regexp.MustCompile(`<[^>]+>`).ReplaceAllString(h, "")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors lists the anchors of a Markdown page: its headings' slugs (a
// repeated slug gets -1, -2, ... as on GitHub) and explicit <a id|name>.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	for _, h := range headings(strings.Split(text, "\n")) {
		s := slug(h.text)
		if n := count[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		count[s]++
	}
	for _, m := range htmlIDRe.FindAllStringSubmatch(text, -1) {
		out[m[1]] = true
	}
	return out
}

// TestDocsLinks: every relative link of README.md and docs/*.md names a
// file or folder of the repository, and every #anchor a heading of the
// page it points into.
func TestDocsLinks(t *testing.T) {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		targets, lineNos := links(string(data))
		for i, target := range targets {
			where := fmt.Sprintf("%s:%d: %s", rel, lineNos[i], target)
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				if strings.HasPrefix(file, "/") {
					dest = filepath.Join(abs, file)
				} else {
					dest = filepath.Join(filepath.Dir(page), file)
				}
				d, _ := filepath.Abs(dest)
				if d != abs && !strings.HasPrefix(d, abs+string(filepath.Separator)) {
					t.Errorf("%s: leads out of the repository", where)
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: no such file in the repository", where)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: an anchor into a file that is not Markdown", where)
				continue
			}
			text, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if !anchors(string(text))[anchor] {
				t.Errorf("%s: no heading with the anchor #%s in %s", where, anchor, filepath.Base(dest))
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link found in README.md and docs/*.md")
	}
}

// TestDocsSlug holds slug to GitHub's anchors for headings like ours.
func TestDocsSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Exit status":                             "exit-status",
		"`waczpack index`: CDXJ and ZipNum":       "waczpack-index-cdxj-and-zipnum",
		"Updates, revisits and deduplication":     "updates-revisits-and-deduplication",
		"zimdump create: writing a ZIM for Kiwix": "zimdump-create-writing-a-zim-for-kiwix",
		"Stopping & continuing (a crawl)":         "stopping--continuing-a-crawl",
		"s3://, https://, local and -":            "s3-https-local-and--",
		"The [docs](docs/x.md) table":             "the-docs-table",
		"Données_brutes":                          "données_brutes",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
	a := anchors("# A\n## A\n```\n# not a heading\n```\n### A\n")
	for _, want := range []string{"a", "a-1", "a-2"} {
		if !a[want] {
			t.Errorf("anchors: no %q in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Error("a line in a code block taken for a heading")
	}
}

// TestReadmeShort: the front page stays a front page.
func TestReadmeShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n > 200 {
		t.Errorf("README.md has %d lines, at most 200: move reference into docs/", n)
	}
}
