package waczpack

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/tailfile"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/urfave/cli/v2"
)

// Main runs waczpack with os.Args and exits.
func Main() {
	app := App(os.Stdin, os.Stdout, os.Stderr)
	os.Args = append(os.Args[:1], Reorder(os.Args[1:])...)
	cliutil.Run(app)
}

// Run runs waczpack with args (without the program name) and returns the
// exit status; for tests.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := App(stdin, stdout, stderr)
	cliutil.Prepare(app)
	err := app.Run(append([]string{"waczpack"}, Reorder(args)...))
	return cliutil.Report("waczpack", err, stderr)
}

// valueFlags are the flags that take a value, for Reorder.
var valueFlags = map[string]bool{
	"o": true, "output": true, "title": true, "desc": true, "url": true, "pages": true,
	"hash": true, "split": true, "ts": true, "tmpdir": true, "part-size": true,
	"j": true, "jobs": true, "zipnum": true, "shards": true, "shard": true, "block-lines": true, "match": true, "limit": true,
	"inputs": true, "shard-index": true, "shard-count": true, "on-bad-input": true, "emit": true, // batch mode and plan (docs/batch.md)
}

// commands are the subcommand names.
var commands = map[string]bool{"create": true, "index": true, "validate": true, "ls": true, "get": true, "check": true, "help": true, "h": true,
	"lookup": true, "extract": true, "merge": true, "add": true, "completion": true, "plan": true}

