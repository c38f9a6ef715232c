package zimdump

import (
	"fmt"
	"strings"
)

// usage is openzim zimdump 3.1.3's docopt text, byte for byte, followed by
// the arcport extensions.
const usage = `
zimdump tool is used to inspect a zim file and also to dump its contents into the filesystem.

Usage:
  zimdump list [--details] [--idx=INDEX|([--url=URL] [--ns=N])] [--] <file>
  zimdump dump --dir=DIR [--ns=N] [--redirect] [--] <file>
  zimdump show (--idx=INDEX|(--url=URL [--ns=N])) [--] <file>
  zimdump info [--ns=N] [--] <file>
  zimdump -h | --help
  zimdump --version

Selectors:
  --idx INDEX  The index of the article to list/dump.
  --url URL    The url of the article to list/dump
  --ns N       The namespace of the article(s) to list/dump.
               When used with ` + "`--url`" + `, default to ` + "`A`" + `.
               If no ` + "`--url`" + ` is provided (for  ` + "`zimdump dump`" + `) default to no filter.

Options:
  --details    Show details about the articles. Else, list only the url of the article(s).
  --dir=DIR    Directory where to dump the article(s) content.
  --redirect   Use symlink to dump redirect articles. Else create html redirect file
  -h, --help   Show this help
  --version    Show zimdump version.

Return value:
  0 : If no error
  1 : If no (or more than 1) articles correspond to the selectors.
  2 : If an error/warning has been issue during the dump.
      See DIR/dump_errors.log for the listing of the errors.
`

// extUsage documents what arcport adds to openzim's commands.
const extUsage = `arcport extensions:
  zimdump info --json <file>             header facts as one JSON object
  zimdump list --json [--idx=INDEX|--url=URL|--ns=N] <file>
                                         one JSON object per entry
  zimdump check <file>                   structure + MD5 checksum (like zimcheck -I -C);
                                         one line per problem, exit 1 if any
  zimdump meta [--json] <file>           all M/ metadata
  zimdump warc [-o FILE] [--plain] <file> every entry as a WARC record (gzip; --plain: none)
                                         (https://zim.local/<name>/<path>)
  zimdump warc --spool-max=SIZE <file>   largest entry to take (default 4G); entries over
                                         1 MiB are spooled to an unnamed file in $TMPDIR
  zimdump warc --inputs LIST -o TEMPLATE [--shard-index I --shard-count K]
               [--skip-existing] [--on-bad-input fail|record] [--emit jsonl]
                                         batch mode: each listed archive to its own WARC
                                         (docs/batch.md)
  --offset=N [--size=N]                  read an archive embedded at byte N of <file>
  zimdump create -o FILE.zim [options] INPUT
                                         write a ZIM from a folder, a WARC/ARC, a WACZ or
                                         an HTTrack hts-cache (zimdump create --help)
  zimdump completion bash|zsh|fish       the shell completion script
                                         (bash: source <(zimdump completion bash))
`

// longOpts are the long options, in docopt's order (for prefix errors).
var longOpts = []struct {
	name   string
	hasArg bool
}{
	{"details", false}, {"dir", true}, {"redirect", false}, {"idx", true}, {"url", true},
	{"ns", true}, {"help", false}, {"version", false},
	{"json", false}, {"plain", false}, {"output", true}, {"offset", true}, {"size", true},
	{"spool-max", true},
}

// parsed holds the arguments after docopt-like parsing.
type parsed struct {
	cmd   string
	opts  map[string]string // option name -> value ("" for flags)
	file  string
	help  bool
	ver   bool
	errs  string // docopt error message, empty when fine
	rawOK bool
}

func (p *parsed) has(name string) bool { _, ok := p.opts[name]; return ok }

var commands = map[string]bool{"list": true, "dump": true, "show": true, "info": true,
	"check": true, "meta": true, "warc": true}

