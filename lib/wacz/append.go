package wacz

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/internal/sysfile"
	"github.com/arcport/arcport/lib/record"
)

// journalMagic starts an add journal.
const journalMagic = "arcport waczpack add journal 1\n"

// JournalPath returns the journal an add to the WACZ at path keeps beside
// it while it writes: ".NAME.add" in the same folder.
func JournalPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".add")
}

// AppendStats tells what an Appender did.
type AppendStats struct {
	Stats
	// RolledBack is set when an earlier add, interrupted, was rolled back first.
	RolledBack bool
	// Kept is the number of bytes at the start of the WACZ left as they
	// were (the old archive/ entries among them); the old index, pages and
	// manifest after them were overwritten (or, when some lay among the
	// WARCs, left in place unreferenced).
	Kept int64
	// OldSize and NewSize are the WACZ's sizes before and after.
	OldSize, NewSize int64
	// Journal is the size of the journal (the original tail saved).
	Journal int64
	// OldCaptures and OldPages count what the WACZ held before.
	OldCaptures, OldPages int
	// IndexMerged is set when the old index, sorted, was merged with the
	// new lines as it was read; otherwise its lines were sorted again.
	IndexMerged bool
}

// Written returns the bytes written to the WACZ itself (the journal not
// counted): everything from the first byte overwritten to the new end.
func (s AppendStats) Written() int64 { return s.NewSize - s.Kept }

// Appender appends WARC/ARC inputs to an existing local WACZ in place:
// OpenAppend, AddInput for each input, then Close (or Abort). Every byte
// of the old archive/ WARCs stays where it is; the new WARCs are written
// after them, then a new index (the old one's lines merged with the new
// ones in sorted order), the pages joined, datapackage.json and its digest
// file, and a new zip directory.
//
// Crash safety: before touching the WACZ, OpenAppend saves in a journal
// beside it (JournalPath) the original size and every byte it will
// overwrite, and fsyncs it; Close fsyncs the WACZ and only then removes
// the journal. A process killed at any point leaves either the new WACZ,
// or the journal from which RecoverAppend (called by OpenAppend, and by
// waczpack's readers) restores the old WACZ byte for byte. The WACZ is
// locked (sysfile.Lock) while an Appender has it open.
type Appender struct {
	w       *Writer
	f       *os.File
	path    string
	journal string
	jf      *os.File
	jhdr    int64 // length of the journal's header
	old     *Reader
	dir     *zipDir
	cut     int64
	oldDP   *DataPackage
	signed  bool
	keptRes []Resource  // resources of the entries kept in place
	copy    []*zip.File // entries other than those rebuilt that lay after cut
	oldRes  map[string]Resource
	st      AppendStats
	done    bool
}

// OpenAppend opens the WACZ at path for appending, rolling back first an
// earlier add that was interrupted (AppendStats.RolledBack). opts are
// those of a Writer; Title and Description, when set, replace the WACZ's.
func OpenAppend(path string, opts Options) (*Appender, error) {
	opts, autoCreated, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	a := &Appender{f: f, path: path, journal: JournalPath(path)}
	if err := lockFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	if err := a.open(opts, autoCreated); err != nil {
		if a.jf != nil {
			a.rollback()
		}
		f.Close()
		return nil, err
	}
	return a, nil
}

// lockFile locks the WACZ f for this Appender (flock on Linux and the BSDs,
// LockFileEx on Windows: sysfile.Lock).
func lockFile(f *os.File, path string) error {
	if err := sysfile.Lock(f); err != nil {
		if errors.Is(err, sysfile.ErrLocked) {
			return fmt.Errorf("%s: another waczpack add is writing it", path)
		}
		return fmt.Errorf("%s: lock: %v", path, err)
	}
	return nil
}

