package waczpack

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/urfave/cli/v2"
)

// cdxjIndexerFlag is index --cdxj-indexer: lines in cdxj-indexer 1.5.0's
// form (cdx.AppendCdxjIndexer), for pywb and tools that canonicalise URLs
// with Python's surt.
var cdxjIndexerFlag = &cli.BoolFlag{Name: "cdxj-indexer", Usage: "lines as cdxj-indexer -p writes them (Python surt keys, as pywb looks URLs up; sha1: digests; Python's JSON): see docs/reference-tools.md"}

// checkCdxjIndexer refuses --cdxj-indexer with the flags it does not
// combine with.
func checkCdxjIndexer(c *cli.Context) error {
	if !c.Bool(cdxjIndexerFlag.Name) {
		return nil
	}
	for _, f := range []string{"cdx11", "sort", "zipnum", "shard", "shards", "finish"} {
		if c.IsSet(f) {
			return cliutil.Usagef("--cdxj-indexer does not combine with --%s (sort its output with LC_ALL=C sort and give the file to --zipnum)", f)
		}
	}
	return nil
}

// indexFileCdxjIndexer indexes one WARC or ARC file (- : stdin) for
// --cdxj-indexer and calls fn with each line.
func indexFileCdxjIndexer(name string, stdin io.Reader, fn func([]byte) error) error {
	var r io.Reader = stdin
	var ra io.ReaderAt
	shown := name
	if cliutil.IsRemote(name) {
		f, s, err := cliutil.OpenInput(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r, shown = f, s
	} else if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r, ra = f, f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	kind, err := wacz.SniffInput(br)
	if err != nil {
		return fmt.Errorf("%s: %v", shown, err)
	}
	// NewFileIndexer: the fast path of plain index for a local
	// gzip-per-record WARC (only the WARC and HTTP heads inflated)
	ix, err := wacz.NewFileIndexer(br, ra, shown, cdx.WithFullDigest(true), cdx.WithARCDigests(false))
	if err != nil {
		return err
	}
	var line []byte
	for {
		e, err := ix.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		line = cdx.AppendCdxjIndexer(line[:0], e, kind == wacz.KindARC)
		if err := fn(line); err != nil {
			return err
		}
	}
}
