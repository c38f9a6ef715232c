package waczpack

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/urfave/cli/v2"
)

// indexFlags are the flags of the index command.
func indexFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "cdx11", Usage: "CDX-11 instead of CDXJ"},
		&cli.BoolFlag{Name: "sort", Usage: "print the lines sorted in byte order (LC_ALL=C sort), all inputs together: a per-file run for --zipnum"},
		&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Usage: "write to `FILE` (local or s3://; appears only when whole) instead of stdout"},
		&cli.IntFlag{Name: "j", Aliases: []string{"jobs"}, Value: runtime.NumCPU(), Usage: "index `N` inputs at a time (--sort, --zipnum)"},
		&cli.StringFlag{Name: "zipnum", Usage: "write a ZipNum cluster (pywb, cc-index) into folder or s3:// prefix `OUT/`"},
		&cli.IntFlag{Name: "shards", Value: 1, Usage: "cut the cluster into `S` parts by SURT key range"},
		&cli.IntFlag{Name: "shard", Value: -1, Usage: "write only part `K` (0..S-1) of the cluster, from sorted .cdxj runs; then --finish"},
		&cli.BoolFlag{Name: "finish", Usage: "join the parts written by --shard K tasks into cluster.idx and cluster.loc"},
		&cli.IntFlag{Name: "block-lines", Value: cdx.DefaultClusterBlockLines, Usage: "CDXJ lines per gzip block of the cluster"},
		&cli.StringFlag{Name: "tmpdir", Usage: "directory for temporary files (default: the system's)"},
		cdxjIndexerFlag,
	}
}

// isRunName reports whether name is a CDXJ file (a sorted per-file run).
func isRunName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".cdxj") || strings.HasSuffix(n, ".cdx")
}

// expandRuns lists the .cdxj runs under a folder or s3:// prefix, in name
// order; other names stay as they are.
func expandRuns(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		var names []string
		switch {
		case store.KindOf(a) == store.S3 && strings.HasSuffix(a, "/"):
			l, err := cliutil.Store().List(context.Background(), a)
			if err != nil {
				return nil, err
			}
			names = l
		case store.KindOf(a) == store.Local:
			st, err := os.Stat(a)
			if err != nil || !st.IsDir() {
				out = append(out, a)
				continue
			}
			ents, err := os.ReadDir(a)
			if err != nil {
				return nil, err
			}
			for _, e := range ents {
				names = append(names, filepath.Join(a, e.Name()))
			}
		default:
			out = append(out, a)
			continue
		}
		n := 0
		for _, name := range names {
			if isRunName(name) {
				out = append(out, name)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no .cdxj runs there", store.Redact(a))
		}
	}
	return out, nil
}

// indexInputs expands the index command's arguments: archives (and
// folders or prefixes of them), or, when the arguments name .cdxj runs or
// folders holding only runs, the runs.
func indexInputs(args []string) (files []string, runs bool, err error) {
	for _, a := range args {
		if isRunName(a) {
			runs = true
		}
	}
	if !runs && len(args) > 0 {
		if files, err = cliutil.ExpandInputs(args); err == nil {
			return files, false, nil
		}
		if r, rerr := expandRuns(args); rerr == nil {
			return r, true, nil
		}
		return nil, false, err
	}
	files, err = expandRuns(args)
	if err != nil {
		return nil, false, err
	}
	for _, f := range files {
		if !isRunName(f) {
			return nil, false, fmt.Errorf("%s: not a .cdxj run (runs and archives cannot be mixed)", store.Redact(f))
		}
	}
	return files, true, nil
}

// indexFile calls fn with every index entry of one archive.
func indexFile(name string, stdin io.Reader, fn func(*cdx.Entry) error) error {
	var r io.Reader = stdin
	var ra io.ReaderAt
	if cliutil.IsRemote(name) {
		f, shown, err := cliutil.OpenInput(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r, name = f, shown
	} else if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r, ra = f, f
	}
	ix, err := wacz.NewFileIndexer(r, ra, name)
	if err != nil {
		return err
	}
	for {
		e, err := ix.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// collect indexes files (or copies runs) into a Sorter, jobs at a time,
// and returns the number of lines. The first error stops the others.
func collect(files []string, runs bool, jobs int, cdx11 bool, stdin io.Reader, s *cdx.Sorter) (int64, error) {
	var (
		mu       sync.Mutex
		total    int64
		firstErr error
		wg       sync.WaitGroup
	)
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return firstErr != nil }
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	next := make(chan string)
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			var n int64
			flush := func() error {
				mu.Lock()
				defer mu.Unlock()
				for rest := buf; len(rest) > 0; {
					i := bytes.IndexByte(rest, '\n')
					if err := s.Add(rest[:i]); err != nil {
						return err
					}
					rest = rest[i+1:]
				}
				total += n
				n = 0
				buf = buf[:0]
				return nil
			}
			for name := range next {
				if failed() {
					continue
				}
				if runs {
					if err := addRun(name, s, &mu, &total); err != nil {
						fail(err)
					}
					continue
				}
				err := indexFile(name, stdin, func(e *cdx.Entry) error {
					if cdx11 {
						buf = e.AppendCDX11(buf)
					} else {
						buf = e.AppendCDXJ(buf)
					}
					n++
					if len(buf) > 8<<20 {
						return flush()
					}
					return nil
				})
				if err == nil {
					err = flush()
				}
				if err != nil {
					fail(err)
				}
				buf, n = buf[:0], 0
			}
		}()
	}
	for _, f := range files {
		if failed() {
			break
		}
		next <- f
	}
	close(next)
	wg.Wait()
	return total, firstErr
}

