package waczpack

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/urfave/cli/v2"
)

// checkCommand is `waczpack check FILE...`: the digests and structure of
// bare WARC and ARC files, one line per problem on stdout (like warcio
// check).
func checkCommand(stdin io.Reader, stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "recompute the WARC-Block-Digest and WARC-Payload-Digest of every record of WARC/ARC files and check their structure; one line per problem",
		ArgsUsage: "FILE ...   (local, s3://bucket/key or prefix, https://; - or none: stdin)",
		Flags: withBatch([]cli.Flag{
			&cli.BoolFlag{Name: "q", Aliases: []string{"quiet"}, Usage: "print only the problems"},
			&cli.BoolFlag{Name: "v", Aliases: []string{"verbose"}, Usage: "one line per record: which digest convention matched, or that it has none"},
			&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Usage: "batch mode (--inputs): the report of each input goes to `TEMPLATE`"},
		}),
		Action: func(c *cli.Context) error {
			if cfg, err := batchConfig(c); err != nil || cfg != nil {
				if err != nil {
					return err
				}
				return checkBatch(c, cfg, stdin, stdout)
			}
			if c.IsSet("o") {
				return cliutil.Usagef("check prints its report on standard output; -o TEMPLATE is for --inputs")
			}
			return check(c, stdin, stdout)
		},
	}
}