// Reorder moves flags written after positional arguments in front of them
// (urfave/cli stops at the first positional argument), so
// "waczpack get x.wacz URL --ts 2020" works. A "--" ends flag parsing. When
// the first argument is not a subcommand, "create" is implied.
func Reorder(args []string) []string {
	if len(args) == 0 {
		return args
	}
	var head []string
	rest := args
	if commands[args[0]] {
		head = []string{args[0]}
		rest = args[1:]
	} else {
		// global -h / --version stay as they are
		for _, a := range args {
			if a == "-h" || a == "--help" || a == "-v" && len(args) == 1 || a == "--version" {
				return args
			}
		}
		head = []string{"create"}
	}
	var flags, pos []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && valueFlags[name] && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	out := append(head, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

// App returns the waczpack application.
func App(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	quiet := &cli.BoolFlag{Name: "q", Aliases: []string{"quiet"}, Usage: "no warnings or summary on stderr"}
	return &cli.App{
		Name:      "waczpack",
		Usage:     "make, check and read WACZ web archive collections (WACZ 1.1.1)",
		UsageText: "waczpack [create] -o OUT.wacz [FILE ...]\n   waczpack index [--cdx11] [--sort] [-o OUT] FILE ...\n   waczpack index [-j N] --zipnum OUT/ [--shards S [--shard K | --finish]] FILE|RUN.cdxj|s3://prefix/ ...\n   waczpack lookup INDEX-DIR URL [--match exact|prefix|host|domain] [--ts T]\n   waczpack validate FILE.wacz\n   waczpack check FILE ...\n   waczpack ls [--json] FILE.wacz\n   waczpack get FILE.wacz URL [--ts TIMESTAMP]",
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		Commands: []*cli.Command{
			{
				Name:      "create",
				Usage:     "pack WARC/ARC files (plain, .gz, .zst; stdin when none or -) into a WACZ",
				ArgsUsage: "[FILE ...]",
				Flags: withBatch([]cli.Flag{
					&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Usage: "WACZ file to write (required; with --inputs a `TEMPLATE`: one WACZ per input)"},
					&cli.StringFlag{Name: "title", Usage: "collection title"},
					&cli.StringFlag{Name: "desc", Usage: "collection description (Markdown)"},
					&cli.StringSliceFlag{Name: "url", Usage: "main page URL (repeatable: seeds, listed first)"},
					&cli.StringFlag{Name: "pages", Usage: "pages.jsonl or URL list to use instead of page detection"},
					&cli.BoolFlag{Name: "text", Usage: "extract page text into pages.jsonl (full-text search; reads pages whole)"},
					&cli.BoolFlag{Name: "frames", Usage: "read HTML pages whole so that documents embedded with <iframe>/<frame> are not listed as pages (slower)"},
					&cli.BoolFlag{Name: "verify", Usage: "inflate every gzip member of the input to its end, checking its CRC, and recompute every record's WARC-Block-Digest and WARC-Payload-Digest (no output on a mismatch)"},
					&cli.StringFlag{Name: "hash", Value: "sha256", Usage: "resource hash: sha256 or md5"},
					&cli.StringFlag{Name: "split", Usage: "split archive/ into WARCs of at most `SIZE` bytes (suffixes K, M, G)"},
					&cli.BoolFlag{Name: "lenient", Usage: "go on past damaged input (truncated records, garbage): one line per problem, the WACZ of the rest written, exit status 1"},
					&cli.StringFlag{Name: "tmpdir", Usage: "directory for temporary files (default: beside the output)"},
					draftFilesFlag(false),
					signKeyFlag, signURLFlag, signTokenFlag,
					quiet,
					&cli.BoolFlag{Name: "v", Aliases: []string{"verbose"}, Usage: "print a summary"},
				}),
				Action: func(c *cli.Context) error {
					if cfg, err := batchConfig(c); err != nil || cfg != nil {
						if err != nil {
							return err
						}
						return createBatch(c, cfg, stdin, stdout, stderr) // createbatch.go
					}
					return create(c, stdin, stderr)
				},
			},
			{
				Name:      "index",
				Usage:     "print the CDXJ (or CDX-11) index of WARC/ARC files",
				ArgsUsage: "FILE ...",
				Flags:     withBatch(indexFlags()),
				Action: func(c *cli.Context) error {
					if err := checkCdxjIndexer(c); err != nil {
						return err
					}
					if cfg, err := batchConfig(c); err != nil || cfg != nil {
						if err != nil {
							return err
						}
						return indexBatch(c, cfg, stdin, stdout, stderr)
					}
					if c.Bool("sort") || c.String("zipnum") != "" || c.IsSet("shard") || c.IsSet("shards") || c.Bool("finish") {
						return indexCollection(c, stdin, stdout)
					}
					return index(c, stdin, stdout)
				},
			},
			{
				Name:      "validate",
				Usage:     "check a WACZ against the specification and recompute the digests of its WARC records; one line per problem",
				ArgsUsage: "FILE.wacz",
				Flags:     []cli.Flag{quiet, trustFlag, &cli.BoolFlag{Name: "v", Aliases: []string{"verbose"}, Usage: "one line per WARC record: how its digests compared"}},
				Action:    func(c *cli.Context) error { return validate(c, stdout) },
			},
			checkCommand(stdin, stdout),
			{
				Name:      "ls",
				Usage:     "list the captures of a WACZ (from its index)",
				ArgsUsage: "FILE.wacz",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "one JSON object per line"}},
				Action:    func(c *cli.Context) error { return list(c, stdout) },
			},
			{
				Name:      "get",
				Usage:     "print the HTTP payload of one capture (index lookup + ranged read)",
				ArgsUsage: "FILE.wacz URL",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "ts", Usage: "capture closest to `TIMESTAMP` (YYYYMMDDhhmmss or RFC 3339; default: latest)"},
					&cli.BoolFlag{Name: "headers", Usage: "print the HTTP response head first"},
					&cli.BoolFlag{Name: "raw", Usage: "do not undo the content coding (gzip, br, ...)"},
					&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Usage: "write to FILE instead of stdout"},
				},
				Action: func(c *cli.Context) error { return get(c, stdout) },
			},
			lookupCommand(stdout),
			serveCommand(stderr),
			extractCommand(stdout),
			mergeCommand(stderr),
			addCommand(stderr),
			planCommand(stdin, stdout, stderr),
		},
	}
}

// ParseSize parses a byte count with an optional K, M, G or T suffix
// (powers of 1024).
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mult, nil
}

