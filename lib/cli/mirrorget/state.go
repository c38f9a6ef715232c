package mirrorget

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/frontier"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/sysfile"
	"github.com/arcport/arcport/lib/internal/tailfile"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/warc"
)

// stateDir is where the embedded frontier of o is kept: --state DIR, or
// DIR/hts-cache with -O DIR; "" for a crawl kept in memory or in Redis.
func (o *Options) stateDir() string {
	switch {
	case o.Frontier != "":
		return ""
	case o.State != "":
		return o.State
	case o.Mirror != "":
		return filepath.Join(o.Mirror, "hts-cache")
	}
	return ""
}

// frontierOptions are the crawl's politeness settings for a frontier: -c
// per host and --rate hold across all workers.
func (o *Options) frontierOptions() frontier.Options {
	fo := frontier.Options{Lease: o.Lease, PerHost: o.PerHost}
	if o.Crawl.Rate > 0 {
		// as lib/crawl paces one process: 1% over 1/rate
		fo.Interval = time.Duration(float64(time.Second) / o.Crawl.Rate * 1.01)
	}
	return fo
}

// openFrontier opens the crawl state of o: a Redis crawl, or the embedded
// one in stateDir. fresh reports a state that holds no crawl yet.
func openFrontier(ctx context.Context, o *Options) (f frontier.Frontier, fresh bool, err error) {
	if o.Frontier != "" {
		r, err := frontier.DialRedis(ctx, o.Frontier, frontier.RedisOptions{Options: o.frontierOptions(), CrawlID: o.CrawlID})
		if err != nil {
			return nil, false, err
		}
		return r, false, nil
	}
	dir := o.stateDir()
	db := filepath.Join(dir, frontier.BoltFile)
	_, statErr := os.Stat(db)
	exists := statErr == nil
	if exists && !o.Continue && !o.Status && !o.Stop {
		b, err := frontier.OpenBolt(dir, o.frontierOptions())
		if err != nil {
			return nil, false, err
		}
		st, _ := b.Stats(ctx)
		b.Close()
		return nil, false, cliutil.Usagef("%s holds a crawl that did not finish (%d done, %d queued): add --continue to carry it on, or remove %s to start over",
			dir, st.Done, st.Queued+st.Leased, db)
	}
	if !exists && (o.Status || o.Stop) {
		return nil, false, fmt.Errorf("%s: no crawl state there", dir)
	}
	b, err := frontier.OpenBolt(dir, o.frontierOptions())
	if err != nil {
		return nil, false, err
	}
	return b, !exists, nil
}

// statusHosts is how many hosts --status lists without -v: the busiest.
const statusHosts = 50