func (a *Appender) open(opts Options, autoCreated bool) error {
	st, err := a.f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", a.path)
	}
	if _, err := os.Lstat(a.journal); err == nil {
		if err := rollback(a.f, a.path, a.journal); err != nil {
			return err
		}
		a.st.RolledBack = true
		if st, err = a.f.Stat(); err != nil {
			return err
		}
	}
	os.Remove(a.journal + ".tmp") // a journal never finished: the WACZ was not touched
	size := st.Size()
	if err := a.plan(a.f, size); err != nil {
		return err
	}
	if err := a.writeJournal(size); err != nil {
		return err
	}
	// The old WACZ as it was, whatever is written from now on: bytes before
	// the cut from the file (never written), the rest from the journal.
	ov := &overlayAt{f: a.f, cut: a.cut, j: a.jf, jOff: a.jhdr, size: size}
	if _, err := a.f.Seek(a.cut, io.SeekStart); err != nil {
		return err
	}
	return a.setup(ov, size, a.f, opts, autoCreated)
}

// plan reads the zip directory of the old WACZ (size bytes of ra), checks
// it is a WACZ and finds where writing starts (a.cut).
func (a *Appender) plan(ra io.ReaderAt, size int64) error {
	a.st.OldSize = size
	dir, err := readZipDir(ra, size, a.path)
	if err != nil {
		return err
	}
	a.dir = dir
	// First check it is a WACZ (read in place, before any journal).
	if r, err := Open(ra, size, a.path); err != nil {
		return err
	} else if err := r.CheckEntries(); err != nil {
		return err
	} else if _, err := r.DataPackage(); err != nil {
		return err
	}

	// Where to write from: the first entry rebuilt, when every archive/
	// entry lies before it (what waczpack and py-wacz write); else the
	// central directory, the old entries staying where they are, unused.
	names := map[string]bool{}
	lastArchive, firstOther := int64(-1), dir.dirOffset
	for _, ce := range dir.entries {
		if names[ce.name] {
			return fmt.Errorf("%s: entry %s is in the zip directory twice (use waczpack merge to rebuild it)", a.path, ce.name)
		}
		names[ce.name] = true
		if isArchiveEntry(ce.name) {
			lastArchive = max(lastArchive, int64(ce.offset))
		} else if knownEntry(ce.name) {
			firstOther = min(firstOther, int64(ce.offset))
		}
	}
	a.cut = dir.dirOffset
	if lastArchive < firstOther {
		a.cut = firstOther
	}
	a.st.Kept = a.cut
	return nil
}

// setup opens the old WACZ through old (size bytes, as it was) and sets
// up the writer over zf, which takes the bytes from a.cut on (ZipWriter
// offsets are those of the WACZ).
func (a *Appender) setup(old io.ReaderAt, size int64, zf ZipFile, opts Options, autoCreated bool) error {
	dir := a.dir
	var err error
	a.old, err = Open(old, size, a.path)
	if err != nil {
		return err
	}
	a.oldDP, _ = a.old.DataPackage()
	if b, err := a.old.readSmall(DataPackageDigestPath); err == nil {
		var df DigestFile
		if json.Unmarshal(b, &df) == nil && df.SignedData != nil {
			a.signed = true
		}
	}
	a.oldRes = map[string]Resource{}
	for _, res := range a.oldDP.Resources {
		a.oldRes[res.Path] = res
	}

	zw := NewZipWriter(zf)
	zw.off = a.cut
	w := newWriter(zw, opts, autoCreated)
	a.w = w
	w.dupFrom = 2
	for _, ce := range dir.entries {
		if int64(ce.offset) >= a.cut || !isArchiveEntry(ce.name) && knownEntry(ce.name) {
			if !isArchiveEntry(ce.name) && !knownEntry(ce.name) {
				a.copy = append(a.copy, a.old.File(ce.name))
			}
			continue
		}
		// kept in place, and listed again
		zw.dir = append(zw.dir, ce)
		zw.names[ce.name] = true
		if isArchiveEntry(ce.name) {
			w.names[stem(strings.TrimPrefix(ce.name, ArchiveDir))] = true
		}
		res, err := a.resourceOf(ce.name)
		if err != nil {
			return err
		}
		if res != nil {
			a.keptRes = append(a.keptRes, *res)
		}
	}
	return nil
}

