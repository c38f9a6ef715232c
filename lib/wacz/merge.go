package wacz

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// MergeOptions configure Merge.
type MergeOptions struct {
	// Title and Description of the result; empty: those of the first
	// input that has one.
	Title, Description string
	// HashAlg is the resource hash, "sha256" (default) or "md5".
	HashAlg string
	// Software names the merging software in datapackage.json.
	Software string
	// Created is the creation time (zero: now).
	Created time.Time
	// TempDir is where the index sort spills ("": the system default).
	TempDir string
	// Warn receives warnings (nil: dropped).
	Warn func(string)
	// Signer, when not nil, signs datapackage-digest.json (the inputs'
	// signatures cannot carry over: the manifest is new).
	Signer Signer
	// DraftFiles writes the seed draft's webarchive.yaml and pages.csv
	// (see Options.DraftFiles). They are written too when an input has
	// either of them.
	DraftFiles bool
}

// MergeStats counts what Merge wrote.
type MergeStats struct {
	Inputs     int
	WARCs      int   // archive/ files copied
	Renamed    int   // of them, renamed because an earlier input had the name
	Captures   int   // index lines
	Pages      int   // pages in pages/pages.jsonl (duplicates dropped)
	ArchiveLen int64 // bytes of archive/ copied
}

// Merge writes to f one WACZ holding the collections of inputs: their
// archive/ WARCs copied byte for byte (no recompression; renamed when an
// earlier input has a WARC of the same name, and their index lines with
// them), all index lines in one sorted ZipNum index, their pages joined
// (a page already listed, same URL and timestamp, is dropped) and a new
// datapackage.json. Memory stays flat: WARCs stream through, the index is
// sorted by an external sort and pages are copied line by line (their
// URLs, timestamps and titles go to a temporary file past 8 MiB, for
// pages.csv and webarchive.yaml; 8 bytes per page are held to drop
// repeated pages). The seed draft's webarchive.yaml and pages.csv are
// written with opts.DraftFiles or when an input has them.
func Merge(f ZipFile, inputs []*Reader, opts MergeOptions) (MergeStats, error) {
	var st MergeStats
	if len(inputs) == 0 {
		return st, errors.New("nothing to merge")
	}
	if opts.HashAlg == "" {
		opts.HashAlg = "sha256"
	}
	if opts.HashAlg != "sha256" && opts.HashAlg != "md5" {
		return st, fmt.Errorf("unsupported hash %q (sha256 or md5)", opts.HashAlg)
	}
	if opts.Created.IsZero() {
		opts.Created = time.Now()
	}
	if opts.Software == "" {
		opts.Software = "arcport waczpack"
	}
	warn := func(format string, a ...any) {
		if opts.Warn != nil {
			opts.Warn(fmt.Sprintf(format, a...))
		}
	}
	zw := NewZipWriter(f)
	zw.SetModTime(opts.Created)
	index := newIndexSet(opts.TempDir)
	defer index.cleanup()
	var resources []Resource
	taken := map[string]bool{}
	dp := &DataPackage{Profile: "data-package", WACZVersion: Version, Title: opts.Title, Description: opts.Description, Software: opts.Software}

	for _, r := range inputs {
		st.Inputs++
		if in, err := r.DataPackage(); err == nil {
			if dp.Title == "" {
				dp.Title = in.Title
			}
			if dp.Description == "" {
				dp.Description = in.Description
			}
			if dp.MainPageURL == "" && in.MainPageURL != "" {
				dp.MainPageURL, dp.MainPageDate = in.MainPageURL, in.MainPageDate
			}
		}
		// archive/: copied as they are, under a new name if taken
		renamed := map[string]string{}
		for _, zf := range r.Files() {
			if !strings.HasPrefix(zf.Name, ArchiveDir) || strings.HasSuffix(zf.Name, "/") {
				if !knownEntry(zf.Name) {
					warn("warning: %s: %s left out (not part of a WACZ that merge rebuilds)", r.name, zf.Name)
				}
				continue
			}
			base := strings.TrimPrefix(zf.Name, ArchiveDir)
			name := base
			for i := 2; taken[name]; i++ {
				name = numbered(base, i)
			}
			taken[name] = true
			if name != base {
				renamed[base] = name
				st.Renamed++
				warn("%s: %s%s renamed %s%s (an earlier input has a WARC of that name)", r.name, ArchiveDir, base, ArchiveDir, name)
			}
			res, err := copyStored(zw, r, zf, ArchiveDir+name, opts.HashAlg)
			if err != nil {
				return st, err
			}
			resources = append(resources, res)
			st.WARCs++
			st.ArchiveLen += res.Bytes
		}
		// index lines, with the new names
		err := r.Captures(func(c *Capture) error {
			js := c.JSON
			if n, ok := renamed[c.Filename]; ok {
				js = renameInJSON(js, c.Filename, n)
			}
			st.Captures++
			return index.add([]byte(c.URLKey + " " + c.Timestamp + " " + js))
		})
		if err != nil {
			return st, err
		}
	}
	idx, err := index.write(zw, opts.HashAlg)
	if err != nil {
		return st, err
	}
	resources = append(resources, idx...)

	// pages
	addFile := func(name string, fill func(io.Writer) error) error {
		e, err := zw.Create(name, Deflate, opts.HashAlg)
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
	pages := newPageStore(opts.TempDir, 0)
	defer pages.close()
	for _, path := range []string{PagesPath, ExtraPagesPath} {
		var have []*Reader
		hdr := PagesHeader{Format: PagesFormat, ID: "pages", Title: "All Pages"}
		if path == ExtraPagesPath {
			hdr.ID, hdr.Title = "extra-pages", "Extra Pages"
		}
		first := true
		for _, r := range inputs {
			if r.File(path) == nil {
				continue
			}
			have = append(have, r)
			h, err := r.pagesHeader(path)
			if err != nil {
				return st, err
			}
			if h != nil {
				if first {
					hdr.ID, hdr.Title = h.ID, h.Title
				}
				hdr.HasText = hdr.HasText || h.HasText
			}
			first = false
		}
		if len(have) == 0 && path == ExtraPagesPath {
			continue
		}
		seen := pageKeys{}
		err := addFile(path, func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 64<<10)
			enc := json.NewEncoder(bw)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(hdr); err != nil {
				return err
			}
			for _, r := range have {
				err := r.eachPageLine(path, func(line []byte) error {
					var p Page
					if err := json.Unmarshal(line, &p); err != nil {
						return err
					}
					if !seen.add(p.TS, p.URL) {
						return nil
					}
					if path == PagesPath {
						st.Pages++
						if err := pages.add(&Page{ID: p.ID, URL: p.URL, TS: p.TS, Title: p.Title, Seed: p.Seed}); err != nil {
							return err
						}
					}
					bw.Write(line)
					return bw.WriteByte('\n')
				})
				if err != nil {
					return err
				}
			}
			return bw.Flush()
		})
		if err != nil {
			return st, err
		}
	}
	draft := opts.DraftFiles
	for _, r := range inputs {
		draft = draft || r.HasDraftFiles()
	}
	if draft {
		if err := addFile(PagesCSVPath, func(w io.Writer) error { return WritePagesCSVSeq(w, pages.each) }); err != nil {
			return st, err
		}
		if err := addFile(WebArchiveYAMLPath, func(w io.Writer) error {
			return WriteWebArchiveYAMLSeq(w, dp.Title, dp.Description, pages.each)
		}); err != nil {
			return st, err
		}
	}

	// manifest
	now := FormatTime(opts.Created.Truncate(time.Second))
	dp.Created, dp.Modified, dp.Resources = now, now, resources
	if dp.MainPageURL == "" && pages.main != nil {
		dp.MainPageURL, dp.MainPageDate = pages.main.URL, pages.main.TS
	}
	raw, err := dp.Marshal()
	if err != nil {
		return st, err
	}
	e, err := zw.Create(DataPackagePath, Deflate, opts.HashAlg)
	if err != nil {
		return st, err
	}
	if _, err := e.Write(raw); err != nil {
		return st, err
	}
	df := NewDigestFile(raw)
	if opts.Signer != nil {
		sd, err := opts.Signer.Sign(context.Background(), df.Hash, now)
		if err != nil {
			return st, fmt.Errorf("signing: %v", err)
		}
		df.SignedData = sd
	}
	dig, err := marshalIndent(df)
	if err != nil {
		return st, err
	}
	if e, err = zw.Create(DataPackageDigestPath, Deflate, ""); err != nil {
		return st, err
	}
	if _, err := e.Write(dig); err != nil {
		return st, err
	}
	return st, zw.Close()
}

