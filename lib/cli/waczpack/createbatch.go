package waczpack

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/internal/batch"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/tailfile"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/warc"
)

// createBatch is `waczpack create --inputs LIST -o TEMPLATE`: one WACZ
// per listed input (docs/batch.md says why not one per group of inputs),
// the WACZ `waczpack create -o OUTPUT INPUT` writes, but dated from the
// input (its first record's WARC-Date, or an ARC's file date) rather than
// the clock and, for an ARC, with record IDs derived from the input, so
// that every run writes the same bytes. Damage without --lenient, or a
// digest problem with --verify, writes no WACZ: a bad input. With
// --lenient the WACZ of what could be read is written and the input is
// still bad (65, or recorded), as the single run exits 1.
func createBatch(c *cli.Context, cfg *batch.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	for _, f := range []string{"pages", "url"} {
		if c.IsSet(f) {
			return cliutil.Usagef("--inputs makes one WACZ per input: no --%s (one page list or seed list for every input)", f)
		}
	}
	quiet := c.Bool("q")
	opts := wacz.Options{
		Title:            c.String("title"),
		Description:      c.String("desc"),
		Text:             c.Bool("text"),
		Frames:           c.Bool("frames"),
		Verify:           c.Bool("verify") && c.Bool("lenient"),
		HashAlg:          c.String("hash"),
		Software:         "arcport waczpack " + cliutil.Version,
		Lenient:          c.Bool("lenient"),
		TempDir:          c.String("tmpdir"),
		DraftFiles:       c.Bool("draft-files"),
		DeterministicIDs: true,
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
	signer, err := signerFromFlags(c, opts.Software, stderr)
	if err != nil {
		return err
	}
	opts.Signer = signer
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(localCreateMemory)
	}
	j := &batch.Job{
		Config: *cfg,
		Tool:   "waczpack create",
		Params: fmt.Sprintf("title=%q desc=%q text=%t frames=%t verify=%t hash=%s split=%d lenient=%t draft-files=%t signed=%t",
			opts.Title, opts.Description, opts.Text, opts.Frames, verify, opts.HashAlg, opts.Split, opts.Lenient, opts.DraftFiles, signer != nil),
		Store:   cliutil.Store(),
		Stdin:   stdin,
		Stdout:  stdout,
		Stderr:  stderr,
		Verbose: c.Bool("v") && !quiet,
	}
	return j.Run(context.Background(), func(ctx context.Context, t *batch.Task) error {
		o := opts
		var problems []string
		if !quiet {
			o.Warn = func(s string) { fmt.Fprintln(stderr, s) }
		}
		o.Damage = func(err error) {
			problems = append(problems, err.Error())
			if !quiet {
				fmt.Fprintf(stderr, "waczpack: %v\n", err)
			}
		}
		// the input: a local file as itself (its gzip members are then
		// decoded on every core), a remote one through the task, which
		// watches its reads
		var r io.Reader
		if store.IsRemote(t.Input.Name) {
			rc, _, err := t.Open(t.Input.Name)
			if err != nil {
				return err
			}
			defer rc.Close()
			br := bufio.NewReaderSize(rc, datePeek)
			head, _ := br.Peek(datePeek)
			if o.Signer == nil {
				o.Created = inputDate(head)
			}
			r = br
		} else {
			f, err := os.Open(t.Input.Name)
			if err != nil {
				return err
			}
			defer f.Close()
			if st, err := f.Stat(); err == nil && st.IsDir() {
				return batch.BadInput(fmt.Errorf("%s: is a directory", t.Input.Name))
			}
			if o.Signer == nil {
				head := make([]byte, datePeek)
				n, _ := f.ReadAt(head, 0)
				o.Created = inputDate(head[:n])
			}
			r = f
		}
		if o.TempDir == "" && !cliutil.IsRemote(t.Output) {
			o.TempDir = dirOf(t.Output)
		}
		out, err := t.Create(t.Output)
		if err != nil {
			return err
		}
		defer out.Abort()
		// the zip goes out front to back (what the task hashes is the
		// file): the writer's withdrawals happen in the tail
		tf := tailfile.New(out, 8<<20, o.TempDir)
		w, err := wacz.NewWriter(tf, o)
		if err != nil {
			return err
		}
		var vf verified
		if err := addVerified(w, t.Input.Name, r, verify, !o.Lenient, &vf); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		t.Records = int64(w.Stats().Records)
		if len(vf.bad) > 0 {
			return batch.BadInput(fmt.Errorf("%d record digest problem(s) (--verify), no WACZ written: %s", len(vf.bad), vf.bad[0]))
		}
		if err := tf.Close(); err != nil {
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
		if s := w.Stats(); s.Damaged > 0 {
			msg := fmt.Sprintf("%d problem(s) of damaged input (--lenient): the rest is written", s.Damaged)
			if len(problems) > 0 {
				msg += ": " + problems[0]
			}
			return batch.BadInput(fmt.Errorf("%s", msg))
		}
		return nil
	})
}

// datePeek is how much of an input's start is read for its date.
const datePeek = 1 << 20

// zipEpoch is the date of a WACZ whose input gives none: the earliest a
// zip file can hold.
var zipEpoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// inputDate returns the date of the first record in head, the start of a
// WARC or ARC input (any compression), or zipEpoch when it holds none: a
// batch WACZ is dated by its input, not by the clock, so that reruns
// write the same bytes.
func inputDate(head []byte) time.Time {
	br := bufio.NewReaderSize(bytes.NewReader(head), 64<<10)
	kind, err := wacz.SniffInput(br)
	if err != nil {
		return zipEpoch
	}
	var rec *record.Record
	switch kind {
	case wacz.KindARC, wacz.KindARCGzip:
		ar, err := arc.NewReader(br, arc.WithPolicy(record.Ignore))
		if err != nil {
			return zipEpoch
		}
		rec, err = ar.Next()
		if err != nil {
			return zipEpoch
		}
	default:
		wr, err := warc.NewReader(br, warc.WithPolicy(record.Ignore))
		if err != nil {
			return zipEpoch
		}
		rec, err = wr.Next()
		if err != nil {
			return zipEpoch
		}
	}
	d, err := rec.Date()
	if err != nil || d.Before(zipEpoch) {
		return zipEpoch
	}
	return d.UTC()
}