// OpenAppendAt is OpenAppend for a WACZ that cannot be written in place
// (an object in a store): the old WACZ is read through ra (size bytes,
// name in messages), and create is called once with the offset from which
// the new WACZ differs (the cut: what comes before it is the old WACZ's
// bytes, to be copied as they are, e.g. by the store's server); it returns
// the ZipFile taking the new WACZ's bytes from that offset on, addressed
// with the WACZ's offsets. Close writes the rest to it; making it the WACZ
// (commit) or discarding it after an error is the caller's business: no
// journal, no lock.
func OpenAppendAt(ra io.ReaderAt, size int64, name string, create func(cut int64) (ZipFile, error), opts Options) (*Appender, error) {
	opts, autoCreated, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	a := &Appender{path: name}
	if err := a.plan(ra, size); err != nil {
		return nil, err
	}
	zf, err := create(a.cut)
	if err != nil {
		return nil, err
	}
	if err := a.setup(ra, size, zf, opts, autoCreated); err != nil {
		return nil, err
	}
	return a, nil
}

// Cut returns the offset from which the Appender writes: the bytes before
// it are the old WACZ's, kept.
func (a *Appender) Cut() int64 { return a.cut }

// isArchiveEntry tells a WARC of archive/ from a folder entry or another file.
func isArchiveEntry(name string) bool {
	return strings.HasPrefix(name, ArchiveDir) && !strings.HasSuffix(name, "/")
}

// stem is an archive file's name as Writer.partBase makes it, before the
// extension.
func stem(b string) string {
	for _, ext := range []string{".gz", ".zst", ".warc", ".arc", ".open"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// resourceOf returns the datapackage.json resource of a kept entry: the
// old one (an archive/ WARC's hash is not computed again: its bytes did
// not move), or, for a WARC the old manifest did not list, a new one. An
// unknown entry the old manifest did not list is left unlisted (nil).
func (a *Appender) resourceOf(name string) (*Resource, error) {
	zf := a.old.File(name)
	if res, ok := a.oldRes[name]; ok && uint64(res.Bytes) == zf.UncompressedSize64 {
		return &res, nil
	}
	if !isArchiveEntry(name) {
		return nil, nil
	}
	a.w.warn("warning: %s: %s is not in datapackage.json: its hash is computed", a.path, name)
	rc, err := a.old.open(zf)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.path, err)
	}
	defer rc.Close()
	alg := a.w.opts.HashAlg
	h, _ := record.NewHash(alg)
	n, err := io.Copy(h, rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", a.path, name, err)
	}
	return &Resource{Name: resourceName(name), Path: name, Hash: alg + ":" + hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

// journalHeader is the start of a journal: the magic line, the original
// size and cut, and what tells the WACZ the journal belongs to (guard).
func journalHeader(size, cut int64, g guard) []byte {
	return fmt.Appendf(nil, "%ssize %d cut %d ino %d before %x\n", journalMagic, size, cut, g.ino, g.sum)
}

// guard identifies the file a journal was written for: its inode and the
// sha256 of the (at most) 64 KiB before the cut, bytes an add never
// writes. A WACZ replaced since (waczpack create renames a new file over
// it) does not match, and is not "rolled back" with another file's bytes.
type guard struct {
	ino uint64
	sum []byte
}

func guardOf(f *os.File, cut int64) (guard, error) {
	var g guard
	var err error
	if g.ino, err = sysfile.FileID(f); err != nil {
		return guard{}, err
	}
	from := max(cut-64<<10, 0)
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, from, cut-from)); err != nil {
		return guard{}, err
	}
	g.sum = h.Sum(nil)
	return g, nil
}

