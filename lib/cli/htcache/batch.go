package htcache

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/internal/batch"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/warc"
)

// exportFlags are export's flags with those of batch mode.
func exportFlags(flags []cli.Flag) []cli.Flag { return append(flags, batch.Flags()...) }

// batchExport runs `htcache export --inputs LIST -o TEMPLATE` when
// --inputs is given (ok true), under the shard contract (docs/batch.md):
// each listed mirror (a folder or s3:// prefix holding hts-cache/, or a
// cache file) exported to its own WARC or ARC.
func batchExport(c *cli.Context) (ok bool, err error) {
	cfg, err := batch.FromContext(c, "output")
	if err != nil || cfg == nil {
		return err != nil, err
	}
	return true, exportBatch(c, cfg)
}

// cacheFiles are the files whose size and ETag pin a mirror, in the order
// htcache.Open prefers them.
var cacheFiles = []string{"hts-cache/new.zip", "hts-cache/old.zip", "hts-cache/new.ndx", "hts-cache/old.ndx",
	"new.zip", "old.zip", "new.ndx", "old.ndx"}

// statCache pins a mirror by its cache file (what htcache.Open reads
// first): the file itself when name is one, else the first of cacheFiles
// under the folder or s3:// prefix. External bodies (X-Save files) and a
// .dat beside a .ndx are not part of the pin.
func statCache(st *store.Store) func(ctx context.Context, name string) (store.Info, error) {
	return func(ctx context.Context, name string) (store.Info, error) {
		remote := store.KindOf(name) == store.S3
		if !remote {
			if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
				return st.Stat(ctx, name)
			}
		} else if !strings.HasSuffix(name, "/") {
			if info, err := st.Stat(ctx, name); err == nil {
				return info, nil
			}
		}
		for _, f := range cacheFiles {
			var p string
			if remote {
				p = strings.TrimSuffix(name, "/") + "/" + f
			} else {
				p = filepath.Join(name, filepath.FromSlash(f))
			}
			info, err := st.Stat(ctx, p)
			if err == nil {
				return info, nil
			}
			if !errors.Is(err, store.ErrNotFound) && !errors.Is(err, fs.ErrNotExist) {
				return store.Info{}, err
			}
		}
		return store.Info{}, &store.Error{Op: "stat", URL: store.Redact(name), Offset: -1, Kind: store.ErrNotFound,
			Err: htcache.ErrNoCache}
	}
}

func exportBatch(c *cli.Context, cfg *batch.Config) error {
	format := strings.ToLower(c.String("format"))
	if format != "warc" && format != "arc" {
		return cliutil.Usagef("--format: want warc or arc, got %q", c.String("format"))
	}
	spoolMax, err := compio.ParseSize(c.String("spool-max"))
	if err != nil {
		return cliutil.Usagef("--spool-max: %v", err)
	}
	var loc *time.Location
	if tz := c.String("tz"); tz != "" {
		if loc, err = parseTZ(tz); err != nil {
			return cliutil.Usagef("--tz: %v", err)
		}
	}
	quiet, strict := c.Bool("quiet"), c.Bool("strict")
	st := cliutil.Store()
	j := &batch.Job{
		Config:  *cfg,
		Tool:    "htcache export",
		Params:  fmt.Sprintf("format=%s tz=%s strict=%t", format, c.String("tz"), strict),
		Store:   st,
		Stat:    statCache(st),
		Stdin:   stdinOf(c),
		Stdout:  c.App.Writer,
		Stderr:  c.App.ErrWriter,
		Verbose: c.Bool("verbose") && !quiet,
	}
	return j.Run(context.Background(), func(ctx context.Context, t *batch.Task) error {
		damaged := 0
		var opts []htcache.Option
		if strict {
			opts = append(opts, htcache.WithPolicy(record.Fail))
		} else {
			opts = append(opts, htcache.WithProblemFunc(func(p *record.Problem) {
				if htcache.IsDamage(p) {
					damaged++
				}
				if !quiet {
					fmt.Fprintf(c.App.ErrWriter, "htcache: %s\n", p.Error())
				}
			}))
		}
		if loc != nil {
			opts = append(opts, htcache.WithLocation(loc))
		}
		hc, err := openCache(t.Input.Name, opts...)
		if err != nil {
			return err
		}
		defer hc.Close()
		var ropts []htcache.Option
		if format == "warc" {
			ropts = append(ropts, htcache.WithWarcinfo("arcport htcache/"+cliutil.Version))
		}
		rr, err := htcache.NewRecordReader(hc, ropts...)
		if err != nil {
			return err
		}
		defer rr.Close()
		o, err := t.Create(t.Output)
		if err != nil {
			return err
		}
		defer o.Abort()
		bw := bufio.NewWriterSize(o, 256<<10)
		var wr record.Writer
		if format == "warc" {
			wr = warc.NewWriter(bw)
		} else {
			aopts := []arc.WriterOption{arc.WithARCFilename(strings.TrimSuffix(path.Base(t.Output), ".gz")),
				arc.WithOrigin("HTTrack-" + orDash(hc.Log.Version))}
			if !hc.Log.Launched.IsZero() {
				aopts = append(aopts, arc.WithARCDate(hc.Log.Launched))
			}
			wr = arc.NewWriter(bw, aopts...)
		}
		var info *record.Record
		var oldID, newID string
		n := int64(0)
		for {
			r, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if format == "warc" && info == nil && r.Type() == record.Warcinfo {
				// held back until the date of the first capture is known
				info, oldID = r, r.Header.Get(record.FieldRecordID)
				continue
			}
			if info != nil && newID == "" {
				newID = fixWarcinfo(info, hc.Log.Launched, r.Header.Get(record.FieldDate), t.Input.Name)
				if err := wr.WriteRecord(info); err != nil {
					return err
				}
				n++
			}
			if newID != "" && r.Header.Get(record.FieldWarcinfoID) == oldID {
				r.Header.Set(record.FieldWarcinfoID, newID)
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
			n++
		}
		if info != nil && newID == "" { // no capture at all
			fixWarcinfo(info, hc.Log.Launched, "", t.Input.Name)
			if err := wr.WriteRecord(info); err != nil {
				return err
			}
			n++
		}
		if err := wr.Close(); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		t.Records = n
		if err := o.Commit(); err != nil {
			return err
		}
		if damaged > 0 {
			return batch.BadInput(fmt.Errorf("%d problem(s) of damaged input; the rest is exported", damaged))
		}
		return nil
	})
}

// fixWarcinfo makes the warcinfo record of a batch export the same on
// every run (without --inputs it is dated when written): dated when the
// crawl was launched (hts-log.txt), else like the first capture, else
// 1970-01-01; its ID derived from the input's name and that date. It
// returns the new ID.
func fixWarcinfo(info *record.Record, launched time.Time, first, input string) string {
	date := first
	if !launched.IsZero() {
		date = record.FormatDate(launched, false)
	}
	if date == "" {
		date = record.FormatDate(time.Unix(0, 0), false)
	}
	_, stem, _ := batch.Parts(input)
	id := "<urn:uuid:" + uuid.NewSHA1(uuid.NameSpaceURL, []byte("htcache-warcinfo\x00"+stem+"\x00"+date)).String() + ">"
	info.Header.Set(record.FieldDate, date)
	info.Header.Set(record.FieldRecordID, id)
	return id
}

// stdinOf is what --inputs - reads: the app's Reader, else os.Stdin.
func stdinOf(c *cli.Context) io.Reader {
	if c.App.Reader != nil {
		return c.App.Reader
	}
	return os.Stdin
}