// printStatus prints the counters of a crawl for --status: the crawl's,
// then the hosts with the most URLs queued or leased (every host, by
// name, with all).
func printStatus(ctx context.Context, f frontier.Frontier, w io.Writer, all bool) error {
	a, err := f.Stats(ctx)
	if err != nil {
		return err
	}
	t0 := time.Now()
	time.Sleep(time.Second)
	b, err := f.Stats(ctx)
	if err != nil {
		return err
	}
	rate := float64(b.Done-a.Done) / time.Since(t0).Seconds()
	state := "running"
	switch {
	case b.Stopped:
		state = "stopping"
	case b.Queued == 0 && b.Leased == 0:
		state = "over"
	}
	fmt.Fprintf(w, "crawl: %s\nqueued: %d\nleased: %d\ndone: %d\nfailed: %d\nseen: %d\nexpired leases: %d\npages/s: %.1f\n",
		state, b.Queued, b.Leased, b.Done, b.Failed, b.Seen, b.Expired, rate)
	hosts := make([]string, 0, len(b.Hosts))
	for h := range b.Hosts {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	fmt.Fprintf(w, "hosts: %d\n", len(hosts))
	if !all {
		sort.SliceStable(hosts, func(i, j int) bool {
			x, y := b.Hosts[hosts[i]], b.Hosts[hosts[j]]
			return x.Queued+x.Leased > y.Queued+y.Leased
		})
	}
	for i, h := range hosts {
		if !all && i == statusHosts {
			fmt.Fprintf(w, "... %d more hosts (-v lists every one)\n", len(hosts)-i)
			break
		}
		s := b.Hosts[h]
		fmt.Fprintf(w, "host %s: queued %d, leased %d, done %d, failed %d\n", h, s.Queued, s.Leased, s.Done, s.Failed)
	}
	return nil
}

// rotator writes a worker's captures to its own WARC (or ARC) files in a
// folder or under an s3:// prefix, PREFIX-TIMESTAMP-SERIAL-WORKER.warc.gz
// as the WARC naming conventions suggest, rotated at --warc-max-size, each
// with NAME.cdxj beside it.
//
// In a folder a file is written as NAME.open (Heritrix's convention),
// locked while written, indexed and renamed to NAME once complete; a
// NAME.open left by a killed worker is cut back to its last complete
// capture, indexed and renamed by the next worker that starts there. A
// capture is durable once the file is synced.
//
// Under s3:// a file is a multipart upload that appears only when complete,
// so a capture is durable only then: commit completes the object once it
// is maxAge old or the worker has written nothing for idle (and at the
// end), and until then the URLs stay leased. A killed worker's upload never
// appears; its leases expire and other workers fetch those URLs again.
type rotator struct {
	ctx    context.Context
	dir    string // folder, or s3://bucket/prefix/
	remote bool
	prefix string
	worker string
	format string
	max    int64
	maxAge time.Duration // s3: the longest a file stays open
	idle   time.Duration // s3: complete the file after this long without a write
	cfg    *crawl.Config
	logf   func(string, ...any)

	mu        sync.Mutex
	serial    int
	f         *os.File       // local
	w         store.Writer   // s3
	tail      *tailfile.File // s3: the stream's output in front of w
	name      string         // final path or URL of the file being written
	st        *stream
	opened    time.Time
	lastWrite time.Time
	files     []string // completed
}

func (r *rotator) ext() string {
	if r.format == "arc" {
		return ".arc.gz"
	}
	return ".warc.gz"
}

// recoverOpen finishes the NAME.open files of dead workers in a folder,
// adding the URLs at their ends to into.
func (r *rotator) recoverOpen(into recovered) error {
	if r.remote {
		return nil
	}
	ents, err := os.ReadDir(r.dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, r.ext()+".open") || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(r.dir, n)
		f, err := sysfile.OpenFile(p, os.O_RDWR, 0) // renamed below while open
		if err != nil {
			return err
		}
		if err := sysfile.Lock(f); err != nil {
			f.Close()
			continue // a live worker's
		}
		cut, err := recoverFile(p, r.format, into)
		if err == nil {
			final := strings.TrimSuffix(p, ".open")
			if err = writeCDXJ(p, final, r.format); err == nil {
				err = os.Rename(p, final)
				r.logf("%s: recovered from a worker that stopped (%d bytes of an incomplete record cut)", final, cut)
			}
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return syncDir(r.dir)
}

func (r *rotator) join(base string) string {
	if r.remote {
		return strings.TrimSuffix(r.dir, "/") + "/" + base
	}
	return filepath.Join(r.dir, base)
}

func (r *rotator) open() error {
	r.serial++
	ts := time.Now().UTC().Format("20060102150405")
	r.opened = time.Now()
	if r.remote {
		r.name = r.join(fmt.Sprintf("%s-%s-%05d-%s%s", r.prefix, ts, r.serial, r.worker, r.ext()))
		w, err := cliutil.Store().Create(context.Background(), r.name)
		if err != nil {
			return err
		}
		r.w, r.tail = w, tailfile.New(w, 8<<20, "")
		r.st = newStream(r.ctx, r.tail, r.tail, r.format, path.Base(r.name), r.cfg)
		return nil
	}
	for {
		r.name = r.join(fmt.Sprintf("%s-%s-%05d-%s%s", r.prefix, ts, r.serial, r.worker, r.ext()))
		// renamed by closeFile while open: FILE_SHARE_DELETE on Windows
		f, err := sysfile.OpenFile(r.name+".open", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			r.serial++
			continue
		}
		if err != nil {
			return err
		}
		if err := sysfile.Lock(f); err != nil {
			f.Close()
			return err
		}
		r.f = f
		r.st = newStream(r.ctx, f, f, r.format, filepath.Base(r.name), r.cfg)
		return nil
	}
}

// write is the sink's: one capture to the current file.
func (r *rotator) write(cp *crawl.Capture) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil {
		if err := r.open(); err != nil {
			return err
		}
	}
	if err := r.st.write(cp); err != nil {
		return err
	}
	r.lastWrite = time.Now()
	if r.st.mark >= r.max {
		return r.closeFile()
	}
	return nil
}

// closeFile ends the current file: closed, synced, indexed, named.
func (r *rotator) closeFile() error {
	if r.st == nil {
		return nil
	}
	name := r.name
	err := r.st.close()
	r.st = nil
	if r.remote {
		w, tail := r.w, r.tail
		r.w, r.tail = nil, nil
		if err == nil {
			err = tail.Close()
		}
		if err == nil {
			err = w.Commit()
		} else {
			w.Abort()
		}
		if err == nil {
			err = writeCDXJ(name, name, r.format)
		}
	} else {
		f := r.f
		r.f = nil
		if err == nil {
			err = f.Sync()
		}
		if err == nil {
			err = writeCDXJ(name+".open", name, r.format)
		}
		if err == nil {
			err = os.Rename(name+".open", name)
		}
		f.Close()
		if err == nil {
			err = syncDir(r.dir)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", store.Redact(name), err)
	}
	r.files = append(r.files, name)
	return nil
}

// commit makes the captures written so far to a folder durable.
func (r *rotator) commit() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil {
		return nil // all in completed files
	}
	return r.f.Sync()
}

// epoch is the serial of the file being written, or of the next one.
func (r *rotator) epoch() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil {
		return int64(r.serial) + 1
	}
	return int64(r.serial)
}