// countingReader counts the lines read through it.
type countingReader struct {
	r     io.Reader
	lines int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			c.lines++
		}
	}
	return n, err
}

// addRun copies one sorted run into the sorter.
func addRun(name string, s *cdx.Sorter, mu *sync.Mutex, total *int64) error {
	f, shown, err := cliutil.OpenInput(name)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := &countingReader{r: f}
	mu.Lock()
	defer mu.Unlock()
	if err := s.AddRun(cr); err != nil {
		return fmt.Errorf("%s: %w", shown, err)
	}
	*total += cr.lines
	return nil
}

// indexCollection runs the index command's --sort and --zipnum modes.
func indexCollection(c *cli.Context, stdin io.Reader, stdout io.Writer) error {
	out := c.String("zipnum")
	shards, shard := c.Int("shards"), c.Int("shard")
	if shards < 1 {
		return cliutil.Usagef("--shards must be at least 1")
	}
	if shard >= shards || shard < -1 {
		return cliutil.Usagef("--shard %d: want 0..%d for --shards %d", shard, shards-1, shards)
	}
	if out == "" && (shard >= 0 || c.Bool("finish") || c.IsSet("shards")) {
		return cliutil.Usagef("--shards, --shard and --finish need --zipnum OUT/")
	}
	if out != "" && (c.Bool("cdx11") || c.String("o") != "") {
		return cliutil.Usagef("--zipnum writes CDXJ into OUT/: no --cdx11 or -o")
	}
	opts := cdx.ClusterOptions{BlockLines: c.Int("block-lines")}
	if c.Bool("finish") {
		if c.NArg() > 0 {
			return cliutil.Usagef("--finish takes no inputs")
		}
		dir, err := openClusterDir(out)
		if err != nil {
			return err
		}
		return cdx.JoinParts(dir, shards)
	}
	if c.NArg() == 0 {
		return cliutil.Usagef("no inputs: give archives, .cdxj runs, folders or s3:// prefixes")
	}
	files, runs, err := indexInputs(c.Args().Slice())
	if err != nil {
		return err
	}
	if shard >= 0 {
		if !runs {
			return cliutil.Usagef("--shard K merges sorted .cdxj runs (made with `waczpack index --sort FILE -o FILE.cdxj`), not archives")
		}
		return writeShard(out, files, shards, shard, opts, c.String("tmpdir"))
	}
	setIndexMemory()
	sorter := cdx.NewSorter(cdx.WithTempDir(c.String("tmpdir")), cdx.WithChunkSize(collectionSortChunk))
	defer sorter.Close()
	var splits []string
	if runs && out != "" && shards > 1 {
		if splits, err = sampleRuns(files, shards); err != nil {
			return err
		}
	}
	total, err := collect(files, runs, c.Int("j"), c.Bool("cdx11"), stdin, sorter)
	if err != nil {
		return err
	}
	if out == "" {
		return writeSorted(c, sorter, stdout)
	}
	return writeCluster(out, func(dir cdx.ClusterDir) error {
		var w *cdx.ClusterWriter
		if splits != nil {
			w = cdx.NewClusterWriterSplits(dir, splits, opts)
		} else {
			w = cdx.NewClusterWriter(dir, shards, total, opts)
		}
		if err := sorter.Each(w.WriteLine); err != nil {
			w.Abort()
			return err
		}
		return w.Close()
	})
}

// writeSorted writes the sorted lines to -o or stdout.
func writeSorted(c *cli.Context, sorter *cdx.Sorter, stdout io.Writer) error {
	w := stdout
	var o cliutil.Output
	if name := c.String("o"); name != "" && name != "-" {
		var err error
		if o, err = cliutil.CreateOutput(name); err != nil {
			return err
		}
		defer o.Abort()
		w = o
	}
	if c.Bool("cdx11") {
		io.WriteString(w, cdx.CDX11Header+"\n")
	}
	if _, err := sorter.WriteTo(w); err != nil {
		return err
	}
	if o != nil {
		return o.Commit()
	}
	return nil
}

// sampleRuns computes the split keys of the runs (cdx.SampleSplits),
// opening one run at a time.
func sampleRuns(files []string, shards int) ([]string, error) {
	sm := cdx.NewSampler(len(files), 0)
	for _, f := range files {
		ra, err := cliutil.OpenAt(f)
		if err != nil {
			return nil, err
		}
		err = sm.Add(ra)
		ra.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", store.Redact(f), err)
		}
	}
	return sm.Splits(shards), nil
}