func create(c *cli.Context, stdin io.Reader, stderr io.Writer) error {
	out := c.String("o")
	if out == "" {
		return cliutil.Usagef("create needs -o OUT.wacz")
	}
	if out == "-" {
		return cliutil.Usagef("a WACZ cannot be written to stdout (it is a zip): give -o FILE")
	}
	opts := wacz.Options{
		Title:       c.String("title"),
		Description: c.String("desc"),
		Seeds:       c.StringSlice("url"),
		Text:        c.Bool("text"),
		Frames:      c.Bool("frames"),
		// --verify: the digest check below inflates every gzip member
		// to its end (checking its CRC) beside the writer, which then
		// inflates only what it needs, as without --verify: the data is
		// inflated once. With --lenient the writer inflates whole members
		// itself (it warns and goes on where the check would fail).
		Verify:   c.Bool("verify") && c.Bool("lenient"),
		HashAlg:  c.String("hash"),
		Software: "arcport waczpack " + cliutil.Version,
		Lenient:  c.Bool("lenient"),
		TempDir:  c.String("tmpdir"),
		// --draft-files: webarchive.yaml and pages.csv of the seed draft
		DraftFiles: c.Bool("draft-files"),
	}
	verify := c.Bool("verify")
	if opts.HashAlg != "sha256" && opts.HashAlg != "md5" {
		return cliutil.Usagef("--hash must be sha256 or md5")
	}
	if s := c.String("split"); s != "" {
		n, err := ParseSize(s)
		if err != nil {
			return cliutil.Usagef("--split: %v", err)
		}
		opts.Split = n
	}
	if !c.Bool("q") {
		opts.Warn = func(s string) { fmt.Fprintln(stderr, s) }
		// --lenient: each problem of damaged input as waczpack index
		// words it; the exit status is then 1 (docs/damaged-input.md)
		opts.Damage = func(err error) { fmt.Fprintf(stderr, "waczpack: %v\n", err) }
	}
	signer, err := signerFromFlags(c, opts.Software, stderr)
	if err != nil {
		return err
	}
	opts.Signer = signer
	if p := c.String("pages"); p != "" {
		f, name, err := cliutil.OpenInput(p)
		if err != nil {
			return err
		}
		hdr, reqs, err := wacz.ParsePageList(f, name)
		f.Close()
		if err != nil {
			return err
		}
		if reqs == nil {
			reqs = []wacz.PageRequest{}
		}
		opts.PageList, opts.PageListHeader = reqs, hdr
	}
	inputs, err := cliutil.ExpandInputs(c.Args().Slice())
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		if c.NArg() > 0 {
			return fmt.Errorf("%s: no objects under the prefix", c.Args().First())
		}
		inputs = []string{"-"}
	}
	stdinUsed := 0
	for _, in := range inputs {
		if in == "-" {
			stdinUsed++
		}
	}
	if stdinUsed > 1 {
		return cliutil.Usagef("stdin (-) given more than once")
	}
	if opts.TempDir == "" && !cliutil.IsRemote(out) {
		opts.TempDir = dirOf(out)
	}
	af, zf, err := createWACZ(out, opts.TempDir)
	if err != nil {
		return err
	}
	defer af.Abort()
	w, err := wacz.NewWriter(zf, opts)
	if err != nil {
		return err
	}
	var vf verified
	for _, name := range inputs {
		var r io.Reader
		if name == "-" {
			r = stdin
		} else if cliutil.IsRemote(name) {
			f, _, err := cliutil.OpenInput(name)
			if err != nil {
				w.Close()
				return err
			}
			r = f
			defer f.Close()
		} else {
			f, err := os.Open(name)
			if err != nil {
				w.Close()
				return err
			}
			st, err := f.Stat()
			if err == nil && st.IsDir() {
				f.Close()
				w.Close()
				return fmt.Errorf("%s: is a directory", name)
			}
			r = f
			defer f.Close()
		}
		if err := addVerified(w, name, r, verify, !opts.Lenient, &vf); err != nil {
			w.Close()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if len(vf.bad) > 0 {
		return digestFailure(out, vf.bad)
	}
	if tf, ok := zf.(*tailfile.File); ok {
		if err := tf.Close(); err != nil {
			return err
		}
	}
	if err := af.Commit(); err != nil {
		return err
	}
	if c.Bool("v") && !c.Bool("q") {
		s := w.Stats()
		fmt.Fprintf(stderr, "%s: %d inputs, %d records (%d copied as they were, %d compressed again), %d captures, %d pages, %d bytes of WARC\n",
			out, s.Inputs, s.Records, s.Records-s.Reencoded, s.Reencoded, s.Captures, s.Pages, s.ArchiveLen)
		// never claim a CRC that was not checked: members whose end was
		// found without inflating them are copied unchecked
		if s.Skipped > 0 && !(verify && !opts.Lenient) {
			fmt.Fprintf(stderr, "%s: %d gzip members copied without inflating them to their end: their CRCs were not checked (--verify checks them; so does waczpack validate)\n", out, s.Skipped)
		} else {
			fmt.Fprintf(stderr, "%s: no gzip member was copied with its CRC unchecked\n", out)
		}
		if s.Handovers > 0 {
			fmt.Fprintf(stderr, "%s: %d inputs read by the careful path from some point on\n", out, s.Handovers)
		}
		if verify {
			fmt.Fprintln(stderr, vf.summary(out))
		}
	}
	if s := w.Stats(); s.Damaged > 0 {
		// --lenient went on past damage: the WACZ of the rest is written,
		// each problem was reported, and the verdict is the one waczpack
		// index gives the same input
		return &cliutil.ExitError{Code: cliutil.ExitFail,
			Msg: fmt.Sprintf("waczpack: %d problem(s) of damaged input (--lenient): the rest is written to %s", s.Damaged, out)}
	}
	return nil
}

func dirOf(p string) string { return dirOfOS(p, runtime.GOOS == "windows") }

// dirOfOS is dirOf with Windows' rules when windows is set: a backslash
// separates too, and a drive letter (C:) stays with its folder (C:\x is
// in C:\, C:x in C:, the drive's current folder), so that the
// temporary file is made on the output's own drive and the rename works.
func dirOfOS(p string, windows bool) string {
	i := strings.LastIndexByte(p, '/')
	vol := 0
	if windows {
		if j := strings.LastIndexByte(p, '\\'); j > i {
			i = j
		}
		if len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z') {
			vol = 2
		}
	}
	switch {
	case i < vol && vol > 0:
		return p[:vol]
	case i < 0:
		return "."
	case i == vol:
		return p[:i+1]
	}
	return p[:i]
}

