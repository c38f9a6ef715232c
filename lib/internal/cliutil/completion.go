package cliutil

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// The completion scripts are written from the App itself (its commands and
// their flags), so they hold what --help shows and nothing else: the shell
// runs no arcport binary while completing. Words that are not flags or
// commands are completed as file names by the shell.

// compFlag is a flag as the completion scripts see it.
type compFlag struct {
	names []string // with their dashes: -o, --level
	usage string
	value bool // takes a value
}

// compCmd is a command (or, with no names, the App's own level).
type compCmd struct {
	names []string
	usage string
	flags []compFlag
	args  []string // the words its arguments can be (none: file names)
}

// compModel is what a completion script is made from.
type compModel struct {
	name  string
	files bool // the App's own level takes file arguments (it has an Action)
	top   compCmd
	cmds  []compCmd
}

// CompletionShells are the shells CompletionScript writes for.
var CompletionShells = []string{"bash", "zsh", "fish"}

// CompletionScript writes the completion script of app for shell (bash,
// zsh or fish) to w. files says whether the App's own level takes file
// arguments besides its commands.
func CompletionScript(w io.Writer, app *cli.App, shell string, files bool) error {
	m := modelOf(app, files)
	switch shell {
	case "bash":
		return m.bash(w)
	case "zsh":
		return m.zsh(w)
	case "fish":
		return m.fish(w)
	}
	return Usagef("completion: unknown shell %q: one of %s", shell, strings.Join(CompletionShells, ", "))
}

// completionCommand is the "completion" command that Prepare adds to app;
// files says whether app's own level takes file arguments.
func completionCommand(app *cli.App, files bool) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish (bash: source <(" + app.Name + " completion bash))",
		UsageText: app.Name + " completion bash|zsh|fish",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return Usagef("completion: name one shell: %s", strings.Join(CompletionShells, ", "))
			}
			return CompletionScript(c.App.Writer, app, c.Args().First(), files)
		},
	}
}

func modelOf(app *cli.App, files bool) compModel {
	m := compModel{name: app.Name, files: files}
	m.top = compCmd{flags: compFlags(app.VisibleFlags(), true)}
	for _, c := range app.VisibleCommands() {
		cc := compCmd{names: c.Names(), usage: c.Usage, flags: compFlags(c.VisibleFlags(), false)}
		if c.Name == "completion" {
			cc.args = CompletionShells
		}
		m.cmds = append(m.cmds, cc)
	}
	return m
}

// compFlags converts flags, adding --help (and at the top, --version)
// when the App has not been set up yet.
func compFlags(fs []cli.Flag, top bool) []compFlag {
	var out []compFlag
	seen := map[string]bool{}
	for _, f := range fs {
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			continue
		}
		cf := compFlag{usage: oneLineUsage(df.GetUsage()), value: df.TakesValue()}
		for _, n := range df.Names() {
			n = strings.TrimSpace(n)
			seen[n] = true
			if len(n) == 1 {
				cf.names = append(cf.names, "-"+n)
			} else {
				cf.names = append(cf.names, "--"+n)
			}
		}
		out = append(out, cf)
	}
	if !seen["help"] {
		out = append(out, compFlag{names: []string{"--help", "-h"}, usage: "show help"})
	}
	if top && !seen["version"] {
		out = append(out, compFlag{names: []string{"--version"}, usage: "print the version"})
	}
	return out
}

// oneLineUsage is a usage text without urfave's backquotes and newlines.
func oneLineUsage(u string) string {
	u = strings.ReplaceAll(u, "`", "")
	return strings.Join(strings.Fields(u), " ")
}

func (c compCmd) words() (all, valued []string) {
	for _, f := range c.flags {
		all = append(all, f.names...)
		if f.value {
			valued = append(valued, f.names...)
		}
	}
	return all, valued
}

func (m compModel) cmdNames() []string {
	var n []string
	for _, c := range m.cmds {
		n = append(n, c.names...)
	}
	return n
}