// writeJournal saves bytes [cut, size) of the WACZ in the journal: header,
// tail, sha256 of both; written under a temporary name, fsynced, renamed,
// the folder fsynced.
func (a *Appender) writeJournal(size int64) error {
	tmp := a.journal + ".tmp"
	// renamed, then maybe removed by a rollback, while open: on Windows
	// that needs FILE_SHARE_DELETE (sysfile.OpenFile)
	jf, err := sysfile.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	g, err := guardOf(a.f, a.cut)
	if err != nil {
		jf.Close()
		return err
	}
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(jf, h), 1<<20)
	hdr := journalHeader(size, a.cut, g)
	a.jhdr = int64(len(hdr))
	bw.Write(hdr)
	n, err := io.Copy(bw, io.NewSectionReader(a.f, a.cut, size-a.cut))
	if err == nil && n != size-a.cut {
		err = io.ErrUnexpectedEOF
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		_, err = jf.Write(h.Sum(nil))
	}
	if err == nil {
		err = jf.Sync()
	}
	if err == nil {
		// on disk before the WACZ is touched (MOVEFILE_WRITE_THROUGH on
		// Windows, where a folder cannot be fsynced)
		err = sysfile.RenameDurable(tmp, a.journal)
	}
	if err != nil {
		jf.Close()
		os.Remove(tmp)
		return fmt.Errorf("%s: writing the journal: %v", a.journal, err)
	}
	a.jf = jf
	a.st.Journal = int64(len(hdr)) + n + sha256.Size
	return nil
}

// syncDir makes the names in the folder of path durable (a no-op on
// Windows: sysfile.SyncDir).
func syncDir(path string) error {
	return sysfile.SyncDir(filepath.Dir(path))
}

// overlayAt reads the old WACZ while it is being rewritten: bytes before
// cut from the file, the rest from the journal.
type overlayAt struct {
	f    io.ReaderAt
	cut  int64
	j    io.ReaderAt
	jOff int64
	size int64
}

func (o *overlayAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= o.size {
		return 0, io.EOF
	}
	short := false
	if int64(len(p)) > o.size-off {
		p, short = p[:o.size-off], true
	}
	n := 0
	if off < o.cut {
		k := int(min(int64(len(p)), o.cut-off))
		m, err := o.f.ReadAt(p[:k], off)
		n += m
		if err != nil {
			return n, err
		}
	}
	if n < len(p) {
		m, err := o.j.ReadAt(p[n:], o.jOff+off+int64(n)-o.cut)
		n += m
		if err != nil {
			return n, err
		}
	}
	if short {
		return n, io.EOF
	}
	return n, nil
}

