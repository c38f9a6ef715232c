package zim

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/arcport/arcport/lib/internal/safefs"
)

// DumpOptions configures Archive.Dump.
type DumpOptions struct {
	// Symlinks writes every redirect as a symbolic link (zimdump
	// --redirect). Otherwise a redirect to an HTML item becomes an HTML
	// refresh page and other redirects still become links, as in zimdump.
	Symlinks bool
	// Workers is the number of goroutines decompressing clusters, and of
	// those creating and of those writing the files (default GOMAXPROCS,
	// at most 8); 1 does everything in the calling goroutine.
	Workers int
	// Log receives zimdump's "Wrote X to Y" lines for the files that could
	// not be written at their place and went to DIR/_exceptions/.
	Log io.Writer
}

// ErrorsDir is the folder of dir where Dump puts files it cannot write at
// their place (zimdump's "_exceptions/"), with '/' in their path as "%2f".
const ErrorsDir = "_exceptions/"

type dumpAction uint8

const (
	actNone    dumpAction = iota
	actFile               // blob to rel
	actStub               // HTML redirect page to rel
	actLink               // symlink rel -> link
	actErrFile            // blob to the errors dir
	actErrStub            // HTML redirect page to the errors dir
	actSuperseded
)

type dumpItem struct {
	order int
	e     Entry
	rel   string // safe relative path ("" when unusable)
	act   dumpAction
	link  string // symlink target or stub URL
}

// SafeRelPath maps an archive path to a relative path that stays inside
// the dump folder: empty and "." components are dropped (the file system
// ignores them too), ".." becomes "%2E%2E". ok is false for a path that
// leaves no file name (empty, or ending in "/" or "/.").
func SafeRelPath(p string) (rel string, ok bool) {
	if cleanRel(p) {
		return p, true
	}
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	out := parts[:0]
	for _, s := range parts {
		switch s {
		case "", ".":
			continue
		case "..":
			s = "%2E%2E"
		}
		out = append(out, s)
	}
	if last == "" || last == "." || len(out) == 0 {
		return strings.Join(out, "/"), false
	}
	return strings.Join(out, "/"), true
}