// fn is the name of the shell function.
func (m compModel) fn() string { return "_arcport_" + strings.ReplaceAll(m.name, "-", "_") }

func (m compModel) bash(w io.Writer) error {
	fn := m.fn()
	b := &strings.Builder{}
	fmt.Fprintf(b, "# bash completion for %s (arcport), written by `%s completion bash`.\n", m.name, m.name)
	fmt.Fprintf(b, "# Load it with: source <(%s completion bash)\n", m.name)
	fmt.Fprintf(b, "%s() {\n", fn)
	b.WriteString("    local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i w flags= valued= args= words=0\n")
	b.WriteString("    [ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	b.WriteString("    COMPREPLY=()\n")
	names := m.cmdNames()
	if len(names) > 0 {
		b.WriteString("    for ((i = 1; i < COMP_CWORD; i++)); do\n        w=${COMP_WORDS[i]}\n        case $w in\n")
		fmt.Fprintf(b, "        %s) cmd=$w; break ;;\n", strings.Join(names, "|"))
		b.WriteString("        -*) ;;\n        *) words=$((words + 1)) ;;\n        esac\n    done\n")
	}
	b.WriteString("    case $cmd in\n")
	for _, c := range m.cmds {
		all, valued := c.words()
		fmt.Fprintf(b, "    %s) flags=%s valued=%s args=%s ;;\n", strings.Join(c.names, "|"),
			shQuote(strings.Join(all, " ")), shQuote(strings.Join(valued, " ")), shQuote(strings.Join(c.args, " ")))
	}
	all, valued := m.top.words()
	fmt.Fprintf(b, "    *) flags=%s valued=%s ;;\n    esac\n", shQuote(strings.Join(all, " ")), shQuote(strings.Join(valued, " ")))
	// after a flag that takes a value: file names (the shell's default)
	b.WriteString("    case \" $valued \" in *\" $prev \"*) [ -n \"$prev\" ] && return 0 ;; esac\n")
	b.WriteString("    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n")
	if len(names) > 0 {
		b.WriteString("    elif [ -z \"$cmd\" ] && [ \"$words\" -eq 0 ]; then\n")
		fmt.Fprintf(b, "        COMPREPLY=($(compgen -W %s -- \"$cur\"))\n", shQuote(strings.Join(names, " ")))
		if m.files {
			b.WriteString("        COMPREPLY+=($(compgen -f -- \"$cur\"))\n")
		}
	}
	b.WriteString("    elif [ -n \"$args\" ]; then\n        COMPREPLY=($(compgen -W \"$args\" -- \"$cur\"))\n")
	b.WriteString("    fi\n    return 0\n}\n")
	fmt.Fprintf(b, "complete -o bashdefault -o default -F %s %s\n", fn, m.name)
	_, err := io.WriteString(w, b.String())
	return err
}

func (m compModel) zsh(w io.Writer) error {
	fn := m.fn()
	b := &strings.Builder{}
	fmt.Fprintf(b, "#compdef %s\n", m.name)
	fmt.Fprintf(b, "# zsh completion for %s (arcport), written by `%s completion zsh`.\n", m.name, m.name)
	fmt.Fprintf(b, "# Load it with: source <(%s completion zsh)  (after compinit), or save it as _%s in $fpath.\n", m.name, m.name)
	fmt.Fprintf(b, "%s() {\n", fn)
	b.WriteString("    local cmd= w\n    local -a flags valued cmds args\n")
	names := m.cmdNames()
	if len(names) > 0 {
		b.WriteString("    cmds=(\n")
		for _, c := range m.cmds {
			for _, n := range c.names {
				fmt.Fprintf(b, "        %s\n", shQuote(zshEscape(n)+":"+c.usage))
			}
		}
		b.WriteString("    )\n    for w in \"${(@)words[2,CURRENT-1]}\"; do\n        case $w in\n")
		fmt.Fprintf(b, "        %s) cmd=$w; break ;;\n        esac\n    done\n", strings.Join(names, "|"))
	}
	b.WriteString("    case $cmd in\n")
	writeCase := func(pattern string, c compCmd) {
		fmt.Fprintf(b, "    %s)\n        flags=(", pattern)
		for _, f := range c.flags {
			for _, n := range f.names {
				fmt.Fprintf(b, " %s", shQuote(zshEscape(n)+":"+f.usage))
			}
		}
		_, valued := c.words()
		b.WriteString(" )\n        valued=(")
		for _, v := range valued {
			fmt.Fprintf(b, " %s", shQuote(v))
		}
		b.WriteString(" )\n        args=(")
		for _, a := range c.args {
			fmt.Fprintf(b, " %s", shQuote(a))
		}
		b.WriteString(" ) ;;\n")
	}
	for _, c := range m.cmds {
		writeCase(strings.Join(c.names, "|"), c)
	}
	writeCase("*", m.top)
	b.WriteString("    esac\n")
	b.WriteString("    if (( CURRENT > 2 )) && (( ${valued[(Ie)${words[CURRENT-1]}]} )); then\n        _files\n")
	b.WriteString("    elif [[ $PREFIX == -* ]]; then\n        _describe -t options option flags\n")
	if len(names) > 0 {
		b.WriteString("    elif [[ -z $cmd ]] && (( CURRENT == 2 )); then\n        _describe -t commands command cmds\n")
		if m.files {
			b.WriteString("        _files\n")
		}
	}
	b.WriteString("    elif (( ${#args} )); then\n        compadd -a args\n")
	b.WriteString("    else\n        _files\n    fi\n}\n")
	fmt.Fprintf(b, "if [ \"$funcstack[1]\" = %s ]; then\n    %s \"$@\"\nelse\n    compdef %s %s\nfi\n", shQuote("_"+m.name), fn, fn, m.name)
	_, err := io.WriteString(w, b.String())
	return err
}

func (m compModel) fish(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# fish completion for %s (arcport), written by `%s completion fish`.\n", m.name, m.name)
	fmt.Fprintf(b, "# Load it with: %s completion fish | source\n", m.name)
	names := m.cmdNames()
	fmt.Fprintf(b, "complete -c %s -e\n", m.name)
	noCmd := "true"
	if len(names) > 0 {
		noCmd = "not __fish_seen_subcommand_from " + strings.Join(names, " ")
		if !m.files {
			fmt.Fprintf(b, "complete -c %s -n %s -f\n", m.name, shQuote(noCmd))
		}
		for _, c := range m.cmds {
			for _, n := range c.names {
				fmt.Fprintf(b, "complete -c %s -n %s -f -a %s -d %s\n", m.name, shQuote(noCmd), shQuote(n), shQuote(c.usage))
			}
		}
	}
	flagLines := func(cond string, c compCmd) {
		for _, f := range c.flags {
			fmt.Fprintf(b, "complete -c %s -n %s", m.name, shQuote(cond))
			for _, n := range f.names {
				if strings.HasPrefix(n, "--") {
					fmt.Fprintf(b, " -l %s", n[2:])
				} else {
					fmt.Fprintf(b, " -s %s", n[1:])
				}
			}
			if f.value {
				b.WriteString(" -r")
			}
			fmt.Fprintf(b, " -d %s\n", shQuote(f.usage))
		}
	}
	flagLines(noCmd, m.top)
	for _, c := range m.cmds {
		cond := "__fish_seen_subcommand_from " + strings.Join(c.names, " ")
		flagLines(cond, c)
		if len(c.args) > 0 {
			fmt.Fprintf(b, "complete -c %s -n %s -f -a %s\n", m.name, shQuote(cond), shQuote(strings.Join(c.args, " ")))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// zshEscape escapes the colons of a _describe name.
func zshEscape(s string) string { return strings.ReplaceAll(s, ":", `\:`) }

// shQuote quotes s for bash, zsh and fish alike: single quotes, with a
// single quote inside written as '\” (fish: \' inside single quotes).
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