func oneArg(c *cli.Context, what string) (string, error) {
	if c.NArg() != 1 {
		return "", cliutil.Usagef("%s needs exactly one FILE.wacz", what)
	}
	return c.Args().First(), nil
}

func validate(c *cli.Context, stdout io.Writer) error {
	name, err := oneArg(c, "validate")
	if err != nil {
		return err
	}
	if err := recoverAdd(name, c.App.ErrWriter); err != nil {
		return err
	}
	r, err := openWACZ(name)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.CheckEntries(); err != nil {
		return err
	}
	vo := wacz.ValidateOptions{Digests: true}
	if !c.Bool("q") {
		vo.Warn = func(p wacz.Problem) { fmt.Fprintf(stdout, "%s: warning: %s\n", name, p) }
	}
	if c.Bool("v") && !c.Bool("q") {
		vo.Verbose = func(p wacz.Problem) { fmt.Fprintf(stdout, "%s: %s\n", name, p) }
	}
	problems := r.ValidateWith(vo)
	if len(problems) == 0 {
		if !c.Bool("q") {
			fmt.Fprintf(stdout, "%s: valid WACZ %s\n", name, wacz.Version)
		}
		return reportSignature(c, r, name, stdout)
	}
	var b strings.Builder
	for i, p := range problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: %s", name, p)
	}
	return &cliutil.ExitError{Code: cliutil.ExitFail, Msg: b.String()}
}

