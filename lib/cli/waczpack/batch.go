package waczpack

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/internal/batch"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/store"
)

// withBatch returns flags with the batch-mode flags (docs/batch.md) added.
func withBatch(flags []cli.Flag) []cli.Flag { return append(flags, batch.Flags()...) }

// batchConfig returns the batch configuration of c, or nil without
// --inputs.
func batchConfig(c *cli.Context) (*batch.Config, error) { return batch.FromContext(c, "o") }

// indexBatch is `waczpack index --inputs LIST -o TEMPLATE`: one index
// per input, the lines `waczpack index [--sort] [--cdx11|--cdxj-indexer]
// INPUT -o OUTPUT` writes, under the shard contract: the sorted runs a
// sharded ZipNum cluster is then made from (--zipnum OUT/ --shards S
// --shard K over the runs).
func indexBatch(c *cli.Context, cfg *batch.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	for _, f := range []string{"zipnum", "shards", "shard", "finish"} {
		if c.IsSet(f) {
			return cliutil.Usagef("--inputs writes one index per input: no --%s (give the runs to --zipnum afterwards)", f)
		}
	}
	sorted, cdx11, cj := c.Bool("sort"), c.Bool("cdx11"), c.Bool(cdxjIndexerFlag.Name)
	tmp := c.String("tmpdir")
	j := &batch.Job{
		Config: *cfg,
		Tool:   "waczpack index",
		Params: fmt.Sprintf("sort=%t cdx11=%t cdxj-indexer=%t", sorted, cdx11, cj),
		Store:  cliutil.Store(),
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
	}
	return j.Run(context.Background(), func(ctx context.Context, t *batch.Task) error {
		o, err := t.Create(t.Output)
		if err != nil {
			return err
		}
		defer o.Abort()
		bw := bufio.NewWriterSize(o, 256<<10)
		if cdx11 {
			bw.WriteString(cdx.CDX11Header + "\n")
		}
		var lines int64
		switch {
		case cj:
			err = indexFileCdxjIndexer(t.Input.Name, nil, func(l []byte) error { lines++; _, err := bw.Write(l); return err })
		case sorted:
			s := cdx.NewSorter(cdx.WithTempDir(tmp), cdx.WithChunkSize(collectionSortChunk))
			defer s.Close()
			if lines, err = collect([]string{t.Input.Name}, false, 1, cdx11, nil, s); err == nil {
				_, err = s.WriteTo(bw)
			}
		default:
			var line []byte
			err = indexFile(t.Input.Name, nil, func(e *cdx.Entry) error {
				if cdx11 {
					line = e.AppendCDX11(line[:0])
				} else {
					line = e.AppendCDXJ(line[:0])
				}
				lines++
				_, err := bw.Write(line)
				return err
			})
		}
		if err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		t.Records = lines
		return o.Commit()
	})
}

// checkBatch is `waczpack check --inputs LIST -o TEMPLATE`: the report
// `waczpack check INPUT` prints, one output per input. An input with a
// problem is bad (exit 65, or recorded); its report is written all the
// same. A missing input, or storage failing, writes no report.
func checkBatch(c *cli.Context, cfg *batch.Config, stdin io.Reader, stdout io.Writer) error {
	quiet, verbose := c.Bool("q"), c.Bool("v") && !c.Bool("q")
	j := &batch.Job{
		Config: *cfg,
		Tool:   "waczpack check",
		Params: fmt.Sprintf("quiet=%t verbose=%t", quiet, verbose),
		Store:  cliutil.Store(),
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: c.App.ErrWriter,
	}
	return j.Run(context.Background(), func(ctx context.Context, t *batch.Task) error {
		o, err := t.Create(t.Output)
		if err != nil {
			return err
		}
		defer o.Abort()
		bw := bufio.NewWriterSize(o, 64<<10)
		st, err := checkOneStats(t.Input.Name, nil, bw, quiet, verbose)
		t.Records = int64(st.Records)
		n := st.Problems
		if err != nil {
			if batch.Classify(err, t.Input.Name) != batch.Bad || errors.Is(err, store.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
				return err
			}
			fmt.Fprintln(bw, err)
			n++
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := o.Commit(); err != nil {
			return err
		}
		if n > 0 {
			return batch.BadInput(fmt.Errorf("%d problem(s); the report is in %s", n, t.Output))
		}
		return nil
	})
}