// allowed options per command; the extension commands take extension options.
var allowed = map[string][]string{
	"list":  {"details", "idx", "url", "ns", "json", "offset", "size"},
	"dump":  {"dir", "ns", "redirect", "offset", "size"},
	"show":  {"idx", "url", "ns", "offset", "size"},
	"info":  {"ns", "json", "offset", "size"},
	"check": {"offset", "size"},
	"meta":  {"json", "offset", "size"},
	"warc":  {"output", "plain", "offset", "size", "spool-max", "inputs", "shard-index", "shard-count", "skip-existing", "on-bad-input", "emit"},
}

// parseArgs mimics docopt as zimdump 3.1.3 uses it: options anywhere, long
// option prefixes, "--opt=v" and "--opt v", "--" ends options.
func parseArgs(args []string) *parsed {
	p := &parsed{opts: map[string]string{}}
	unexpected := func() *parsed {
		p.errs = "Unexpected argument: " + strings.Join(args, ", ")
		return p
	}
	var pos []string
	dup := false
	unknown := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if len(pos) > 1 {
				unknown = true // "--" must come before <file>
			}
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			var matches []int
			for k, o := range longOpts {
				if o.name == name {
					matches = []int{k}
					break
				}
				if strings.HasPrefix(o.name, name) {
					matches = append(matches, k)
				}
			}
			if len(matches) > 1 {
				var names []string
				for _, k := range matches {
					names = append(names, "--"+longOpts[k].name)
				}
				p.errs = fmt.Sprintf("'--%s' is not a unique prefix: %s", name, strings.Join(names, ", "))
				return p
			}
			if len(matches) == 0 {
				unknown = true
				continue
			}
			o := longOpts[matches[0]]
			if o.hasArg && !hasVal {
				// docopt cannot tell an empty argument or "--" from none
				if i+1 >= len(args) || args[i+1] == "" || args[i+1] == "--" {
					p.errs = fmt.Sprintf("--%s requires an argument", o.name)
					return p
				}
				i++
				val = args[i]
			} else if !o.hasArg && hasVal {
				p.errs = fmt.Sprintf("--%s must not have an argument", o.name)
				return p
			}
			switch o.name {
			case "help":
				p.help = true
			case "version":
				p.ver = true
			}
			if _, ok := p.opts[o.name]; ok {
				dup = true
			}
			p.opts[o.name] = val
		case a == "-h":
			p.help = true
		case a == "-o":
			if i+1 >= len(args) {
				p.errs = "-o requires an argument"
				return p
			}
			i++
			if _, ok := p.opts["output"]; ok {
				dup = true
			}
			p.opts["output"] = args[i]
		case len(a) > 1 && a[0] == '-':
			unknown = true
		default:
			pos = append(pos, a)
		}
	}
	if p.help || p.ver {
		return p
	}
	if len(pos) == 0 || !commands[pos[0]] {
		p.errs = "Arguments did not match expected patterns"
		return p
	}
	p.cmd = pos[0]
	if unknown || dup || len(pos) > 2 {
		return unexpected()
	}
	ok := map[string]bool{}
	for _, o := range allowed[p.cmd] {
		ok[o] = true
	}
	for o := range p.opts {
		if !ok[o] {
			return unexpected()
		}
	}
	switch p.cmd {
	case "list":
		if p.has("idx") && (p.has("url") || p.has("ns")) {
			return unexpected()
		}
	case "show":
		if !p.has("idx") && !p.has("url") {
			p.errs = "Arguments did not match expected patterns"
			return p
		}
		if p.has("idx") && (p.has("url") || p.has("ns")) {
			return unexpected()
		}
	case "dump":
		if !p.has("dir") {
			p.errs = "Arguments did not match expected patterns"
			return p
		}
	}
	if len(pos) < 2 {
		p.errs = "Arguments did not match expected patterns"
		return p
	}
	p.file = pos[1]
	return p
}

// parseLong mimics docopt's asLong (std::stol over the whole string):
// leading white space and a sign are accepted, nothing may follow the
// digits. The result is then cut to 32 bits as zimdump does.
func parseLong(s string) (uint32, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
		if v > 1<<63 {
			return 0, false
		}
	}
	if !neg && v > 1<<63-1 {
		return 0, false
	}
	if neg {
		return uint32(-int64(v)), true
	}
	return uint32(v), true
}