// RecoverAppend rolls back an add to the WACZ at path that was
// interrupted (its journal is there): the bytes it overwrote are put back
// and the file cut to its old size. It reports whether there was one to
// roll back. An add under way (the file locked) is an error, not rolled back.
func RecoverAppend(path string) (bool, error) {
	jp := JournalPath(path)
	if _, err := os.Lstat(jp); err != nil {
		return false, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := lockFile(f, path); err != nil {
		return false, fmt.Errorf("%s: an add is under way (journal %s)", path, jp)
	}
	if _, err := os.Lstat(jp); err != nil {
		return false, nil // finished while we waited for the lock
	}
	return true, rollback(f, path, jp)
}

// rollback restores the WACZ f from the journal jp and removes it. A
// damaged journal is left as it is, and f untouched.
func rollback(f *os.File, path, jp string) error {
	jf, err := sysfile.OpenFile(jp, os.O_RDONLY, 0) // removed below while open
	if err != nil {
		return err
	}
	defer jf.Close()
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: the journal %s of an interrupted add is damaged (%s); both left as they are", path, jp, fmt.Sprintf(format, a...))
	}
	st, err := jf.Stat()
	if err != nil {
		return err
	}
	br := bufio.NewReader(io.NewSectionReader(jf, 0, 4096))
	magic, _ := br.ReadString('\n')
	line, _ := br.ReadString('\n')
	var size, cut int64
	var g guard
	if magic != journalMagic {
		return bad("not a journal")
	}
	if _, err := fmt.Sscanf(line, "size %d cut %d ino %d before %x\n", &size, &cut, &g.ino, &g.sum); err != nil || cut < 0 || cut > size {
		return bad("bad header %q", strings.TrimSpace(line))
	}
	hlen := int64(len(journalHeader(size, cut, g)))
	if st.Size() != hlen+size-cut+sha256.Size {
		return bad("%d bytes, want %d", st.Size(), hlen+size-cut+sha256.Size)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(jf, 0, hlen+size-cut)); err != nil {
		return err
	}
	sum := make([]byte, sha256.Size)
	if _, err := jf.ReadAt(sum, hlen+size-cut); err != nil {
		return err
	}
	if !bytes.Equal(sum, h.Sum(nil)) {
		return bad("checksum")
	}
	if st, err := f.Stat(); err != nil {
		return err
	} else if st.Size() < cut {
		return fmt.Errorf("%s: the journal %s of an interrupted add is not for this file (%d bytes, shorter than the %d the add kept); both left as they are", path, jp, st.Size(), cut)
	}
	if now, err := guardOf(f, cut); err != nil {
		return err
	} else if now.ino != g.ino || !bytes.Equal(now.sum, g.sum) {
		return fmt.Errorf("%s: the journal %s of an interrupted add is not for this file (replaced since?); both left as they are", path, jp)
	}
	if _, err := io.Copy(io.NewOffsetWriter(f, cut), io.NewSectionReader(jf, hlen, size-cut)); err != nil {
		return fmt.Errorf("%s: rolling back: %v", path, err)
	}
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("%s: rolling back: %v", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: rolling back: %v", path, err)
	}
	if err := os.Remove(jp); err != nil {
		return err
	}
	return syncDir(jp)
}

// rollback restores the old WACZ now (Close failed or Abort); with
// OpenAppendAt there is nothing to restore.
func (a *Appender) rollback() error {
	if a.f == nil {
		return nil
	}
	err := rollback(a.f, a.path, a.journal)
	a.jf.Close()
	a.jf = nil
	return err
}

// AddInput adds one WARC or ARC input, as Writer.AddInput does.
func (a *Appender) AddInput(name string, r io.Reader) error {
	return a.w.AddInput(name, r)
}

// Stats returns what the Appender did so far (all of it after Close).
func (a *Appender) Stats() AppendStats {
	s := a.st
	s.Stats = a.w.stats
	return s
}

// Abort gives up: the WACZ is restored as it was.
func (a *Appender) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	a.w.closed = true
	a.w.det.Wait()
	a.w.index.cleanup()
	err := a.rollback()
	if a.f != nil {
		a.f.Close()
	}
	return err
}

