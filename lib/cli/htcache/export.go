package htcache

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// exportCommand is `htcache export`.
func exportCommand() *cli.Command {
	return &cli.Command{
		Name: "export",
		Usage: "export the cache as WARC 1.1 (gzip per record; a warcinfo record naming the HTTrack version and command line, " +
			"then one response record per entry) or ARC v1",
		ArgsUsage: "DIR|ZIP",
		Flags: exportFlags([]cli.Flag{flagOut, flagQuiet, flagStrict, flagTZ,
			&cli.StringFlag{Name: "format", Value: "warc", Usage: "warc or arc"},
			&cli.StringFlag{Name: "spool-max", Value: "4GiB", Usage: "largest body to take; bodies over 1 MiB are spooled to an unnamed temporary file in $TMPDIR, and a larger one stops the export with an error (`SIZE`: digits with K, M, G or T)"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print a summary on stderr"}}),
		Action: cmdExport,
	}
}

func cmdExport(c *cli.Context) error {
	if ok, err := batchExport(c); ok {
		return err
	}
	format := strings.ToLower(c.String("format"))
	if format != "warc" && format != "arc" {
		return cliutil.Usagef("--format: want warc or arc, got %q", c.String("format"))
	}
	spoolMax, err := compio.ParseSize(c.String("spool-max"))
	if err != nil {
		return cliutil.Usagef("--spool-max: %v", err)
	}
	// Each problem of the cache on one line of stderr (unless -q); damage
	// (what htcache check reports) makes the exit status 1, the export of
	// the rest still written (docs/damaged-input.md).
	damaged := 0
	quiet := c.Bool("quiet")
	hc, err := openWith(c, 1, func(p *record.Problem) {
		if htcache.IsDamage(p) {
			damaged++
		}
		if !quiet {
			fmt.Fprintf(c.App.ErrWriter, "htcache: %s\n", p.Error())
		}
	})
	if err != nil {
		return err
	}
	defer hc.Close()
	var opts []htcache.Option
	if format == "warc" {
		opts = append(opts, htcache.WithWarcinfo("arcport htcache/"+cliutil.Version))
	}
	rr, err := htcache.NewRecordReader(hc, opts...)
	if err != nil {
		return err
	}
	defer rr.Close()
	err = writeOutput(c, func(w io.Writer) error {
		var wr record.Writer
		if format == "warc" {
			wr = warc.NewWriter(w)
		} else {
			name := "htcache.arc"
			if o := c.String("output"); o != "" && o != "-" {
				name = strings.TrimSuffix(filepath.Base(o), ".gz")
			}
			aopts := []arc.WriterOption{arc.WithARCFilename(name), arc.WithOrigin("HTTrack-" + orDash(hc.Log.Version))}
			if !hc.Log.Launched.IsZero() {
				aopts = append(aopts, arc.WithARCDate(hc.Log.Launched))
			}
			wr = arc.NewWriter(w, aopts...)
		}
		for {
			r, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if r.Block != nil {
				r.Block = compio.CapReader(r.Block, spoolMax)
			}
			if err := wr.WriteRecord(r); err != nil {
				var sl *compio.SpoolLimitError
				if errors.As(err, &sl) {
					err = sl
				}
				return fmt.Errorf("%s: entry at offset %d (%s): %w", hc.Path, r.Offset, r.TargetURI(), err)
			}
		}
		return wr.Close()
	})
	if err != nil {
		return err
	}
	s := hc.ScanSummary()
	if s.Recovered && !quiet {
		fmt.Fprintf(c.App.ErrWriter, "htcache: %s: no central directory (interrupted crawl): recovered %d complete entries from local headers\n",
			hc.Path, s.Entries)
	}
	if c.Bool("verbose") && !quiet {
		st := rr.Stats
		fmt.Fprintf(c.App.ErrWriter, "htcache: %d records (%d bytes of bodies); %d without stored body, %d truncated; skipped: %d missing files, %d HTTrack-internal errors\n",
			st.Records, st.BodyBytes, st.NoBody, st.Truncated, st.Missing, st.Internal)
	}
	if damaged > 0 {
		to := c.String("output")
		if to == "" || to == "-" {
			to = "standard output"
		}
		return &cliutil.ExitError{Code: cliutil.ExitFail,
			Msg: fmt.Sprintf("htcache: %d problem(s) of damaged input: the rest is written to %s", damaged, to)}
	}
	return nil
}