// durable completes the S3 object being written when it is maxAge old, has
// had no write for idle, or final is set, and returns the serial of the
// first object not complete.
func (r *rotator) durable(final bool) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st != nil && (final || time.Since(r.opened) >= r.maxAge || time.Since(r.lastWrite) >= r.idle) {
		if err := r.closeFile(); err != nil {
			return 0, err
		}
	}
	if r.st == nil {
		return int64(r.serial) + 1, nil
	}
	return int64(r.serial), nil
}

func (r *rotator) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closeFile()
}

// writeCDXJ indexes the archive src (a path or URL), to be named name, into
// NAME.cdxj beside it, sorted. A local index is written through a
// temporary file before the archive gets its name, so that a finished
// archive always has its index; in S3 it follows the archive.
func writeCDXJ(src, name, format string) error {
	ra, err := cliutil.OpenAt(src)
	if err != nil {
		return err
	}
	defer ra.Close()
	sr := io.NewSectionReader(ra, 0, ra.Size())
	var rd record.Reader
	if format == "arc" {
		rd, err = arc.NewReader(sr, arc.WithName(name))
	} else {
		rd, err = warc.NewReader(sr, warc.WithFilename(name))
	}
	if err != nil {
		return err
	}
	ix := cdx.NewIndexer(rd, path.Base(name), cdx.WithSource(ra))
	var lines []string
	for {
		e, err := ix.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		lines = append(lines, string(e.AppendCDXJ(nil)))
	}
	sort.Strings(lines)
	base := strings.TrimSuffix(name, ".gz")
	out := strings.TrimSuffix(base, path.Ext(base)) + ".cdxj"
	w, err := cliutil.Store().Create(context.Background(), out)
	if err != nil {
		return err
	}
	defer w.Abort()
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return w.Commit()
}

// checkStateDir refuses a state folder reached through a symbolic link in
// a mirror (DIR/hts-cache or its database), as the mirror refuses them.
func checkStateDir(o *Options) error {
	if o.Mirror == "" || o.State != "" || o.Frontier != "" {
		return nil
	}
	for _, p := range []string{o.Mirror, filepath.Join(o.Mirror, "hts-cache"), filepath.Join(o.Mirror, "hts-cache", frontier.BoltFile)} {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s: refusing a symbolic link for the crawl state", p)
		}
	}
	return nil
}

// statusOrStop runs --status or --stop.
func statusOrStop(ctx context.Context, o *Options, stdout io.Writer) error {
	f, _, err := openFrontier(ctx, o)
	if err != nil {
		return err
	}
	defer f.Close()
	if o.Stop {
		if err := f.Stop(ctx); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "stop requested: workers finish their fetches and exit")
		return nil
	}
	return printStatus(ctx, f, stdout, o.Verbose)
}