func check(c *cli.Context, stdin io.Reader, stdout io.Writer) error {
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
	quiet, verbose := c.Bool("q"), c.Bool("v") && !c.Bool("q")
	bw := bufio.NewWriterSize(stdout, 64<<10)
	defer bw.Flush()
	problems, bad := 0, 0
	for _, name := range files {
		n, err := checkOne(name, stdin, bw, quiet, verbose)
		if err != nil {
			fmt.Fprintln(bw, err)
			n++
		}
		problems += n
		if n > 0 {
			bad++
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if problems > 0 {
		msg := ""
		if !quiet {
			msg = fmt.Sprintf("waczpack check: %d problem(s) in %d of %d file(s)", problems, bad, len(files))
		}
		return &cliutil.ExitError{Code: cliutil.ExitFail, Msg: msg}
	}
	return nil
}

// checkOne checks one input and returns how many problems it printed.
func checkOne(name string, stdin io.Reader, w io.Writer, quiet, verbose bool) (int, error) {
	st, err := checkOneStats(name, stdin, w, quiet, verbose)
	return st.Problems, err
}

// checkOneStats is checkOne, returning the counts of the check (Problems
// without the warnings).
func checkOneStats(name string, stdin io.Reader, w io.Writer, quiet, verbose bool) (wacz.CheckStats, error) {
	var r io.Reader = stdin
	shown := name
	switch {
	case name == "-":
	case cliutil.IsRemote(name):
		f, s, err := cliutil.OpenInput(name)
		if err != nil {
			return wacz.CheckStats{}, err
		}
		defer f.Close()
		r, shown = f, s
	default:
		f, err := os.Open(name)
		if err != nil {
			return wacz.CheckStats{}, err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return wacz.CheckStats{}, fmt.Errorf("%s: is a directory", name)
		}
		r = f
	}
	// A gzip member holding more than one record is not damage (create
	// compresses such members again, one per record, losing nothing):
	// a warning, not a problem (docs/damaged-input.md).
	warned := 0
	opts := wacz.CheckOptions{Problem: func(p *record.Problem) {
		if wacz.IsMultiRecordMember(p.Msg) {
			warned++
			if !quiet {
				fmt.Fprintf(w, "warning: %s\n", p.Error())
			}
			return
		}
		fmt.Fprintln(w, p.Error())
	}}
	if verbose {
		opts.Verbose = func(off int64, line string) { fmt.Fprintf(w, "%s: record at offset %d: %s\n", shown, off, line) }
	}
	var st wacz.CheckStats
	var err error
	if f, ok := r.(*os.File); ok && name != "-" {
		// a local file is split over the cores
		var size int64
		if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		st, err = wacz.CheckArchiveAt(f, size, shown, opts)
	} else {
		st, err = wacz.CheckArchive(r, shown, opts)
	}
	st.Problems -= warned
	if err != nil {
		return st, err
	}
	if st.Problems == 0 && !quiet && st.ARC {
		fmt.Fprintf(w, "%s: ok: %d ARC records (ARC has no digests: structure checked)\n", shown, st.Records)
	} else if st.Problems == 0 && !quiet {
		fmt.Fprintf(w, "%s: ok: %d records, %d digests checked, %d records without digests", shown, st.Records, st.Checked, st.NoDigest)
		if st.Dechunked > 0 || st.AsStored > 0 {
			fmt.Fprintf(w, "; chunked payloads: %d digests over the de-chunked payload (WARC 1.1), %d over the entity as stored (warcio, wget)", st.Dechunked, st.AsStored)
		}
		fmt.Fprintln(w)
	}
	return st, nil
}

// verified gathers what create --verify found in the records' digests.
type verified struct {
	bad []string        // digest problems, one line each
	st  wacz.CheckStats // summed over the inputs
}

// addVerified is create's AddInput; with verify (create --verify) the
// input also streams through a goroutine that inflates every gzip member
// to its end and recomputes the digests of its WARC records, whose digest
// problems (mismatches, unreadable values) are added to vf, one line each.
// With structure, damage the check finds (a bad CRC in a member the
// writer copied without inflating it whole, a truncated member) fails the
// input as the writer would, naming the first one; otherwise the structure
// is the writer's business (it warns or fails as usual).
func addVerified(w *wacz.Writer, name string, r io.Reader, verify, structure bool, vf *verified) error {
	if !verify {
		return w.AddInput(name, r)
	}
	shown := name
	if cliutil.IsRemote(name) {
		shown = store.Redact(name)
	}
	pr, pw := io.Pipe()
	type result struct {
		lines  []string
		broken *record.Problem
		st     wacz.CheckStats
	}
	done := make(chan result, 1)
	go func() {
		var res result
		res.st, _ = wacz.CheckArchive(pr, shown, wacz.CheckOptions{Problem: func(p *record.Problem) {
			if wacz.IsDigestProblem(p.Msg) {
				res.lines = append(res.lines, p.Error())
			} else if structure && res.broken == nil && (p.Skipped || !p.Repaired) &&
				!strings.Contains(p.Msg, "member holds more than one record") { // the writer compresses those again

				res.broken = p
			}
		}})
		io.Copy(io.Discard, pr)
		done <- res
	}()
	err := w.AddInput(name, io.TeeReader(r, pw))
	pw.Close()
	res := <-done
	if err == nil && res.broken != nil {
		err = res.broken
	}
	vf.bad = append(vf.bad, res.lines...)
	vf.st.Records += res.st.Records
	vf.st.Checked += res.st.Checked
	vf.st.Mismatch += res.st.Mismatch
	vf.st.NoDigest += res.st.NoDigest
	vf.st.AsStored += res.st.AsStored
	vf.st.Dechunked += res.st.Dechunked
	return err
}

// summary is create -v's line about the digests (with --verify).
func (vf *verified) summary(out string) string {
	return fmt.Sprintf("%s: --verify: %d record digests recomputed, all matching; %d records without digests; chunked payloads: %d digests over the de-chunked payload (WARC 1.1), %d over the entity as stored (warcio, wget)",
		out, vf.st.Checked, vf.st.NoDigest, vf.st.Dechunked, vf.st.AsStored)
}

// digestFailure is create --verify's failure: every digest problem, one
// line each, and exit status 1.
func digestFailure(out string, bad []string) error {
	return &cliutil.ExitError{Code: cliutil.ExitFail, Msg: strings.Join(bad, "\n") +
		fmt.Sprintf("\nwaczpack: %s not written: %d record digest problem(s) in the input (--verify)", out, len(bad))}
}
