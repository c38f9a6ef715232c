package cliutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/store"
)

// Where inputs and outputs are opened: every name a tool takes (a path,
// "-", s3://bucket/key, s3://bucket/prefix/, http(s)://) goes through one
// store.Store, configured by the storage flags that Prepare adds to every
// binary and command.
var (
	storeMu   sync.Mutex
	storeOpts store.Options
	theStore  *store.Store
)

// Store returns the store.Store the tools open names with, made from the
// storage flags at its first use. AWS_MAX_ATTEMPTS (as the AWS CLI reads
// it: attempts in all, 1 = no retry) bounds the retries of a failed
// s3:// or http(s):// request; the default is 6 attempts.
func Store() *store.Store {
	storeMu.Lock()
	defer storeMu.Unlock()
	if theStore == nil {
		o := storeOpts
		// 64 KiB blocks, 4 MiB of cache: a lookup in a remote WACZ or
		// ZIM reads a few small ranges (zip directory, index block,
		// record; pointer lists and dirents) rather than 256 KiB each
		if o.BlockSize == 0 {
			o.BlockSize, o.CacheBlocks = 64<<10, 64
		}
		if v := os.Getenv("AWS_MAX_ATTEMPTS"); v != "" {
			if n, err := strconv.Atoi(v); err == nil && n >= 1 {
				o.Retries = n - 1
				if o.Retries == 0 {
					o.Retries = -1 // none (0 would mean the default)
				}
			}
		}
		theStore = store.New(o)
	}
	return theStore
}

// ResetStore drops the store, so that its next use reads the environment
// again: for tests that start an S3 server of their own in a process
// where another test already used one.
func ResetStore() { setStoreOption(func(*store.Options) {}) }

// addFlags appends to flags those of more whose names it lacks.
func addFlags(flags []cli.Flag, more []cli.Flag) []cli.Flag {
	have := map[string]bool{}
	for _, f := range flags {
		for _, n := range f.Names() {
			have[n] = true
		}
	}
	for _, f := range more {
		if !have[f.Names()[0]] {
			flags = append(flags, f)
		}
	}
	return flags
}

// setStoreOption changes the store's options before its first use.
func setStoreOption(set func(*store.Options)) {
	storeMu.Lock()
	defer storeMu.Unlock()
	set(&storeOpts)
	theStore = nil
}

// StorageFlags are the flags that configure object storage, as the AWS CLI
// names them where it has them.
func StorageFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-sign-request", Usage: "read s3:// anonymously (public buckets), as the AWS CLI's --no-sign-request",
			Action: func(_ *cli.Context, v bool) error {
				setStoreOption(func(o *store.Options) { o.NoSignRequest = v })
				return nil
			}},
		&cli.StringFlag{Name: "part-size", Usage: "multipart upload part `SIZE` for -o s3:// (suffixes k, m, g; default 16m, at least 5m)",
			Action: func(_ *cli.Context, v string) error {
				n, err := compio.ParseSize(v)
				if err != nil || n < 5<<20 {
					return Usagef("--part-size %q: want a size of at least 5m", v)
				}
				setStoreOption(func(o *store.Options) { o.PartSize = n })
				return nil
			}},
	}
}

// ExpandInputs turns a tool's input arguments into the names to read: an
// s3://bucket/prefix/ or a local folder becomes the archives in it (names
// ending in .warc, .arc, .warc.gz, .arc.gz, .warc.zst or .arc.zst: a
// crawl's folder also holds CDXJ files and NAME.open files still being
// written), in name order; other names stay as they are.
func ExpandInputs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		var names []string
		switch {
		case store.KindOf(a) == store.S3 && (strings.HasSuffix(a, "/") || !strings.Contains(strings.TrimPrefix(a, "s3://"), "/")):
			l, err := Store().Expand(context.Background(), []string{a})
			if err != nil {
				return nil, err
			}
			names = l
		case store.KindOf(a) == store.Local && a != "-":
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
				if e.Type().IsRegular() {
					names = append(names, filepath.Join(a, e.Name()))
				}
			}
		default:
			out = append(out, a)
			continue
		}
		n := 0
		for _, name := range names {
			if IsArchiveName(name) {
				out = append(out, name)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no WARC or ARC files there", store.Redact(a))
		}
	}
	return out, nil
}

// IsArchiveName reports whether name ends like a WARC or ARC file.
func IsArchiveName(name string) bool {
	name = strings.ToLower(name)
	for _, e := range []string{".warc", ".arc", ".warc.gz", ".arc.gz", ".warc.zst", ".arc.zst"} {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	return false
}

// IsRemote reports whether name is an s3:// or http(s):// URL.
func IsRemote(name string) bool { return store.IsRemote(name) }

// RandomAccess is an input read in place: a local file or a remote object
// read by ranges.
type RandomAccess interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

type localRA struct {
	*os.File
	size int64
}

func (l *localRA) Size() int64 { return l.size }

// OpenAt opens name for random access: a local file, or an s3:// or
// http(s):// object read by ranged requests through a block cache.
func OpenAt(name string) (RandomAccess, error) {
	if store.IsRemote(name) {
		return Store().OpenAt(context.Background(), name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	return &localRA{f, st.Size()}, nil
}

// Output is where a tool writes a result that must appear whole or not at
// all: Commit publishes it, Abort (a no-op after Commit) discards it.
type Output interface {
	io.Writer
	Commit() error
	Abort()
}

// CreateOutput opens name for writing: a local path (an AtomicFile: a
// temporary file beside it, renamed by Commit), or s3://bucket/key (a
// streaming multipart upload completed by Commit). On SIGINT or SIGTERM
// before Commit, the temporary file is removed or the upload aborted, so
// nothing is left under the name. "-" and "" are not outputs of this kind:
// write to standard output instead.
func CreateOutput(name string) (Output, error) {
	if !store.IsRemote(name) {
		return CreateAtomic(name)
	}
	w, err := Store().Create(context.Background(), name)
	if err != nil {
		return nil, err
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The upload's part buffers are live and reused; a soft limit
		// above them has the collector reclaim the rest of the garbage
		// before the heap doubles (waczpack create of a 199 MB WACZ to
		// s3://: 116 MiB RSS with it, 140-158 MiB without, no slower).
		// It grows with the buffers, so that a larger --part-size does
		// not make the collector run without end.
		debug.SetMemoryLimit(Store().UploadMemory() + uploadMemoryOther)
	}
	o := &remoteOutput{w: w}
	o.id = registerAbort(func() { w.Abort() })
	return o, nil
}

// uploadMemoryOther is, beyond the part buffers of its upload, the soft
// memory limit (runtime/debug) of a process writing to s3://, unless
// GOMEMLIMIT sets one: 100 MiB in all with the default part size.
const uploadMemoryOther = 52 << 20

type remoteOutput struct {
	w    store.Writer
	id   int
	done bool
}

func (o *remoteOutput) Write(p []byte) (int, error) { return o.w.Write(p) }

// Commit completes the upload, unless a termination signal has arrived:
// then the handler aborts it and ends the process.
func (o *remoteOutput) Commit() error {
	if o.done {
		return nil
	}
	o.done = true
	sigMu.Lock()
	select {
	case s := <-sigCh:
		handleSignal(s) // does not return
	default:
	}
	if s := sigTaken.Load(); s != nil {
		handleSignal(*s) // does not return
	}
	delete(aborts, o.id)
	sigMu.Unlock()
	return o.w.Commit()
}

func (o *remoteOutput) Abort() {
	if o.done {
		return
	}
	o.done = true
	unregisterAbort(o.id)
	o.w.Abort()
}
