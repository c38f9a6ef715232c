package zimdump

import (
	"io"
	"regexp"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/cliutil"
)

// zimdump parses its arguments as openzim's docopt does (args.go), not
// through urfave/cli. App describes the same command line as a urfave/cli
// App for what is written from an App: the man page (make man) and the
// completion scripts (zimdump completion bash|zsh|fish). TestAppMatchesParser
// holds it to the parsers: each command's options are those `allowed`
// lists, and create's those parseCreate takes.

// option is one option of the openzim-compatible commands.
type option struct {
	names []string // the first is the long name as in longOpts
	arg   string   // the value's placeholder, "" for a switch
	usage string
	value string // the default, when it is a fixed value
}

// options documents every option that `allowed` names.
var options = map[string]option{
	"details":   {usage: "show details about the entries, else list only their paths"},
	"idx":       {arg: "INDEX", usage: "the entry at INDEX (list, show)"},
	"url":       {arg: "URL", usage: "the entry at the path URL (list, show)"},
	"ns":        {arg: "N", usage: "the entries of namespace N (with --url: A; without, for dump: no filter)"},
	"dir":       {arg: "DIR", usage: "directory where to dump the entries' content (required)"},
	"redirect":  {usage: "dump redirect entries as symbolic links, else as HTML redirect files"},
	"json":      {usage: "JSON output: one object (info, meta) or one object per entry (list)"},
	"output":    {names: []string{"output", "o"}, arg: "FILE", usage: "the WARC to write (default: standard output)"},
	"plain":     {usage: "write the WARC without compression (default: a gzip member per record)"},
	"offset":    {arg: "N", usage: "read an archive embedded at byte N of <file>"},
	"size":      {arg: "N", usage: "with --offset: the size of the embedded archive (default: to the end of <file>)"},
	"spool-max": {arg: "SIZE", value: "4G", usage: "largest entry to take; entries over 1 MiB are spooled to an unnamed file in $TMPDIR"},
	// warc's batch mode (batch.go, docs/batch.md), parsed by urfave/cli
	// rather than the docopt parser
	"inputs":        {arg: "LIST", usage: "batch mode: write each archive listed in LIST (a file, s3://…/list.txt or -) to its own WARC named by -o TEMPLATE ({stem}, {name}, {dir}, {index})"},
	"shard-index":   {arg: "I", usage: "take share I of the list (default: $ARCPORT_SHARD_INDEX, $JOB_COMPLETION_INDEX or $AWS_BATCH_JOB_ARRAY_INDEX, else 0)"},
	"shard-count":   {arg: "K", usage: "split the list into K shares (default: the plan's, else 1)"},
	"skip-existing": {usage: "skip an archive whose output and done marker show it finished"},
	"on-bad-input":  {arg: "ACTION", value: "fail", usage: "ACTION on a bad archive: fail (go on, exit 65 at the end) or record (_errors/NAME.json, exit 0)"},
	"emit":          {arg: "FORMAT", usage: "FORMAT jsonl: one JSON line per archive on standard output"},
}

// commandUsage is the one-line description of each command.
var commandUsage = []struct{ name, usage string }{
	{"list", "list the paths of the entries (--details: index, type, MIME type, size)"},
	{"dump", "write every entry to a file under --dir"},
	{"show", "print the content of one entry"},
	{"info", "print the archive's entry count, UUID, cluster count, checksum, main page and favicon"},
	{"check", "check the structure and the MD5 checksum (like zimcheck -I -C); one line per problem, exit 1 if any"},
	{"meta", "print all M/ metadata"},
	{"warc", "write every entry as a WARC record (https://zim.local/<name>/<path>)"},
}

