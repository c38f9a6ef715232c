package arc2warc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/internal/batch"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/wacz"
)

// Main runs arc2warc with os.Args and exits.
func Main() {
	cliutil.Run(NewApp(os.Stdin, os.Stdout, os.Stderr))
}

// NewApp returns the arc2warc command reading and writing the given streams.
func NewApp(stdin io.Reader, stdout io.Writer, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "arc2warc",
		Usage:     "convert ARC files to one WARC file; copy WARC files record by record (--recompress)",
		UsageText: "arc2warc [flags] [FILE ...]   (no FILE or - reads standard input)\n   arc2warc --recompress in.warc.gz -o out.warc.gz\n   arc2warc --max-size 1G -o PREFIX.warc.gz FILE ...   (PREFIX-00000.warc.gz, ...)",
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "o", Usage: "write the WARC to `FILE` (default: standard output)"},
			&cli.StringFlag{Name: "warc-version", Value: "1.1", Usage: "WARC version to write: 1.1 or 1.0"},
			&cli.StringFlag{Name: "compress", Usage: "gzip, zstd or none (default: from the -o extension; gzip on standard output)"},
			&cli.IntFlag{Name: "level", Usage: "compression level `N`: gzip 1 (fastest) to 9 (smallest), zstd 1 to 22", DefaultText: "gzip 5, zstd 3"},
			&cli.BoolFlag{Name: "strict", Usage: "stop at the first malformed record instead of repairing or skipping it"},
			&cli.BoolFlag{Name: "deterministic-ids", Usage: "derive record IDs from the input so the same input gives byte-identical output"},
			&cli.StringFlag{Name: "spool-max", Value: "4GiB", Usage: "largest record block to take; blocks over 1 MiB are spooled to an unnamed temporary file in $TMPDIR, and a larger one stops the run with an error (`SIZE`: digits with K, M, G or T)"},
			&cli.BoolFlag{Name: "recompress", Usage: "inputs are WARC files (whole-file gzip, plain, ...): copy their records with the same bytes, one gzip member (or zstd frame) per record, as warcio recompress does (WARC inputs are copied so even without it)"},
			&cli.StringFlag{Name: "max-size", Usage: "write numbered files PREFIX-00000.warc.gz, ... (PREFIX from -o), each starting with a warcinfo record, a new one once a file has reached `SIZE` (K, M, G, T)"},
			&cli.BoolFlag{Name: "q", Usage: "quiet: do not print repairs and skips"},
			&cli.BoolFlag{Name: "v", Usage: "verbose: print a summary per input file"},
		}, batchFlags()...),
		Action: func(c *cli.Context) error { return run(c, stdin, stdout, stderr) },
	}
}

// options are the parsed flags.
type options struct {
	version       string
	compression   compio.Format
	policy        record.Policy
	deterministic bool
	quiet         bool
	verbose       bool
	spoolMax      int64
	recompress    bool
	maxSize       int64
	level         int
	// open opens an input (cliutil.OpenInput when nil; batch mode: the
	// task's, which tells a transport failure from damage)
	open func(name string) (io.ReadCloser, string, error)
}

func parseOptions(c *cli.Context) (options, error) {
	o := options{policy: record.Warn, deterministic: c.Bool("deterministic-ids"), quiet: c.Bool("q"), verbose: c.Bool("v")}
	switch c.String("warc-version") {
	case "1.1", "WARC/1.1":
		o.version = record.WARC11
	case "1.0", "WARC/1.0":
		o.version = record.WARC10
	default:
		return o, cliutil.Usagef("--warc-version must be 1.1 or 1.0, not %q", c.String("warc-version"))
	}
	comp := c.String("compress")
	if comp == "" {
		out := c.String("o")
		switch {
		case out == "" || out == "-":
			comp = "gzip"
		case strings.HasSuffix(out, ".gz"):
			comp = "gzip"
		case strings.HasSuffix(out, ".zst"):
			comp = "zstd"
		default:
			comp = "none"
		}
	}
	switch comp {
	case "gzip":
		o.compression = compio.Gzip
	case "zstd":
		o.compression = compio.Zstd
	case "none", "plain":
		o.compression = compio.Plain
	default:
		return o, cliutil.Usagef("--compress must be gzip, zstd or none, not %q", comp)
	}
	if c.IsSet("level") {
		o.level = c.Int("level")
		max := 9
		if o.compression == compio.Zstd {
			max = 22
		}
		if o.compression == compio.Plain {
			return o, cliutil.Usagef("--level needs --compress gzip or zstd")
		}
		if o.level < 1 || o.level > max {
			return o, cliutil.Usagef("--level must be 1 to %d for %s, not %d", max, comp, o.level)
		}
	}
	if c.Bool("strict") {
		o.policy = record.Fail
	}
	n, err := compio.ParseSize(c.String("spool-max"))
	if err != nil {
		return o, cliutil.Usagef("--spool-max: %v", err)
	}
	o.spoolMax = n
	o.recompress = c.Bool("recompress")
	if ms := c.String("max-size"); ms != "" {
		if o.maxSize, err = compio.ParseSize(ms); err != nil || o.maxSize <= 0 {
			return o, cliutil.Usagef("--max-size: bad size %q", ms)
		}
		if out := c.String("o"); out == "" || out == "-" {
			return o, cliutil.Usagef("--max-size writes numbered files: give -o PREFIX.warc.gz")
		}
	}
	return o, nil
}