// knownEntry reports whether name is a file Merge writes anew.
func knownEntry(name string) bool {
	switch name {
	case DataPackagePath, DataPackageDigestPath, PagesPath, ExtraPagesPath, PagesCSVPath, WebArchiveYAMLPath:
		return true
	}
	return strings.HasPrefix(name, IndexesDir) || strings.HasSuffix(name, "/")
}

// numbered inserts -i before a WARC name's extension: a.warc.gz -> a-2.warc.gz.
func numbered(name string, i int) string {
	cut := strings.Index(name, ".warc")
	if cut < 0 {
		cut = strings.LastIndexByte(name, '.')
	}
	if cut <= 0 {
		return name + "-" + strconv.Itoa(i)
	}
	return name[:cut] + "-" + strconv.Itoa(i) + name[cut:]
}

// renameInJSON replaces the filename field's value old by new in a CDXJ
// line's JSON block, keeping everything else as written.
func renameInJSON(js, old, new string) string {
	o, _ := json.Marshal(old)
	n, _ := json.Marshal(new)
	for _, sep := range []string{`"filename":`, `"filename": `} {
		if strings.Contains(js, sep+string(o)) {
			return strings.Replace(js, sep+string(o), sep+string(n), 1)
		}
	}
	// written some other way: decode and encode again (keys sorted)
	var m map[string]any
	if json.Unmarshal([]byte(js), &m) != nil {
		return js
	}
	m["filename"] = new
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(m)
	return strings.TrimSuffix(b.String(), "\n")
}