// createFlags are the options of zimdump create (createUsage).
var createFlags = []option{
	{names: []string{"o", "output"}, arg: "FILE", usage: "the ZIM to write (required; s3:// works); written under a temporary name and renamed when complete"},
	{names: []string{"main-page"}, arg: "P", usage: "the main page: a path of the folder or a URL of the crawl (default: index.html, or the first HTML page)"},
	{names: []string{"title"}, arg: "T", usage: "M/Title (default: the main page's <title>)"},
	{names: []string{"language"}, arg: "L", usage: "M/Language, ISO 639-3 (default: the main page's lang attribute, else eng)"},
	{names: []string{"creator"}, arg: "C", usage: "M/Creator (default: the main page's host)"},
	{names: []string{"publisher"}, arg: "P", usage: "M/Publisher (default: arcport)"},
	{names: []string{"description"}, arg: "D", usage: `M/Description (default: "Offline copy of " + host)`},
	{names: []string{"name"}, arg: "N", usage: "M/Name (default: the output's file name)"},
	{names: []string{"date"}, arg: "YYYY-MM-DD", usage: "M/Date (default: today, UTC)"},
	{names: []string{"flavour"}, arg: "F", usage: "M/Flavour"},
	{names: []string{"tags"}, arg: "T", usage: "M/Tags (semicolon-separated)"},
	{names: []string{"illustration"}, arg: "PNG", usage: "the 48x48 illustration (scaled when another size; default: one drawn from the title)"},
	{names: []string{"compression"}, arg: "C", value: "zstd", usage: "zstd, xz or none, for text; images, video and other compressed types are stored"},
	{names: []string{"level"}, arg: "N", usage: "zstd 1-22 (default 19) or xz 0-9 (default 6)"},
	{names: []string{"cluster-size"}, arg: "SIZE", value: "2M", usage: "cluster size"},
	{names: []string{"workers"}, arg: "N", usage: "clusters compressed at once (default: CPUs)"},
	{names: []string{"spool-max"}, arg: "SIZE", value: "4G", usage: "largest capture body taken from a crawl, decoded; a larger one is skipped with a warning"},
	{names: []string{"no-index"}, usage: "no full-text and title search indexes (default: both, X/fulltext/xapian and X/title/xapian, as libzim writes them; words stemmed in M/Language)"},
	{names: []string{"q", "quiet"}, usage: "no warnings (the exit status is still 1 after any)"},
	{names: []string{"v", "verbose"}, usage: "a summary line on stderr"},
}

func (o option) flag(name string) cli.Flag {
	names := o.names
	if len(names) == 0 {
		names = []string{name}
	}
	if o.arg == "" {
		return &cli.BoolFlag{Name: names[0], Aliases: names[1:], Usage: o.usage, DisableDefaultText: true}
	}
	usage := o.usage // the placeholder in backquotes where the text names it
	if loc := regexp.MustCompile(`\b` + regexp.QuoteMeta(o.arg) + `\b`).FindStringIndex(usage); loc != nil {
		usage = usage[:loc[0]] + "`" + o.arg + "`" + usage[loc[1]:]
	}
	return &cli.StringFlag{Name: names[0], Aliases: names[1:], Usage: usage, Value: o.value}
}