// collectionSortChunk is the memory of a collection index's sort: lines
// past it go to sorted runs in unlinked temporary files.
const collectionSortChunk = 16 << 20

// setIndexMemory sets, unless GOMEMLIMIT is set, the soft memory limit of
// a collection index: what stays live is bounded (the sort chunk, a
// reader per job), so the collector runs before the heap doubles and RSS
// stays under 100 MiB whatever the number of inputs.
func setIndexMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(localCreateMemory)
	}
}

// writeShard writes part k of a cluster from the lines of the runs in
// its key range: the task of one of S independent workers.
func writeShard(out string, files []string, shards, k int, opts cdx.ClusterOptions, tmpDir string) error {
	splits, err := sampleRuns(files, shards)
	if err != nil {
		return err
	}
	from, to := cdx.ShardRange(splits, k)
	setIndexMemory()
	sorter := cdx.NewSorter(cdx.WithTempDir(tmpDir), cdx.WithChunkSize(collectionSortChunk))
	defer sorter.Close()
	for _, f := range files {
		if err := addRunRange(f, sorter, from, to); err != nil {
			return err
		}
	}
	dir, err := openClusterDir(out)
	if err != nil {
		return err
	}
	p, err := cdx.NewPartWriter(dir, k, opts)
	if err != nil {
		return err
	}
	if err := sorter.Each(p.WriteLine); err != nil {
		p.Abort()
		return err
	}
	return p.Commit()
}

// addRunRange copies the lines of one run in [from, to) into the sorter,
// reading from the first of them on (a binary search in the run).
func addRunRange(name string, s *cdx.Sorter, from, to string) error {
	ra, err := cliutil.OpenAt(name)
	if err != nil {
		return err
	}
	defer ra.Close()
	r, err := cdx.RunFrom(ra, from)
	if err == nil {
		err = s.AddRunRange(bufio.NewReaderSize(r, 256<<10), from, to)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", store.Redact(name), err)
	}
	return nil
}

// writeCluster runs fill on the cluster folder out: locally a temporary
// folder beside it, renamed to out when fill succeeds (an existing
// cluster there is replaced; anything else there is an error); on s3://
// the prefix itself, each object appearing whole, cluster.idx last.
func writeCluster(out string, fill func(cdx.ClusterDir) error) error {
	if cliutil.IsRemote(out) {
		dir, err := openClusterDir(out)
		if err != nil {
			return err
		}
		return fill(dir)
	}
	out = filepath.Clean(out)
	old := false
	if st, err := os.Stat(out); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s: exists and is not a folder", out)
		}
		ents, _ := os.ReadDir(out)
		if len(ents) > 0 {
			if _, err := os.Stat(filepath.Join(out, cdx.ClusterIdxName)); err != nil {
				return fmt.Errorf("%s: exists and holds no %s: not replaced", out, cdx.ClusterIdxName)
			}
		}
		old = true
	}
	parent, base := filepath.Split(out)
	if parent == "" {
		parent = "."
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := fill(&localDir{tmp}); err != nil {
		return err
	}
	if old {
		aside := tmp + ".old"
		if err := os.Rename(out, aside); err != nil {
			return err
		}
		defer os.RemoveAll(aside)
	}
	return os.Rename(tmp, out)
}

// openClusterDir opens a cluster folder for the --shard and --finish
// steps: a local folder (made if missing) or an s3:// prefix.
func openClusterDir(out string) (cdx.ClusterDir, error) {
	if store.KindOf(out) == store.S3 {
		if !strings.HasSuffix(out, "/") {
			out += "/"
		}
		return &s3Dir{out}, nil
	}
	if cliutil.IsRemote(out) {
		return nil, fmt.Errorf("%s: a cluster is written to a folder or an s3:// prefix", store.Redact(out))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	return &localDir{out}, nil
}

// localDir is a cluster folder on disk.
type localDir struct{ path string }

func (d *localDir) Create(name string) (cdx.ClusterFile, error) {
	return cliutil.CreateAtomic(filepath.Join(d.path, name))
}

func (d *localDir) Open(name string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(d.path, name))
}

func (d *localDir) List() ([]string, error) {
	ents, err := os.ReadDir(d.path)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, err
}

// s3Dir is a cluster under an s3:// prefix ending in "/".
type s3Dir struct{ prefix string }

func (d *s3Dir) Create(name string) (cdx.ClusterFile, error) {
	return cliutil.CreateOutput(d.prefix + name)
}

func (d *s3Dir) Open(name string) (io.ReadCloser, error) {
	r, _, err := cliutil.OpenInput(d.prefix + name)
	return r, err
}

func (d *s3Dir) List() ([]string, error) {
	urls, err := cliutil.Store().List(context.Background(), d.prefix)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	var out []string
	for _, u := range urls {
		rest := strings.TrimPrefix(u, d.prefix)
		if !strings.Contains(rest, "/") {
			out = append(out, path.Base(u))
		}
	}
	return out, nil
}