// copyStored copies the content of entry zf of r into a new STORED entry
// name of zw (the CRC of the input entry is checked as it is read).
func copyStored(zw *ZipWriter, r *Reader, zf *zip.File, name, hashAlg string) (Resource, error) {
	rc, err := r.open(zf)
	if err != nil {
		return Resource{}, fmt.Errorf("%s: %s: %v", r.name, zf.Name, err)
	}
	defer rc.Close()
	e, err := zw.Create(name, Store, hashAlg)
	if err != nil {
		return Resource{}, err
	}
	buf := make([]byte, 1<<20)
	for {
		n, err := rc.Read(buf)
		if n > 0 {
			if _, werr := e.Write(buf[:n]); werr != nil {
				return Resource{}, werr
			}
			e.Commit(e.Size()) // final: a Releaser output may pass it on
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Resource{}, fmt.Errorf("%s: %s: %v", r.name, zf.Name, err)
		}
	}
	if err := e.Close(); err != nil {
		return Resource{}, err
	}
	return Resource{Name: resourceName(name), Path: name, Hash: e.Hash(), Bytes: e.Size()}, nil
}

// pagesHeader reads the header line of a pages file (nil when it has none).
func (r *Reader) pagesHeader(path string) (*PagesHeader, error) {
	var hdr *PagesHeader
	errStop := errors.New("stop")
	err := r.eachPagesFileLine(path, func(n int, line []byte) error {
		if n == 1 && bytes.Contains(line, []byte(`"format"`)) {
			hdr = &PagesHeader{}
			if err := json.Unmarshal(line, hdr); err != nil {
				return err
			}
		}
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	return hdr, nil
}

// eachPageLine calls fn with each page line of a pages file (not the
// header, not blank lines).
func (r *Reader) eachPageLine(path string, fn func(line []byte) error) error {
	return r.eachPagesFileLine(path, func(n int, line []byte) error {
		if len(bytes.TrimSpace(line)) == 0 || n == 1 && bytes.Contains(line, []byte(`"format"`)) {
			return nil
		}
		return fn(line)
	})
}

func (r *Reader) eachPagesFileLine(path string, fn func(n int, line []byte) error) error {
	f := r.files[path]
	if f == nil {
		return fmt.Errorf("%s: no %s", r.name, path)
	}
	rc, err := r.open(f)
	if err != nil {
		return fmt.Errorf("%s: %s: %v", r.name, path, err)
	}
	defer rc.Close()
	if err := eachLineMax(rc, MaxPagesLine, fn); err != nil {
		return fmt.Errorf("%s: %s: %w", r.name, path, err)
	}
	return nil
}