// App describes zimdump's command line as a urfave/cli App (for the man
// page and the completion scripts; zimdump itself runs Run). Its Writer is
// w.
func App(w io.Writer) *cli.App {
	app := &cli.App{
		Name:  "zimdump",
		Usage: "inspect and extract ZIM archives (openzim zimdump 3.1.3 compatible), check them, write them from crawls",
		UsageText: "zimdump list [--details] [--idx=INDEX|([--url=URL] [--ns=N])] [--] <file>\n" +
			"zimdump dump --dir=DIR [--ns=N] [--redirect] [--] <file>\n" +
			"zimdump show (--idx=INDEX|(--url=URL [--ns=N])) [--] <file>\n" +
			"zimdump info [--json] [--ns=N] [--] <file>\n" +
			"zimdump check <file>\n" +
			"zimdump meta [--json] <file>\n" +
			"zimdump warc [-o FILE] [--plain] [--spool-max=SIZE] <file>\n" +
			"zimdump create -o FILE.zim [options] INPUT\n" +
			"zimdump search [--limit=N] <file> QUERY...\n" +
			"zimdump index [--language=L] [--force] [-q] <file> -o NEW.zim\n" +
			"zimdump suggest [--limit=N] <file> QUERY...\n" +
			"zimdump completion bash|zsh|fish\n" +
			"zimdump -h | --help\nzimdump --version",
		Description: "The list, dump, show and info commands print what openzim's zimdump 3.1.3 prints, byte for byte, " +
			"and take its options (long options may be shortened to a unique prefix, as docopt allows); " +
			"every command but create also takes --offset=N [--size=N] to read an archive embedded in another file. " +
			"Exit status: 0 when all went well, 1 when an entry was not found or the archive is damaged, 2 for bad usage.",
		Writer:          w,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help", DisableDefaultText: true},
			&cli.BoolFlag{Name: "version", Usage: "print the version", DisableDefaultText: true},
		},
		HideHelp:    true,
		HideVersion: true,
	}
	for _, c := range commandUsage {
		cmd := &cli.Command{Name: c.name, Usage: c.usage, ArgsUsage: "<file>", HideHelp: true}
		names := append([]string(nil), allowed[c.name]...)
		sort.Strings(names)
		for _, n := range names {
			cmd.Flags = append(cmd.Flags, options[n].flag(n))
		}
		app.Commands = append(app.Commands, cmd)
	}
	create := &cli.Command{Name: "create", Usage: "write a ZIM (format 6.2) from a folder, a WARC/ARC, a WACZ or an HTTrack cache",
		ArgsUsage: "INPUT", UsageText: "zimdump create -o FILE.zim [options] INPUT", HideHelp: true}
	for _, o := range createFlags {
		create.Flags = append(create.Flags, o.flag(""))
	}
	create.Flags = append(create.Flags, &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show create's help", DisableDefaultText: true})
	search := &cli.Command{Name: "search", Usage: "search the full-text index: the pages found, best first (path, tab, title), as libzim's Searcher ranks them",
		ArgsUsage: "<file> QUERY...", UsageText: "zimdump search [--limit=N] <file> QUERY...", HideHelp: true,
		Flags: []cli.Flag{&cli.StringFlag{Name: "limit", Usage: "at most `N` results (0: all)", Value: "10"}}}
	index := &cli.Command{Name: "index", Usage: "copy a ZIM with new full-text and title search indexes (its clusters as they are)",
		ArgsUsage: "<file>", UsageText: "zimdump index [--language=L] [--force] [-q] <file> -o NEW.zim", HideHelp: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the ZIM `FILE` to write (required; s3:// works); written under a temporary name and renamed when complete"},
			&cli.StringFlag{Name: "language", Usage: "the language words are stemmed in, ISO 639-3 `L` (default: M/Language, else eng)"},
			&cli.BoolFlag{Name: "force", Usage: "replace the indexes the ZIM already has (else such a ZIM is refused)", DisableDefaultText: true},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no notes on stderr", DisableDefaultText: true},
		}}
	suggest := &cli.Command{Name: "suggest", Usage: "title suggestions from the title index, as libzim's SuggestionSearcher gives them (path, tab, title)",
		ArgsUsage: "<file> QUERY...", UsageText: "zimdump suggest [--limit=N] <file> QUERY...", HideHelp: true,
		Flags: []cli.Flag{&cli.StringFlag{Name: "limit", Usage: "at most `N` suggestions (0: all)", Value: "10"}}}
	app.Commands = append(app.Commands, create, search, index, suggest, &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish (bash: source <(zimdump completion bash))",
		UsageText: "zimdump completion bash|zsh|fish",
		HideHelp:  true,
	})
	return app
}

// runCompletion is `zimdump completion SHELL`.
func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		io.WriteString(stderr, "zimdump: completion: name one shell: bash, zsh, fish\n")
		return cliutil.ExitUsage
	}
	if err := cliutil.CompletionScript(stdout, App(stdout), args[0], false); err != nil {
		return cliutil.Report("zimdump", err, stderr)
	}
	return cliutil.ExitOK
}