// Close writes the index, pages and manifest and the zip directory, syncs
// the WACZ to disk and removes the journal. On error the old WACZ is
// restored.
func (a *Appender) Close() error {
	if a.done {
		return nil
	}
	w := a.w
	err := w.err
	if err == nil && len(w.resources) == 0 {
		err = errors.New("no input records: nothing to add")
	}
	if err == nil {
		w.closed = true
		err = a.finish()
		w.index.cleanup()
	}
	if err == nil {
		a.st.NewSize = w.zw.Offset()
		if a.f != nil {
			// the new tail may be shorter than the old one (an old
			// uncompressed index): nothing of it may stay after the new
			// end record
			if err = a.f.Truncate(a.st.NewSize); err == nil {
				err = a.f.Sync()
			}
		}
	}
	if err != nil {
		a.Abort()
		return err
	}
	a.done = true
	if a.f == nil {
		return nil
	}
	a.jf.Close()
	if err := os.Remove(a.journal); err != nil {
		a.f.Close()
		return err
	}
	err = syncDir(a.journal)
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (a *Appender) finish() error {
	w := a.w
	if w.err != nil {
		return w.err
	}
	alg := w.opts.HashAlg
	resources := append([]Resource(nil), a.keptRes...)
	resources = append(resources, w.resources...)
	addFile := func(name string, method uint16, fill func(io.Writer) error) error {
		e, err := w.zw.Create(name, method, alg)
		if err != nil {
			return err
		}
		if err := fill(e); err != nil {
			return err
		}
		if err := e.Close(); err != nil {
			return err
		}
		resources = append(resources, Resource{Name: resourceName(name), Path: name, Hash: e.Hash(), Bytes: e.Size()})
		return nil
	}

	// other files of the WACZ that lay after the cut, copied
	for _, zf := range a.copy {
		_, listed := a.oldRes[zf.Name]
		method := Deflate
		if zf.Method == zip.Store {
			method = Store
		}
		n := len(resources)
		err := addFile(zf.Name, method, func(wr io.Writer) error {
			rc, err := a.old.open(zf)
			if err != nil {
				return err
			}
			defer rc.Close()
			_, err = io.Copy(wr, rc)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %s: %v", a.path, zf.Name, err)
		}
		if !listed {
			resources = resources[:n]
		}
	}

	// index: the old lines (sorted) merged with the new ones as they are read
	sorted, n, err := a.oldIndexSorted()
	if err != nil {
		return err
	}
	a.st.OldCaptures = n
	each := w.index.sorter.Each
	if sorted {
		a.st.IndexMerged = true
		w.index.n += n
		each = func(fn func([]byte) error) error { return mergeSorted(a.oldLines(), w.index.sorter.Each, fn) }
	} else {
		if err := a.eachOldLine(w.index.add); err != nil {
			return err
		}
	}
	idx, err := w.index.writeFrom(w.zw, alg, each)
	if err != nil {
		return err
	}
	resources = append(resources, idx...)

	// pages: the old ones as they were written, then the new ones
	if err := w.det.Wait(); err != nil {
		if !w.opts.Lenient {
			return err
		}
		w.warn("warning: %v", err)
	}
	newPages, err := w.pageList()
	if err != nil {
		return err
	}
	defer newPages.close()
	hdr := PagesHeader{Format: PagesFormat, ID: "pages", Title: "All Pages"}
	hasOld := a.old.File(PagesPath) != nil
	if hasOld {
		if h, err := a.old.pagesHeader(PagesPath); err != nil {
			return err
		} else if h != nil {
			hdr = *h
		}
	}
	all := newPageStore(w.opts.TempDir, 0)
	defer all.close()
	seen := pageKeys{}
	err = addFile(PagesPath, Deflate, func(wr io.Writer) error {
		bw := bufio.NewWriterSize(wr, 64<<10)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		hdr.HasText = hdr.HasText || newPages.hasText
		if err := enc.Encode(hdr); err != nil {
			return err
		}
		if hasOld {
			err := a.old.eachPageLine(PagesPath, func(line []byte) error {
				var p Page
				if err := json.Unmarshal(line, &p); err != nil {
					return err
				}
				seen.add(p.TS, p.URL)
				a.st.OldPages++
				if err := all.add(&Page{ID: p.ID, URL: p.URL, TS: p.TS, Title: p.Title, Seed: p.Seed}); err != nil {
					return err
				}
				bw.Write(line)
				return bw.WriteByte('\n')
			})
			if err != nil {
				return err
			}
		}
		if err := newPages.each(func(p *Page) error {
			if !seen.add(p.TS, p.URL) {
				return nil
			}
			if err := all.add(p); err != nil {
				return err
			}
			return enc.Encode(p)
		}); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	w.stats.Pages = all.n - a.st.OldPages
	if a.old.File(ExtraPagesPath) != nil {
		err := addFile(ExtraPagesPath, Deflate, func(wr io.Writer) error {
			rc, err := a.old.open(a.old.File(ExtraPagesPath))
			if err != nil {
				return err
			}
			defer rc.Close()
			_, err = io.Copy(wr, rc)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %s: %v", a.path, ExtraPagesPath, err)
		}
	}
	dp := *a.oldDP
	if w.opts.Title != "" {
		dp.Title = w.opts.Title
	}
	if w.opts.Description != "" {
		dp.Description = w.opts.Description
	}
	if w.opts.DraftFiles || a.old.HasDraftFiles() {
		if err := addFile(PagesCSVPath, Deflate, func(wr io.Writer) error { return WritePagesCSVSeq(wr, all.each) }); err != nil {
			return err
		}
		if err := addFile(WebArchiveYAMLPath, Deflate, func(wr io.Writer) error {
			return WriteWebArchiveYAMLSeq(wr, dp.Title, dp.Description, all.each)
		}); err != nil {
			return err
		}
	}

	// manifest
	modified := w.opts.Created
	if w.autoCreated {
		modified = time.Now()
	}
	now := FormatTime(modified.Truncate(time.Second))
	dp.Modified = now
	if dp.Created == "" || w.opts.Signer != nil {
		// a signature's created must be datapackage.json's, and recent
		dp.Created = now
	}
	dp.Profile, dp.WACZVersion, dp.Software = "data-package", Version, w.opts.Software
	dp.Resources = resources
	if dp.MainPageURL == "" && all.main != nil {
		dp.MainPageURL, dp.MainPageDate = all.main.URL, all.main.TS
	}
	raw, err := dp.Marshal()
	if err != nil {
		return err
	}
	if err := addFile(DataPackagePath, Deflate, func(wr io.Writer) error { _, err := wr.Write(raw); return err }); err != nil {
		return err
	}
	df := NewDigestFile(raw)
	if w.opts.Signer != nil {
		sd, err := w.opts.Signer.Sign(context.Background(), df.Hash, dp.Created)
		if err != nil {
			return fmt.Errorf("signing: %v", err)
		}
		df.SignedData = sd
	} else if a.signed {
		w.warn("warning: %s: the old signature does not cover the new manifest: the WACZ is no longer signed (--sign-key or --sign-url signs it again)", a.path)
	}
	dig, err := marshalIndent(df)
	if err != nil {
		return err
	}
	e, err := w.zw.Create(DataPackageDigestPath, Deflate, "")
	if err != nil {
		return err
	}
	if _, err := e.Write(dig); err != nil {
		return err
	}
	return w.zw.Close()
}

// oldLines iterates over the old index's lines, as "urlkey timestamp
// json" (the bytes the sorter orders).
func (a *Appender) oldLines() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		errStop := errors.New("stop")
		err := a.old.Captures(func(c *Capture) error {
			if !yield([]byte(c.URLKey+" "+c.Timestamp+" "+c.JSON), nil) {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			yield(nil, err)
		}
	}
}

// eachOldLine calls fn with every old index line.
func (a *Appender) eachOldLine(fn func([]byte) error) error {
	for line, err := range a.oldLines() {
		if err != nil {
			return err
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	return nil
}

// oldIndexSorted reads the old index once (it is small beside the WARCs)
// and tells whether its lines come in sorted order, and how many there are.
func (a *Appender) oldIndexSorted() (bool, int, error) {
	var prev []byte
	sorted, n := true, 0
	err := a.eachOldLine(func(line []byte) error {
		n++
		if sorted && prev != nil && bytes.Compare(prev, line) > 0 {
			sorted = false
		}
		prev = line
		return nil
	})
	return sorted, n, err
}

// mergeSorted calls fn with the lines of old and of each (both sorted) in
// sorted order; at equal lines the old one comes first.
func mergeSorted(old iter.Seq2[[]byte, error], each func(func([]byte) error) error, fn func([]byte) error) error {
	next, stop := iter.Pull2(old)
	defer stop()
	ol, oerr, ok := next()
	err := each(func(line []byte) error {
		for ok {
			if oerr != nil {
				return oerr
			}
			if bytes.Compare(ol, line) > 0 {
				break
			}
			if err := fn(ol); err != nil {
				return err
			}
			ol, oerr, ok = next()
		}
		return fn(line)
	})
	if err != nil {
		return err
	}
	for ok {
		if oerr != nil {
			return oerr
		}
		if err := fn(ol); err != nil {
			return err
		}
		ol, oerr, ok = next()
	}
	return nil
}
