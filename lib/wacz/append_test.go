package wacz

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// appendInputs adds inputs to the WACZ at path with an Appender.
func appendInputs(t testing.TB, path string, opts Options, inputs ...input) (AppendStats, error) {
	t.Helper()
	if opts.Created.IsZero() {
		opts.Created = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	opts.TempDir = t.TempDir()
	a, err := OpenAppend(path, opts)
	if err != nil {
		return AppendStats{}, err
	}
	for _, in := range inputs {
		if err := a.AddInput(in.name, bytes.NewReader(in.data)); err != nil {
			a.Abort()
			return a.Stats(), err
		}
	}
	err = a.Close()
	return a.Stats(), err
}

// entrySpan is where an entry's local header starts and its data ends.
type entrySpan struct{ start, end int64 }

// archiveSpans returns the local header offset and data end of every
// archive/ entry of the WACZ at path.
func archiveSpans(t testing.TB, path string) map[string]entrySpan {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := readZipDir(bytes.NewReader(b), int64(len(b)), path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]entrySpan{}
	for i, ce := range d.entries {
		if !isArchiveEntry(ce.name) {
			continue
		}
		off, err := zr.File[i].DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		out[ce.name] = entrySpan{int64(ce.offset), off + int64(ce.csize)}
	}
	return out
}

func mustValid(t *testing.T, path string) *Reader {
	t.Helper()
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if probs := r.ValidateWith(ValidateOptions{Digests: true}); len(probs) > 0 {
		t.Fatalf("%s does not validate: %v", path, probs)
	}
	return r
}

func countCaptures(t *testing.T, r *Reader) (n int, files map[string]int) {
	t.Helper()
	files = map[string]int{}
	err := r.Captures(func(c *Capture) error {
		n++
		files[c.Filename]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, files
}

// TestAppendInPlace: the old WARCs keep every byte at the same offset, the
// new ones come after them, the index holds the old and new lines in
// order, the pages are joined and the WACZ validates (digests included);
// the same input added twice gets a new name.
func TestAppendInPlace(t *testing.T) {
	path, _, err := buildWACZ(t, Options{Title: "Site"}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(path)
	before := archiveSpans(t, path)
	_, oldPages, _ := mustValid(t, path).Pages()

	st, err := appendInputs(t, path, Options{}, readTD(t, "example-iana.org-chunked.warc"), readTD(t, "example-resource.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(path)
	if st.Kept <= 0 || !bytes.Equal(now[:st.Kept], orig[:st.Kept]) {
		t.Fatalf("the first %d bytes changed", st.Kept)
	}
	after := archiveSpans(t, path)
	for name, sp := range before {
		if after[name] != sp {
			t.Errorf("%s moved: %v -> %v", name, sp, after[name])
		}
		if sp.end > st.Kept || !bytes.Equal(now[sp.start:sp.end], orig[sp.start:sp.end]) {
			t.Errorf("%s: bytes changed", name)
		}
	}
	if len(after) != 3 {
		t.Errorf("archive/ holds %v, want 3 WARCs", after)
	}
	if _, err := os.Stat(JournalPath(path)); !os.IsNotExist(err) {
		t.Errorf("journal left behind: %v", err)
	}
	if st.Written() != int64(len(now))-st.Kept || st.OldSize != int64(len(orig)) || st.NewSize != int64(len(now)) {
		t.Errorf("stats %+v for %d -> %d bytes", st, len(orig), len(now))
	}
	if !st.IndexMerged {
		t.Error("the old index, sorted, was not merged as read")
	}
	r := mustValid(t, path)
	n, files := countCaptures(t, r)
	if n != st.OldCaptures+st.Captures || files["example.warc.gz"] == 0 || files["example-iana.org-chunked.warc.gz"] == 0 || files["example-resource.warc.gz"] == 0 {
		t.Errorf("%d captures %v; %d old + %d new", n, files, st.OldCaptures, st.Captures)
	}
	if c, err := r.Find("http://www.iana.org/", time.Time{}); err != nil {
		t.Error(err)
	} else if rec, err := r.Record(c); err != nil {
		t.Error(err)
	} else if _, err := io.Copy(io.Discard, rec.Block); err != nil {
		t.Error(err)
	}
	_, pages, err := r.Pages()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != len(oldPages)+st.Pages || len(pages) <= len(oldPages) || pages[0] != oldPages[0] {
		t.Errorf("pages %v, old %v, %d added", pages, oldPages, st.Pages)
	}
	dp, _ := r.DataPackage()
	if dp.Title != "Site" || dp.Created != "2024-05-06T07:08:09Z" || dp.Modified != "2025-01-02T03:04:05Z" {
		t.Errorf("datapackage: title %q created %q modified %q", dp.Title, dp.Created, dp.Modified)
	}

	// again: the name is taken
	if _, err := appendInputs(t, path, Options{}, readTD(t, "example.warc.gz")); err != nil {
		t.Fatal(err)
	}
	r = mustValid(t, path)
	if r.File("archive/example-2.warc.gz") == nil {
		t.Errorf("the second example.warc.gz is not archive/example-2.warc.gz: %v", archiveSpans(t, path))
	}
	_, files = countCaptures(t, r)
	if files["example-2.warc.gz"] != files["example.warc.gz"] {
		t.Errorf("captures by file: %v", files)
	}
}

// reorder rewrites the WACZ at path with datapackage.json first (the
// other entries after it as they were), as some tools lay a WACZ out.
func reorder(t *testing.T, path string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	files := append([]*zip.File(nil), zr.File...)
	for i, f := range files {
		if f.Name == DataPackagePath {
			files = append(append([]*zip.File{f}, files[:i]...), files[i+1:]...)
			break
		}
	}
	for _, f := range files {
		rc, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		h := f.FileHeader
		w, err := zw.CreateRaw(&h)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(w, rc)
	}
	zw.Close()
	zr.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAppendManifestFirst: with datapackage.json before the WARCs nothing
// before the old zip directory is overwritten; the old manifest stays
// there unreferenced.
func TestAppendManifestFirst(t *testing.T) {
	path, _, err := buildWACZ(t, Options{}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	reorder(t, path)
	mustValid(t, path)
	orig, _ := os.ReadFile(path)
	d, err := readZipDir(bytes.NewReader(orig), int64(len(orig)), path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := appendInputs(t, path, Options{}, readTD(t, "example-iana.org-chunked.warc"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Kept != d.dirOffset {
		t.Errorf("kept %d bytes, want all before the zip directory (%d)", st.Kept, d.dirOffset)
	}
	now, _ := os.ReadFile(path)
	if !bytes.Equal(now[:st.Kept], orig[:st.Kept]) {
		t.Error("bytes before the old zip directory changed")
	}
	r := mustValid(t, path)
	if n, files := countCaptures(t, r); files["example-iana.org-chunked.warc.gz"] == 0 || n != st.OldCaptures+st.Captures {
		t.Errorf("captures %v", files)
	}
}

// TestAppendRollback: an add abandoned at any stage (the process gone:
// the file closed without Close) leaves a journal from which RecoverAppend
// restores the old WACZ byte for byte.
func TestAppendRollback(t *testing.T) {
	for _, stage := range []string{"journal", "input", "finished"} {
		t.Run(stage, func(t *testing.T) {
			path, _, err := buildWACZ(t, Options{}, readTD(t, "example.warc.gz"))
			if err != nil {
				t.Fatal(err)
			}
			orig, _ := os.ReadFile(path)
			a, err := OpenAppend(path, Options{TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			switch stage {
			case "input":
				in := readTD(t, "example-iana.org-chunked.warc")
				if err := a.AddInput(in.name, bytes.NewReader(in.data)); err != nil {
					t.Fatal(err)
				}
				a.w.zw.bw.Flush()
			case "finished":
				in := readTD(t, "example-resource.warc.gz")
				if err := a.AddInput(in.name, bytes.NewReader(in.data)); err != nil {
					t.Fatal(err)
				}
				if err := a.finish(); err != nil {
					t.Fatal(err)
				}
				a.w.index.cleanup()
			}
			// the process dies: its descriptors close, the lock goes
			now, _ := os.ReadFile(path)
			a.f.Close()
			a.jf.Close()
			if stage != "journal" && bytes.Equal(now, orig) {
				t.Fatal("nothing was written before the stop")
			}
			done, err := RecoverAppend(path)
			if err != nil || !done {
				t.Fatalf("RecoverAppend: %v, %v", done, err)
			}
			back, _ := os.ReadFile(path)
			if !bytes.Equal(back, orig) {
				t.Fatalf("rolled back to %d bytes, not the original %d", len(back), len(orig))
			}
			if _, err := os.Stat(JournalPath(path)); !os.IsNotExist(err) {
				t.Errorf("journal left: %v", err)
			}
			if done, err := RecoverAppend(path); done || err != nil {
				t.Errorf("second RecoverAppend: %v, %v", done, err)
			}
			mustValid(t, path)
		})
	}
}

// TestAppendJournalGuards: an add under way (the WACZ locked) is neither
// joined nor rolled back; a damaged journal leaves the WACZ untouched.
func TestAppendJournalGuards(t *testing.T) {
	path, _, err := buildWACZ(t, Options{}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(path)
	a, err := OpenAppend(path, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAppend(path, Options{}); err == nil || !strings.Contains(err.Error(), "another waczpack add") {
		t.Errorf("second OpenAppend: %v", err)
	}
	if _, err := RecoverAppend(path); err == nil || !strings.Contains(err.Error(), "under way") {
		t.Errorf("RecoverAppend during an add: %v", err)
	}
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("Abort did not restore the WACZ")
	}

	// a journal with a flipped byte
	a, err = OpenAppend(path, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	in := readTD(t, "example-iana.org-chunked.warc")
	a.AddInput(in.name, bytes.NewReader(in.data))
	a.w.zw.bw.Flush()
	a.f.Close()
	a.jf.Close()
	j, _ := os.ReadFile(JournalPath(path))
	j[len(j)/2] ^= 1
	os.WriteFile(JournalPath(path), j, 0o600)
	written, _ := os.ReadFile(path)
	if _, err := RecoverAppend(path); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("RecoverAppend with a damaged journal: %v", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, written) {
		t.Error("the WACZ was touched despite the damaged journal")
	}
	if _, err := OpenAppend(path, Options{}); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("OpenAppend with a damaged journal: %v", err)
	}
}

// TestAppendUnsortedIndex: an old index whose lines are not in order is
// sorted again with the new lines.
func TestAppendUnsortedIndex(t *testing.T) {
	path, _, err := buildWACZ(t, Options{}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	// a second, unsorted CDXJ file beside the ZipNum index
	r, _ := OpenFile(path)
	var lines []string
	r.Captures(func(c *Capture) error {
		lines = append(lines, c.URLKey+" "+c.Timestamp+" "+c.JSON)
		return nil
	})
	r.Close()
	zr, _ := zip.OpenReader(path)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, IndexesDir) {
			continue
		}
		rc, _ := f.OpenRaw()
		h := f.FileHeader
		w, _ := zw.CreateRaw(&h)
		io.Copy(w, rc)
	}
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: IndexesDir + "index.cdxj", Method: zip.Store})
	// many times over, stored: the new tail (the index compressed) is
	// shorter than the old one
	for range 300 {
		for i := len(lines) - 1; i >= 0; i-- {
			io.WriteString(w, lines[i]+"\n")
		}
	}
	zw.Close()
	zr.Close()
	os.WriteFile(path, buf.Bytes(), 0o644)

	st, err := appendInputs(t, path, Options{}, readTD(t, "example-iana.org-chunked.warc"))
	if err != nil {
		t.Fatal(err)
	}
	if st.IndexMerged || st.OldCaptures != 300*len(lines) {
		t.Errorf("merged %v, %d old captures (want %d, sorted again)", st.IndexMerged, st.OldCaptures, 300*len(lines))
	}
	if fi, _ := os.Stat(path); st.NewSize >= st.OldSize || fi.Size() != st.NewSize {
		t.Errorf("%d -> %d bytes, file of %d: want a shorter WACZ cut to its new end", st.OldSize, st.NewSize, fi.Size())
	}
	r = mustValid(t, path)
	if n, _ := countCaptures(t, r); n != 300*len(lines)+st.Captures {
		t.Errorf("%d captures", n)
	}
	if r.File(IndexesDir+"index.cdxj") != nil {
		t.Error("the old index.cdxj is still listed")
	}
}

// TestAppendJournalOtherFile: a journal left by an add to a WACZ that was
// replaced since (a new file renamed over it) is not applied to the new
// file.
func TestAppendJournalOtherFile(t *testing.T) {
	path, _, err := buildWACZ(t, Options{}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenAppend(path, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	in := readTD(t, "example-iana.org-chunked.warc")
	a.AddInput(in.name, bytes.NewReader(in.data))
	a.w.zw.bw.Flush()
	a.f.Close()
	a.jf.Close()
	other, _, err := buildWACZ(t, Options{}, readTD(t, "example-resource.warc.gz"), readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(other)
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if _, err := RecoverAppend(path); err == nil || !strings.Contains(err.Error(), "not for this file") {
		t.Errorf("RecoverAppend on a replaced WACZ: %v", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, want) {
		t.Error("the replacing WACZ was changed")
	}
}