// cleanRel reports whether SafeRelPath would return p unchanged: no empty,
// "." or ".." component, and not empty.
func cleanRel(p string) bool {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch p[start:i] {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}

// truncateName shortens a file name longer than 255 bytes as zimdump does:
// its first 254-len(n) bytes, "~" and the running number n.
func truncateName(name string, n int) string {
	post := strconv.Itoa(n)
	return name[:254-len(post)] + "~" + post
}

// Dump writes every user entry under dir as openzim's zimdump dump does:
// the same paths (with the same truncation of names longer than 255
// bytes), redirects as HTML refresh pages or symbolic links, files that
// cannot be written at their place in dir/_exceptions/. Unlike zimdump it
// never writes outside dir: see SafeRelPath; it never follows a symbolic
// link it finds in dir either (every path is opened below dir with
// lib/internal/safefs): such a link, to a file or a folder, is reported
// on o.Log ("DIR/path: symbolic link refused, ..."), the entries it
// would take are not written, the others are, and Dump then fails.
// Clusters are decompressed in parallel, each once, ahead of the
// goroutines that create the files: see writeAll.
func (a *Archive) Dump(dir string, o DumpOptions) error {
	if o.Workers <= 0 {
		o.Workers = min(runtime.GOMAXPROCS(0), 8)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	os.Mkdir(dir, 0o777)
	order, err := a.EfficientOrder()
	if err != nil {
		return err
	}
	plan, dirs, fatal := a.planDump(dir, order, o)
	d := &dumper{a: a, dir: dir, o: o, realDirs: map[string]bool{"": true}, linkDirs: map[string]bool{}, reported: map[string]bool{}}
	// without the folder every file fails, as with os.Mkdir's error
	// ignored before: they go to the errors folder, which fails too
	if root, err := safefs.OpenRoot(dir); err == nil {
		d.root = root
		defer root.Close()
	}
	for _, rd := range dirs {
		d.mkdirs(rd)
	}
	d.dirs = openDirs(d.root, dirs)
	defer d.dirs.close()
	// links first: their places were checked by the plan
	for i := range plan {
		it := &plan[i]
		if it.act == actLink {
			if err := d.symlink(it); err != nil {
				d.flushLog()
				return err
			}
		}
	}
	err = d.writeAll(plan)
	d.flushLog()
	if err != nil {
		return err
	}
	if fatal != nil {
		return fatal
	}
	if n := d.refused.Load(); n > 0 {
		what := "entries"
		if n == 1 {
			what = "entry"
		}
		return fmt.Errorf("symbolic links refused in %s: %d %s not written", dir, n, what)
	}
	return nil
}

// planDump decides, in zimdump's order, where each entry goes, simulating
// the file system zimdump would build in an empty folder: a name taken by
// a directory or a file below a file cannot be written and goes to the
// errors folder; a later file of the same name replaces an earlier one.
func (a *Archive) planDump(dir string, order []uint32, o DumpOptions) (plan []dumpItem, dirs []string, fatal error) {
	type kind uint8
	const (
		kDir kind = iota + 1
		kFile
		kLink
	)
	seed := maphash.MakeSeed()
	h := func(s string) uint64 { return maphash.String(seed, s) }
	// path hash -> kind | plan index of the item writing a file << 8
	fs := make(map[uint64]uint64, len(order)+len(order)/8)
	var lastDir, safeDir string
	var blockedDir bool
	truncated := 0
	plan = make([]dumpItem, 0, len(order))
	cur := a.newEntryCursor()
	for k, idx := range order {
		e, err := cur.at(idx)
		if err != nil {
			return plan, dirs, err
		}
		if e.Kind == KindDeprecated {
			continue
		}
		p := a.PathOf(e)
		dirPart, name := "", p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			dirPart, name = p[:i+1], p[i+1:]
		}
		if len(name) > 255 {
			truncated++
			name = truncateName(name, truncated)
		}
		it := dumpItem{order: k, e: *e}
		// directories, as zimdump's createdir (errors ignored); a
		// folder's state never changes once made (or blocked), so the
		// previous entry's answer holds for the same folder
		if dirPart != lastDir || k == 0 {
			lastDir = dirPart
			safeDir, _ = SafeRelPath(dirPart)
			blockedDir = false
			if safeDir != "" {
				for i := 0; i <= len(safeDir); i++ {
					if i < len(safeDir) && safeDir[i] != '/' {
						continue
					}
					pre := safeDir[:i]
					hp := h(pre)
					switch kind(fs[hp]) {
					case 0:
						fs[hp] = uint64(kDir)
						dirs = append(dirs, pre)
					case kDir:
					default:
						blockedDir = true
					}
					if blockedDir {
						break
					}
				}
			}
		}
		blocked := blockedDir
		safeName, okName := SafeRelPath(name)
		rel := safeName
		if safeDir != "" {
			rel = safeDir + "/" + safeName
		}
		if !okName {
			rel = safeDir + "/"
			blocked = true
		}
		it.rel = rel
		isLink := false
		if e.Kind == KindRedirect {
			t, err := a.Resolve(e)
			if err != nil {
				return plan, dirs, err
			}
			sp, _ := SafeRelPath(p)
			tp, _ := SafeRelPath(a.PathOf(t))
			it.link = ComputeRelativePath(sp, tp)
			mt, err := a.MimeType(t)
			if err != nil {
				return plan, dirs, err
			}
			if !o.Symlinks && mt == "text/html" {
				it.act = actStub
			} else {
				isLink = true
				it.act = actLink
			}
		} else {
			it.act = actFile
		}
		hk := h(rel)
		node := fs[hk]
		cur := kind(node)
		switch {
		case isLink && (blocked || cur != 0):
			return plan, dirs, fmt.Errorf("Error creating symlink from %s to %s", dir+"/"+rel, it.link)
		case isLink:
			fs[hk] = uint64(kLink)
		case blocked || cur == kDir || cur == kLink:
			if it.act == actFile {
				it.act = actErrFile
			} else {
				it.act = actErrStub
			}
		default:
			if cur == kFile {
				plan[node>>8].act = actSuperseded
			}
			fs[hk] = uint64(kFile) | uint64(len(plan))<<8
		}
		plan = append(plan, it)
	}
	return plan, dirs, nil
}

type dumper struct {
	a         *Archive
	dir       string
	o         DumpOptions
	root      *safefs.Root // dir; nil when it cannot be opened
	mu        sync.Mutex
	realDirs  map[string]bool
	linkDirs  map[string]bool // folders below a symbolic link (refused), read-only once writing starts
	reported  map[string]bool // symbolic links reported, guarded by mu
	refused   atomic.Int64    // entries not written for a symbolic link
	dirs      dirSet
	logs      []logLine
	failed    []*dumpItem // files whose place failed, for the errors folder
	toErrors  bool        // writeAll's last pass: write to the errors folder
	writeErrs []orderedErr
	bufs      sync.Pool // *[]byte: decompressed cluster buffers, see bufRef
}

type logLine struct {
	order int
	text  string
}

// mkdirs creates rel (a safe relative directory) below dir, refusing to
// go through anything that is not a real directory; a symbolic link on
// the way is reported, and the files below it are refused.
func (d *dumper) mkdirs(rel string) {
	comps := strings.Split(rel, "/")
	for i := range comps {
		pre := strings.Join(comps[:i+1], "/")
		if d.realDirs[pre] {
			continue
		}
		if d.root == nil {
			return
		}
		if err := d.root.Mkdir(pre, 0o777); err == nil {
			d.realDirs[pre] = true
			continue
		}
		st, err := d.root.Lstat(pre)
		if err == nil && st.IsDir() {
			d.realDirs[pre] = true
			continue
		}
		if err == nil && st.Mode()&os.ModeSymlink != 0 || errors.Is(err, safefs.ErrSymlink) {
			d.linkDirs[rel] = true
			d.reportLink(-1, pre)
		}
		return
	}
}

// reportLink logs, once, that the symbolic link rel was not written
// through.
func (d *dumper) reportLink(order int, rel string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reported[rel] {
		return
	}
	d.reported[rel] = true
	d.logs = append(d.logs, logLine{order, d.dir + "/" + rel + ": symbolic link refused, nothing written through it"})
}

// placeFailed handles an item whose place could not be opened (err nil:
// its folder is not a real one): refused when a symbolic link is on the
// way, else left for the errors folder.
func (d *dumper) placeFailed(it *dumpItem, err error) {
	if errors.Is(err, safefs.ErrSymlink) {
		d.reportLink(it.order, it.rel)
		d.refused.Add(1)
		return
	}
	if i := strings.LastIndexByte(it.rel, '/'); i >= 0 && d.linkDirs[it.rel[:i]] {
		d.refused.Add(1) // the link was reported by mkdirs
		return
	}
	d.deferItem(it)
}

// parentOK reports whether every directory above rel is a real directory
// checked by mkdirs.
func (d *dumper) parentOK(rel string) bool {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return true
	}
	return d.realDirs[rel[:i]] // read-only once writing starts
}

