// Package clidoc writes what is made from the command-line definitions of
// the five binaries: their man pages (make man: man/BIN.1) and, through
// cliutil, their completion scripts. Its tests hold the definitions to
// themselves: a default shown in a help text is the real one.
package clidoc

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/cli/arc2warc"
	"github.com/arcport/arcport/lib/cli/htcache"
	"github.com/arcport/arcport/lib/cli/mirrorget"
	"github.com/arcport/arcport/lib/cli/waczpack"
	"github.com/arcport/arcport/lib/cli/zimdump"
	"github.com/arcport/arcport/lib/internal/cliutil"
)

// Apps returns the Apps of the five binaries as they run (after
// cliutil.Prepare, which adds the storage flags and the completion
// command), writing to w; zimdump's is the App that describes its
// docopt command line.
func Apps(w io.Writer) []*cli.App {
	apps := []*cli.App{
		arc2warc.NewApp(nil, w, w),
		waczpack.App(nil, w, w),
		htcache.NewApp(w, w),
		mirrorget.App(),
	}
	for _, a := range apps {
		cliutil.Prepare(a)
		a.Writer, a.ErrWriter = w, w
	}
	return append(apps, zimdump.App(w))
}

// Binaries are the names of the five binaries, in the order of Apps.
var Binaries = []string{"arc2warc", "waczpack", "htcache", "mirrorget", "zimdump"}

// Man returns the man page (section 1, roff) of app. Each option is
// written as --help shows it (urfave/cli's FlagStringer: names, value
// placeholder, usage and default), so the page says what --help says.
func Man(app *cli.App) string {
	var b strings.Builder
	name := app.Name
	fmt.Fprintf(&b, ".\\\" %s(1): written by `make man` (go run ./scripts/mangen) from the command-line definitions; do not edit.\n", name)
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"arcport\" \"arcport manual\"\n", strings.ToUpper(name))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", name, text(app.Usage))
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	usage := app.UsageText
	if usage == "" {
		usage = name + " [options] command [command options] [arguments ...]"
	}
	for _, l := range strings.Split(usage, "\n") {
		b.WriteString(line(strings.TrimSpace(l)) + "\n")
	}
	b.WriteString(".fi\n")
	if app.Description != "" {
		b.WriteString(".SH DESCRIPTION\n")
		paragraphs(&b, app.Description)
	}
	fs := visible(app.Flags)
	if !app.HideHelp {
		fs = append(fs, cli.HelpFlag)
	}
	if !app.HideVersion {
		fs = append(fs, cli.VersionFlag)
	}
	if len(fs) > 0 {
		b.WriteString(".SH OPTIONS\n")
		flags(&b, fs)
	}
	var cmds []*cli.Command
	for _, c := range app.Commands {
		if !c.Hidden {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, c := range cmds {
			head := name + " " + strings.Join(c.Names(), ", ")
			if c.ArgsUsage != "" {
				head += " " + c.ArgsUsage
			}
			fmt.Fprintf(&b, ".SS \"%s\"\n", strings.ReplaceAll(line(head), `"`, `\(dq`))
			if c.Usage != "" {
				b.WriteString(line(c.Usage) + "\n")
			}
			if c.UsageText != "" {
				b.WriteString(".PP\n.nf\n")
				for _, l := range strings.Split(strings.Trim(c.UsageText, "\n"), "\n") {
					b.WriteString(line(strings.TrimSpace(l)) + "\n")
				}
				b.WriteString(".fi\n")
			}
			if c.Description != "" {
				b.WriteString(".PP\n")
				paragraphs(&b, c.Description)
			}
			if fs := visible(c.Flags); len(fs) > 0 {
				flags(&b, fs)
			}
		}
	}
	b.WriteString(".SH EXIT STATUS\n0 on success, 1 when something failed or was found damaged (each problem on one line of standard error), 2 for bad usage.\n")
	b.WriteString(".SH SHELL COMPLETION\n.nf\n")
	fmt.Fprintf(&b, "%s\n%s\n%s\n", line("source <("+name+" completion bash)"), line("source <("+name+" completion zsh)"), line(name+" completion fish | source"))
	b.WriteString(".fi\n.SH SEE ALSO\n")
	var see []string
	for _, o := range Binaries {
		if o != name {
			see = append(see, "\\fB"+o+"\\fR(1)")
		}
	}
	b.WriteString(strings.Join(see, ", ") + "\n")
	return b.String()
}

// visible returns the flags that --help shows.
func visible(fs []cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, f := range fs {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue
		}
		out = append(out, f)
	}
	return out
}

// flags writes one .TP paragraph per flag: the names as --help shows them
// in bold, then the usage with its default.
func flags(b *strings.Builder, fs []cli.Flag) {
	for _, f := range fs {
		names, usage, _ := strings.Cut(cli.FlagStringer(f), "\t")
		b.WriteString(".TP\n")
		b.WriteString("\\fB" + text(names) + "\\fR\n")
		b.WriteString(line(usage) + "\n")
	}
}

// paragraphs writes text, a blank line between paragraphs becoming .PP.
func paragraphs(b *strings.Builder, s string) {
	for i, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		b.WriteString(line(strings.Join(strings.Fields(p), " ")) + "\n")
	}
}

// text escapes s for roff: backslashes and hyphens (\- so that an option
// copied from the page is typed with ASCII hyphens).
func text(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// line is text for a line of its own: a leading . or ' would be a request.
func line(s string) string {
	s = text(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