// captureJSON is one line of ls --json.
type captureJSON struct {
	URLKey    string `json:"urlkey"`
	Timestamp string `json:"timestamp"`
	URL       string `json:"url"`
	Mime      string `json:"mime,omitempty"`
	Status    string `json:"status,omitempty"`
	Digest    string `json:"digest,omitempty"`
	Filename  string `json:"filename"`
	Offset    int64  `json:"offset"`
	Length    int64  `json:"length"`
}

func list(c *cli.Context, stdout io.Writer) error {
	name, err := oneArg(c, "ls")
	if err != nil {
		return err
	}
	if err := recoverAdd(name, c.App.ErrWriter); err != nil {
		return err
	}
	r, err := openWACZ(name)
	if err != nil {
		return err
	}
	defer r.Close()
	bw := bufio.NewWriter(stdout)
	defer bw.Flush()
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	asJSON := c.Bool("json")
	// Captures come sorted by URL key: the captures of one URL are read
	// as a group, so that each revisit is shown with the capture holding
	// its payload (same URL, same digest).
	var group []*wacz.Capture
	missing := 0
	flush := func() error {
		orig := map[string]*wacz.Capture{}
		for _, cp := range group {
			if cp.Mime != "warc/revisit" && cp.Digest != "" && orig[cp.Digest] == nil {
				orig[cp.Digest] = cp
			}
		}
		for _, cp := range group {
			if asJSON {
				if err := enc.Encode(captureJSON{cp.URLKey, cp.Timestamp, cp.URL, cp.Mime, cp.Status, cp.Digest, cp.Filename, cp.Offset, cp.Length}); err != nil {
					return err
				}
				continue
			}
			st, mime, note := cp.Status, cp.Mime, ""
			if st == "" {
				st = "-"
			}
			if mime == "" {
				mime = "-"
			}
			if cp.Mime == "warc/revisit" {
				if o := orig[cp.Digest]; cp.Digest != "" && o != nil {
					mime, note = o.Mime, " (revisit of "+o.Timestamp+")"
					if mime == "" {
						mime = "-"
					}
				} else {
					missing++
					note = " (revisit: original not in this archive)"
				}
			}
			if _, err := fmt.Fprintf(bw, "%s %s %s %s%s\n", cp.Timestamp, st, mime, cp.URL, note); err != nil {
				return err
			}
		}
		group = group[:0]
		return nil
	}
	err = r.Captures(func(cp *wacz.Capture) error {
		if len(group) > 0 && group[0].URLKey != cp.URLKey {
			if err := flush(); err != nil {
				return err
			}
		}
		group = append(group, cp)
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil && missing > 0 {
		bw.Flush()
		err = fmt.Errorf("%s: %d revisit(s) whose original capture is not in the archive", name, missing)
	}
	return err
}

func get(c *cli.Context, stdout io.Writer) error {
	if c.NArg() != 2 {
		return cliutil.Usagef("get needs FILE.wacz and URL")
	}
	name, url := c.Args().Get(0), c.Args().Get(1)
	var ts time.Time
	if s := c.String("ts"); s != "" {
		t, err := wacz.ParseTS(s)
		if err != nil {
			return cliutil.Usagef("--ts: %v", err)
		}
		ts = t
	}
	if err := recoverAdd(name, c.App.ErrWriter); err != nil {
		return err
	}
	r, err := openWACZ(name)
	if err != nil {
		return err
	}
	defer r.Close()
	cp, err := r.Find(url, ts)
	if err != nil {
		return err
	}
	rec, err := r.Record(cp)
	if err != nil {
		return err
	}
	body, head, err := wacz.Payload(rec, !c.Bool("raw"))
	if err != nil {
		return recordErr(name, cp, err)
	}
	w := stdout
	var af cliutil.Output
	if o := c.String("o"); o != "" && o != "-" {
		af, err = cliutil.CreateOutput(o)
		if err != nil {
			return err
		}
		defer af.Abort()
		w = af
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if c.Bool("headers") && head != nil {
		fmt.Fprintf(bw, "%s %s %s\r\n", head.Proto, head.Status, head.Reason)
		for _, f := range head.Header {
			fmt.Fprintf(bw, "%s: %s\r\n", f.Name, f.Value)
		}
		bw.WriteString("\r\n")
	}
	if _, err := io.Copy(bw, body); err != nil {
		return recordErr(name, cp, err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if af != nil {
		return af.Commit()
	}
	return nil
}

// recordErr names the WACZ, the WARC in it and the record's offset in an
// error about the record of cp (a problem of the WARC reader names them
// already).
func recordErr(name string, cp *wacz.Capture, err error) error {
	var p *record.Problem
	if errors.As(err, &p) {
		return err
	}
	return fmt.Errorf("%s: %s%s: record at offset %d: %v", name, wacz.ArchiveDir, cp.Filename, cp.Offset, err)
}

func index(c *cli.Context, stdin io.Reader, stdout io.Writer) error {
	files, err := cliutil.ExpandInputs(c.Args().Slice())
	if err != nil {
		return err
	}
	if len(files) == 0 {
		if c.NArg() > 0 {
			return fmt.Errorf("%s: no objects under the prefix", c.Args().First())
		}
		files = []string{"-"}
	}
	var o cliutil.Output
	if name := c.String("o"); name != "" && name != "-" {
		if o, err = cliutil.CreateOutput(name); err != nil {
			return err
		}
		defer o.Abort()
		stdout = o
	}
	bw := bufio.NewWriterSize(stdout, 256<<10)
	defer bw.Flush()
	cdx11 := c.Bool("cdx11")
	if cdx11 {
		bw.WriteString(cdx.CDX11Header + "\n")
	}
	var line []byte
	for _, name := range files {
		if c.Bool(cdxjIndexerFlag.Name) {
			if err := indexFileCdxjIndexer(name, stdin, func(l []byte) error { _, err := bw.Write(l); return err }); err != nil {
				return err
			}
			continue
		}
		err := indexFile(name, stdin, func(e *cdx.Entry) error {
			if cdx11 {
				line = e.AppendCDX11(line[:0])
			} else {
				line = e.AppendCDXJ(line[:0])
			}
			_, err := bw.Write(line)
			return err
		})
		if err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if o != nil {
		return o.Commit()
	}
	return nil
}

// createWACZ opens the output of create: a local file written under a
// temporary name (renamed by Commit), or an s3:// upload that the zip is
// streamed into in one pass, through a tailfile.File that keeps only the
// bytes the writer may still withdraw (those of records not yet indexed:
// at most the input's read-ahead, 8 MiB, and a MiB more) and passes the
// rest on to the upload.
func createWACZ(out, tmpDir string) (cliutil.Output, wacz.ZipFile, error) {
	if !cliutil.IsRemote(out) {
		af, err := cliutil.CreateAtomic(out)
		if err != nil {
			return nil, nil, err
		}
		if os.Getenv("GOMEMLIMIT") == "" {
			// What stays live is bounded (sort chunk, read-ahead, the
			// pages kept in memory): a soft limit above it has the
			// collector run before the heap doubles, so that RSS stays
			// flat in the input's size (a 2 GB WARC.gz: 97 MiB with it,
			// 147 MiB without). An s3:// output sets its own limit.
			debug.SetMemoryLimit(localCreateMemory)
		}
		return af, af, nil
	}
	o, err := cliutil.CreateOutput(out)
	if err != nil {
		return nil, nil, err
	}
	return o, tailfile.New(o, 8<<20, tmpDir), nil
}

// localCreateMemory is the soft memory limit of create to a local file.
const localCreateMemory = 80 << 20

// openWACZ opens a WACZ for reading in place: a local file, or an s3:// or
// http(s):// object read by ranged requests (the zip's end records and
// central directory, then only the entries and records asked for).
func openWACZ(name string) (*wacz.Reader, error) {
	if !cliutil.IsRemote(name) {
		return wacz.OpenFile(name)
	}
	ra, err := cliutil.OpenAt(name)
	if err != nil {
		return nil, err
	}
	return wacz.OpenCloser(ra, ra.Size(), store.Redact(name))
}
