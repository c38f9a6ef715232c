package zimdump

import (
	"bytes"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/compio"
)

// TestAppMatchesParser: App, which the man page and the completion
// scripts are written from, has the commands and options the parsers
// take: each openzim command the options `allowed` lists, create the
// options parseCreate takes and createUsage documents.
func TestAppMatchesParser(t *testing.T) {
	app := App(io.Discard)
	longs := map[string]bool{}
	for _, o := range longOpts {
		if o.name != "help" && o.name != "version" {
			longs[o.name] = true
		}
	}
	used := map[string]bool{}
	var cmds []string
	for _, c := range app.Commands {
		cmds = append(cmds, c.Name)
		if c.Name == "create" || c.Name == "completion" {
			continue
		}
		if c.Name == "index" || c.Name == "suggest" { // arcport's (index.go, suggest.go): index_test.go
			continue
		}
		if c.Name == "search" { // arcport's, parsed by runSearch (search.go)
			if len(c.Flags) != 1 || c.Flags[0].Names()[0] != "limit" || !strings.Contains(searchUsage, "--limit N") {
				t.Errorf("search: App's flags %v, runSearch takes --limit", c.Flags)
			}
			continue
		}
		var got []string
		for _, f := range c.Flags {
			got = append(got, f.Names()[0])
			used[f.Names()[0]] = true
		}
		want := append([]string(nil), allowed[c.Name]...)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: App has %v, the parser allows %v", c.Name, got, want)
		}
	}
	for n := range longs {
		if !used[n] {
			t.Errorf("option --%s is in no command of App", n)
		}
	}
	if len(cmds) != len(commands)+5 {
		t.Errorf("App's commands %v, the parser's %d + create, search, index, suggest, completion", cmds, len(commands))
	}

	create := app.Command("create")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  (?:(-[a-z]) |(--[a-z-]+))`).FindAllStringSubmatch(createUsage, -1) {
		documented[strings.TrimLeft(m[1]+m[2], "-")] = true
	}
	inApp := map[string]bool{}
	for _, f := range create.Flags {
		n := f.Names()[0]
		if n == "help" {
			continue
		}
		inApp[n] = true
		args := []string{"-o", "x.zim", "--" + n, "in"}
		if len(n) == 1 {
			args[2] = "-" + n
		}
		if _, ok := f.(interface{ TakesValue() bool }); ok && f.(interface{ TakesValue() bool }).TakesValue() {
			args = []string{"-o", "x.zim", args[2], "1", "in"}
		}
		if _, err := parseCreate(args); err != nil && strings.Contains(err.Error(), "unknown option") {
			t.Errorf("create: App's %s: parseCreate says %v", args[2], err)
		}
		if !documented[n] {
			t.Errorf("create: App's --%s is not in createUsage", n)
		}
	}
	for n := range documented {
		if !inApp[n] {
			t.Errorf("create: createUsage's %s is not in App", n)
		}
	}
	if len(inApp) < 15 {
		t.Errorf("create: only %d options", len(inApp))
	}
}

// TestCompletionCommand: zimdump completion SHELL prints the script,
// another word is bad usage.
func TestCompletionCommand(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		var out, errb bytes.Buffer
		if rc := Run([]string{"completion", sh}, &out, &errb); rc != 0 || !strings.Contains(out.String(), "zimdump") || !strings.Contains(out.String(), "create") {
			t.Errorf("completion %s: %d %q %q", sh, rc, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if rc := Run([]string{"completion", "tcsh"}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "tcsh") {
		t.Errorf("completion tcsh: %d %q", rc, errb.String())
	}
	if rc := Run([]string{"completion"}, &out, &errb); rc != 2 {
		t.Errorf("completion: %d", rc)
	}
}

// TestAppDefaults: the defaults App shows (its flags' Values) are the
// parsers' defaults: create parses the same with and without each one
// given, and warc's --spool-max is compio.DefaultSpoolMax.
func TestAppDefaults(t *testing.T) {
	app := App(io.Discard)
	base := []string{"-o", "x.zim", "in"}
	def, err := parseCreate(base)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range app.Command("create").Flags {
		sf, ok := f.(*cli.StringFlag)
		if !ok || sf.Value == "" {
			continue
		}
		n++
		given, err := parseCreate(append([]string{"--" + sf.Name, sf.Value}, base...))
		if err != nil || !reflect.DeepEqual(given, def) {
			t.Errorf("create --%s %s: %+v %v, the default %+v", sf.Name, sf.Value, given, err, def)
		}
	}
	if n < 3 {
		t.Errorf("only %d create flags with a default", n)
	}
	for _, f := range app.Command("warc").Flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "spool-max" {
			if v, err := compio.ParseSize(sf.Value); err != nil || v != compio.DefaultSpoolMax {
				t.Errorf("warc --spool-max shows %s, the default is %d bytes", sf.Value, compio.DefaultSpoolMax)
			}
		}
	}
}