func (d *dumper) symlink(it *dumpItem) error {
	if !d.parentOK(it.rel) {
		if i := strings.LastIndexByte(it.rel, '/'); i >= 0 && d.linkDirs[it.rel[:i]] {
			d.refused.Add(1) // below a symbolic link, reported by mkdirs
			return nil
		}
		return fmt.Errorf("Error creating symlink from %s to %s", d.dir+"/"+it.rel, it.link)
	}
	err := errNoRoot
	if d.root != nil {
		err = d.root.Symlink(it.link, it.rel)
	}
	if errors.Is(err, safefs.ErrSymlink) {
		d.placeFailed(it, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("Error creating symlink from %s to %s", d.dir+"/"+it.rel, it.link)
	}
	return nil
}

// errNoRoot is the error of a write when the dump folder could not be
// opened.
var errNoRoot error = &os.PathError{Op: "open", Path: ".", Err: os.ErrInvalid}

// writeAll writes the files and stubs, one cluster per task.
//
// A dump is bound by file creation, which costs the kernel far more than
// decompressing the file, and which the kernel serialises per folder: the
// name lookup, the inode and the directory entry are made under the
// folder's lock; a second thread creating in the same folder only spins on
// it. So the pipeline is: d.o.Workers goroutines decompress clusters and
// hand their files over a batch at a time (a cluster, or batchBytes); the
// caller routes each file to the creating goroutine of its folder (folders
// are spread over d.o.Workers creators by a hash of their name); creators
// only create, and pass the open files on, openBatch at a time, to
// d.o.Workers goroutines that write and close them. Hand-overs are per
// batch, not per file. Blobs too large to hold (streamed clusters, large
// stored blobs) are written by the decompressing goroutine itself.
//
// Files that go to the errors folder (planned, or because their place
// failed) are written last, a cluster at a time; the few that share a
// name there go one at a time in zimdump's order, so that the one zimdump
// writes last wins here too. With Workers == 1 everything happens in the
// caller.
func (d *dumper) writeAll(plan []dumpItem) error {
	groups := map[uint32][]*dumpItem{}
	var keys []uint32
	var later []*dumpItem // errors-folder files, in plan order after the sort below
	for i := range plan {
		it := &plan[i]
		switch it.act {
		case actFile, actStub:
		case actErrFile, actErrStub:
			later = append(later, it)
			continue
		default:
			continue
		}
		g := groupOf(it)
		if _, ok := groups[g]; !ok {
			keys = append(keys, g)
		}
		groups[g] = append(groups[g], it)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var (
		errMu    sync.Mutex
		firstErr error
		firstOrd = int(^uint(0) >> 1)
	)
	fail := func(order int, err error) {
		errMu.Lock()
		if order < firstOrd {
			firstOrd, firstErr = order, err
		}
		errMu.Unlock()
	}
	group := func(g uint32, items []*dumpItem, sink func(*dumpItem, []byte, *bufRef)) {
		if err := d.writeGroup(g, items, sink); err != nil {
			var oe *orderedErr
			if errors.As(err, &oe) {
				fail(oe.order, oe.err)
			} else {
				fail(items[0].order, err)
			}
		}
	}
	place := func(it *dumpItem, b []byte, ref *bufRef) {
		d.placeBytes(it, b)
		ref.release()
	}
	if d.o.Workers == 1 || len(keys) <= 1 {
		for _, g := range keys {
			group(g, groups[g], place)
		}
	} else {
		d.parallel(keys, groups, group)
	}
	for _, e := range d.writeErrs {
		fail(e.order, e.err)
	}
	// the errors folder: where two entries land on the same name there,
	// zimdump leaves the later one's data, so those (rare) go one at a
	// time in zimdump's order; the others a cluster at a time, each
	// cluster decompressed once
	later = append(later, d.failed...)
	sort.Slice(later, func(i, j int) bool { return later[i].order < later[j].order })
	d.toErrors = true
	uses := map[string]int{}
	for _, it := range later {
		uses[errorsName(it.rel)]++
	}
	toErrors := func(it *dumpItem, b []byte, ref *bufRef) {
		if err := d.writeError(it, newBytesReader(b)); err != nil {
			fail(it.order, err)
		}
		ref.release()
	}
	byCluster := map[uint32][]*dumpItem{}
	var clusters []uint32
	var shared []*dumpItem
	for _, it := range later {
		if uses[errorsName(it.rel)] > 1 {
			shared = append(shared, it)
			continue
		}
		g := groupOf(it)
		if _, ok := byCluster[g]; !ok {
			clusters = append(clusters, g)
		}
		byCluster[g] = append(byCluster[g], it)
	}
	for _, g := range clusters {
		group(g, byCluster[g], toErrors)
	}
	for _, it := range shared {
		group(groupOf(it), []*dumpItem{it}, toErrors)
	}
	return firstErr
}

// groupOf is the cluster an item's data comes from (0 for a redirect
// page: it needs no cluster).
func groupOf(it *dumpItem) uint32 {
	if it.e.Kind == KindItem {
		return it.e.Cluster
	}
	return 0
}

// errorsName is the name of rel's file in the errors folder.
func errorsName(rel string) string { return strings.ReplaceAll(rel, "/", "%2f") }

// parallel runs writeAll's pipeline.
func (d *dumper) parallel(keys []uint32, groups map[uint32][]*dumpItem, group func(uint32, []*dumpItem, func(*dumpItem, []byte, *bufRef))) {
	n := d.o.Workers
	tasks := make(chan uint32)
	batches := make(chan []writeJob, 1) // few clusters held: they wait for the creators anyway
	var decomp, create, write sync.WaitGroup
	for w := 0; w < min(n, len(keys)); w++ {
		decomp.Go(func() {
			for g := range tasks {
				var batch []writeJob
				size := 0
				group(g, groups[g], func(it *dumpItem, b []byte, ref *bufRef) {
					batch = append(batch, writeJob{it, b, ref})
					if size += len(b); size >= batchBytes {
						batches <- batch
						batch, size = nil, 0
					}
				})
				if len(batch) > 0 {
					batches <- batch
				}
			}
		})
	}
	go func() {
		for _, g := range keys {
			tasks <- g
		}
		close(tasks)
		decomp.Wait()
		close(batches)
	}()
	// open files in flight are bounded by the channel capacities:
	// about (n creators + 2n + n writers) * openBatch
	opened := make(chan []openJob, 2*n)
	toCreate := make([]chan []writeJob, n)
	for c := range toCreate {
		toCreate[c] = make(chan []writeJob, 2)
		create.Go(func() {
			out := make([]openJob, 0, openBatch)
			for batch := range toCreate[c] {
				for _, j := range batch {
					if !d.parentOK(j.it.rel) {
						d.placeFailed(j.it, nil)
						j.ref.release()
						continue
					}
					f, err := d.dirs.create(d.dir, j.it.rel)
					if err != nil {
						d.placeFailed(j.it, err)
						j.ref.release()
						continue
					}
					out = append(out, openJob{j, f})
					if len(out) == openBatch {
						opened <- out
						out = make([]openJob, 0, openBatch)
					}
				}
			}
			if len(out) > 0 {
				opened <- out
			}
		})
	}
	for w := 0; w < n; w++ {
		write.Go(func() {
			for batch := range opened {
				for _, o := range batch {
					if err := writeClose(o.f, o.b); err != nil {
						d.writeFailed(o.it, err)
					}
					o.ref.release()
				}
			}
		})
	}
	seed := maphash.MakeSeed()
	parts := make([][]writeJob, n)
	for batch := range batches {
		for _, j := range batch {
			c := 0
			if i := strings.LastIndexByte(j.it.rel, '/'); i >= 0 {
				c = int(maphash.String(seed, j.it.rel[:i]) % uint64(n))
			}
			parts[c] = append(parts[c], j)
		}
		for c, p := range parts {
			if len(p) > 0 {
				toCreate[c] <- p
				parts[c] = nil
			}
		}
	}
	for _, c := range toCreate {
		close(c)
	}
	create.Wait()
	close(opened)
	write.Wait()
}

// openBatch is the number of open files handed to a writer at a time.
const openBatch = 64

type openJob struct {
	writeJob
	f fileHandle
}

// deferItem leaves an item whose place failed for the errors folder.
func (d *dumper) deferItem(it *dumpItem) {
	d.mu.Lock()
	d.failed = append(d.failed, it)
	d.mu.Unlock()
}

// writeFailed records a write error at an item's place (after its file
// was created: not a case for the errors folder).
func (d *dumper) writeFailed(it *dumpItem, err error) {
	d.mu.Lock()
	d.writeErrs = append(d.writeErrs, orderedErr{it.order, fmt.Errorf("writing %s: %v", filepath.Join(d.dir, it.rel), err)})
	d.mu.Unlock()
}

// batchBytes bounds the data of one batch handed to the file creators (the
// blobs of a stored cluster are read into memory for it).
const batchBytes = 8 << 20

type writeJob struct {
	it  *dumpItem
	b   []byte
	ref *bufRef // holds b's cluster buffer, or nil
}

// bufRef counts the files still to write from a decompressed cluster's
// buffer, which goes back to the dump's pool when none is left: a dump
// then reuses a few buffers instead of allocating (and faulting in) one
// per cluster.
type bufRef struct {
	n    atomic.Int32
	b    []byte
	pool *sync.Pool
}

func (r *bufRef) hold() *bufRef {
	if r != nil {
		r.n.Add(1)
	}
	return r
}

func (r *bufRef) release() {
	if r != nil && r.n.Add(-1) == 0 {
		r.pool.Put(&r.b)
	}
}

type orderedErr struct {
	order int
	err   error
}

func (e *orderedErr) Error() string { return e.err.Error() }

// writeGroup writes the items of cluster g: the files held in memory go
// to sink, the others are streamed to their place.
func (d *dumper) writeGroup(g uint32, items []*dumpItem, sink func(*dumpItem, []byte, *bufRef)) error {
	var c *Cluster
	needData := false
	for _, it := range items {
		if it.e.Kind == KindItem {
			needData = true
			break
		}
	}
	var ref *bufRef
	if needData {
		var buf []byte
		if p, ok := d.bufs.Get().(*[]byte); ok {
			buf = *p
		}
		var err error
		if c, err = d.a.loadCluster(g, true, buf); err != nil {
			return &orderedErr{items[0].order, err}
		}
		if c.hasData {
			ref = &bufRef{b: c.data[:0], pool: &d.bufs}
			ref.n.Store(1) // ours, until every file is handed over
			defer ref.release()
		}
	}
	var stream *seqBlobs
	if c != nil && c.compressed() && !c.hasData {
		stream = &seqBlobs{c: c}
		defer stream.close()
		sort.SliceStable(items, func(i, j int) bool { return items[i].e.Blob < items[j].e.Blob })
	}
	for _, it := range items {
		var err error
		switch it.act {
		case actStub, actErrStub:
			sink(it, []byte(RedirectHTML(it.link)), nil)
		default:
			if b, ok := c.Bytes(it.e.Blob); ok {
				sink(it, b, ref.hold())
			} else if stream != nil {
				var r io.Reader
				if r, err = stream.open(it.e.Blob); err == nil {
					err = d.writeReader(it, r)
				}
			} else {
				err = d.writeBlob(it, c, sink)
			}
		}
		if err != nil {
			return &orderedErr{it.order, err}
		}
	}
	return nil
}

// seqBlobs streams the blobs of a large compressed cluster in offset
// order through one decompressor.
type seqBlobs struct {
	c   *Cluster
	s   *clusterStream
	pos uint64
}

func (q *seqBlobs) open(b uint32) (io.Reader, error) {
	size, err := q.c.BlobSize(b)
	if err != nil {
		return nil, err
	}
	start := q.c.offsets[b]
	if q.s == nil || q.pos > start {
		q.close()
		if q.s, err = q.c.a.openClusterStream(q.c.Index, q.c.Offset, q.c.Info); err != nil {
			return nil, err
		}
		q.pos = 0
	}
	if _, err := io.CopyN(io.Discard, q.s, int64(start-q.pos)); err != nil {
		return nil, q.c.a.passf(noEOF(err), int64(q.c.Offset), "cluster %d at offset %d: decompressing to blob %d", q.c.Index, q.c.Offset, b)
	}
	q.pos = start + uint64(size)
	return &blobStream{Reader: io.LimitReader(q.s, size), s: io.NopCloser(nil), c: q.c, left: size}, nil
}

func (q *seqBlobs) close() {
	if q.s != nil {
		q.s.Close()
		q.s = nil
	}
}

// placeBytes writes b at the item's place; when that fails the item is
// left for the errors folder (see writeAll).
func (d *dumper) placeBytes(it *dumpItem, b []byte) {
	if !d.parentOK(it.rel) {
		d.placeFailed(it, nil)
		return
	}
	f, err := d.dirs.create(d.dir, it.rel)
	if err != nil {
		d.placeFailed(it, err)
		return
	}
	if err := writeClose(f, b); err != nil {
		d.writeFailed(it, err)
	}
}

// smallBlob is the size up to which a blob of an uncompressed cluster is
// read into memory and handed to the writers.
const smallBlob = 1 << 20

// writeBlob writes a blob of an uncompressed cluster: small ones through
// a pooled buffer and writeNew, large ones streamed.
func (d *dumper) writeBlob(it *dumpItem, c *Cluster, sink func(*dumpItem, []byte, *bufRef)) error {
	size, err := c.BlobSize(it.e.Blob)
	if err != nil {
		return err
	}
	r, err := c.OpenBlob(it.e.Blob)
	if err != nil {
		return err
	}
	defer r.Close()
	if size > smallBlob {
		return d.writeReader(it, r)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return d.a.errf(it.e.Offset, "reading the data of %s: %v", d.a.PathOf(&it.e), noEOF(err))
	}
	sink(it, b, nil)
	return nil
}

// writeReader writes r to the item's place, or to the errors folder when
// that fails (as zimdump's write_to_file).
func (d *dumper) writeReader(it *dumpItem, r io.Reader) error {
	if d.toErrors {
		return d.writeError(it, r)
	}
	if !d.parentOK(it.rel) {
		d.placeFailed(it, nil)
		return nil
	}
	f, err := d.dirs.createFile(d.dir, it.rel)
	if err != nil {
		d.placeFailed(it, err)
		return nil
	}
	_, werr := io.Copy(f, r)
	cerr := f.Close()
	if werr == nil && cerr == nil {
		return nil
	}
	var fe *FormatError
	if errors.As(werr, &fe) {
		return werr
	}
	if werr == nil {
		werr = cerr
	}
	return fmt.Errorf("writing %s: %v", filepath.Join(d.dir, it.rel), werr)
}

func (d *dumper) writeError(it *dumpItem, r io.Reader) error {
	base := d.dir + "/"
	target := base + ErrorsDir + errorsName(it.rel)
	var f *os.File
	err := errNoRoot
	if d.root != nil {
		d.root.Mkdir(ErrorsDir, 0o777)
		f, err = d.root.OpenFile(ErrorsDir+errorsName(it.rel), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	}
	if errors.Is(err, safefs.ErrSymlink) {
		link := ErrorsDir + errorsName(it.rel)
		if st, err := d.root.Lstat(ErrorsDir); err == nil && st.Mode()&os.ModeSymlink != 0 {
			link = strings.TrimSuffix(ErrorsDir, "/")
		}
		d.reportLink(it.order, link)
		d.refused.Add(1)
		return nil
	}
	if err == nil {
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return err
		}
		d.log(it.order, "Error writing file to errors dir. "+target)
		return errors.New("Error writing file to errors dir. " + target)
	}
	d.log(it.order, "Wrote "+base+it.rel+" to "+target)
	return nil
}

func (d *dumper) log(order int, s string) {
	d.mu.Lock()
	d.logs = append(d.logs, logLine{order, s})
	d.mu.Unlock()
}

func (d *dumper) flushLog() {
	sort.SliceStable(d.logs, func(i, j int) bool { return d.logs[i].order < d.logs[j].order })
	for _, l := range d.logs {
		fmt.Fprintln(d.o.Log, l.text)
	}
	d.logs = nil
}