func run(c *cli.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseOptions(c)
	if err != nil {
		return err
	}
	if cfg, err := batch.FromContext(c, "o"); err != nil || cfg != nil {
		if err != nil {
			return err
		}
		return runBatch(cfg, o, stdin, stdout, stderr)
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
	if n := countStdin(inputs); n > 1 {
		return cliutil.Usagef("standard input (-) given %d times", n)
	}

	outName := c.String("o")
	w := newSink(o, outName, stdout, o.maxSize)
	defer w.Abort()

	var total arc.Stats
	for _, name := range inputs {
		st, err := convert(name, stdin, w, o, stderr, outName)
		total.Records += st.Records
		total.Repaired += st.Repaired
		total.Skipped += st.Skipped
		total.Damaged += st.Damaged
		if err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if o.verbose && o.maxSize > 0 {
		fmt.Fprintf(stderr, "arc2warc: %d files: %s\n", len(w.files), strings.Join(w.files, " "))
	}
	if total.Skipped > 0 || total.Damaged > 0 || total.Repaired > 0 {
		// the output holds what could be salvaged; the damage is reported.
		// A repair is damage too: --strict, waczpack index and check
		// stop at it (docs/damaged-input.md)
		if total.Damaged == 0 {
			return fmt.Errorf("%d problem(s) made records or bytes be skipped (%d repaired); see the messages above", total.Skipped, total.Repaired)
		}
		return fmt.Errorf("%d problem(s) made records or bytes be skipped, %d left a record damaged, salvaged as far as safe (%d repaired); see the messages above", total.Skipped, total.Damaged, total.Repaired)
	}
	return nil
}

func countStdin(inputs []string) int {
	n := 0
	for _, in := range inputs {
		if in == "-" {
			n++
		}
	}
	return n
}

// convert converts one ARC input into w.
func convert(name string, stdin io.Reader, w *sink, o options, stderr io.Writer, outName string) (arc.Stats, error) {
	var in io.Reader
	display := name
	if name == "-" {
		in, display = stdin, "-"
	} else {
		open := o.open
		if open == nil {
			open = cliutil.OpenInput
		}
		f, shown, err := open(name)
		if err != nil {
			return arc.Stats{}, err
		}
		defer f.Close()
		in, display = f, shown
	}
	br := bufio.NewReaderSize(in, 128<<10)
	in = br
	kind, _ := wacz.SniffInput(br)
	switch kind {
	case wacz.KindWARC, wacz.KindWARCGzip, wacz.KindWARCZstd:
		var warn func(string)
		if o.policy != record.Fail {
			warn = func(msg string) {
				if !o.quiet {
					fmt.Fprintf(stderr, "arc2warc: %s\n", msg)
				}
			}
		}
		n, skipped, err := recompress(br, display, w, warn)
		if o.verbose {
			fmt.Fprintf(stderr, "arc2warc: %s: %s, %d records copied, %d skipped\n", display, kind, n, skipped)
		}
		return arc.Stats{Records: int64(n), Skipped: int64(skipped)}, err
	}
	if o.recompress {
		return arc.Stats{}, fmt.Errorf("%s: --recompress takes WARC files, and this is %s", display, describe(kind))
	}
	r, err := arc.NewReader(in, arc.WithName(display), arc.WithPolicy(o.policy), arc.WithProblemFunc(func(p *record.Problem) {
		if !o.quiet {
			what := "repaired"
			if p.Skipped {
				what = "skipped"
			} else if !p.Repaired {
				what = "damaged: salvaged"
			}
			fmt.Fprintf(stderr, "arc2warc: %s (%s)\n", p.Error(), what)
		}
	}))
	if err != nil {
		return arc.Stats{}, err
	}
	copts := []arc.ConvertOption{
		arc.WithSourceName(baseName(display)),
		arc.WithSoftware(arc.DefaultSoftware + " " + cliutil.Version),
		arc.WithWARCVersion(o.version),
		arc.WithDeterministicIDs(o.deterministic),
	}
	if outName != "" && outName != "-" {
		copts = append(copts, arc.WithWARCFilename(baseName(w.fileName())))
	}
	conv := arc.NewConverter(r, copts...)
	for {
		rec, err := conv.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return r.Stats(), err
		}
		if rec.Block != nil {
			rec.Block = compio.CapReader(rec.Block, o.spoolMax)
		}
		if err := w.WriteRecord(rec); err != nil {
			var sl *compio.SpoolLimitError
			if errors.As(err, &sl) {
				return r.Stats(), fmt.Errorf("%s: record at offset %d: %w", display, rec.Offset, sl)
			}
			var p *record.Problem
			if errors.As(err, &p) {
				// A block cut short: the record is dropped (the writer
				// wrote nothing of it) and the conversion goes on.
				if o.policy != record.Fail && p.Skipped {
					if !o.quiet {
						fmt.Fprintf(stderr, "arc2warc: %s (skipped)\n", p.Error())
					}
					continue
				}
				return r.Stats(), p
			}
			return r.Stats(), fmt.Errorf("%s: record at offset %d: %w", display, rec.Offset, err)
		}
	}
	st := r.Stats()
	if o.verbose {
		fmt.Fprintf(stderr, "arc2warc: %s: ARC version %d, %s, %d records read, %d repaired, %d skipped, %d damaged\n",
			display, r.Version(), r.Format(), st.Records, st.Repaired, st.Skipped, st.Damaged)
	}
	return st, nil
}

func describe(k wacz.InputKind) string {
	if k == wacz.KindUnknown {
		return "neither WARC nor ARC"
	}
	return "an " + k.String() + " file"
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
