package wacz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Close writes the index, the pages (and the seed-draft files with
// Options.DraftFiles) and the manifest,
// then the zip directory. It does not close the underlying file. After an
// error from AddInput, Close only releases resources and returns that error.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	defer w.index.cleanup()
	if w.err != nil {
		w.det.Wait() // stop the detector's workers
		return w.err
	}
	if len(w.resources) == 0 {
		w.err = errors.New("no input records: a WACZ needs at least one WARC")
		return w.err
	}
	if err := w.finish(); err != nil {
		w.err = err
	}
	return w.err
}

func (w *Writer) finish() error {
	if w.stats.Captures == 0 {
		w.warn("warning: %s: no records to index: the WACZ's index is empty", strings.Join(w.inputNames, ", "))
	}
	// The page list first; its files are rendered and compressed in
	// goroutines while the index is written, then added in order.
	if err := w.det.Wait(); err != nil {
		if !w.opts.Lenient {
			return err
		}
		w.warn("warning: %v", err)
	}
	pages, err := w.pageList()
	if err != nil {
		return err
	}
	defer pages.close()
	w.stats.Pages = pages.n
	w.stats.PagesSpilled = w.det.spilled
	hdr := PagesHeader{Format: PagesFormat, ID: "pages", Title: "All Pages"}
	if w.opts.PageList != nil && w.opts.PageListHeader != nil {
		if w.opts.PageListHeader.ID != "" {
			hdr.ID = w.opts.PageListHeader.ID
		}
		if w.opts.PageListHeader.Title != "" {
			hdr.Title = w.opts.PageListHeader.Title
		}
	}
	hdr.HasText = pages.hasText
	files := []struct {
		name string
		fill func(io.Writer) error
	}{
		{PagesPath, func(wr io.Writer) error { return WritePagesJSONLSeq(wr, hdr, pages.each) }},
	}
	if w.opts.DraftFiles {
		files = append(files, []struct {
			name string
			fill func(io.Writer) error
		}{
			{PagesCSVPath, func(wr io.Writer) error { return WritePagesCSVSeq(wr, pages.each) }},
			{WebArchiveYAMLPath, func(wr io.Writer) error {
				return WriteWebArchiveYAMLSeq(wr, w.opts.Title, w.opts.Description, pages.each)
			}},
		}...)
	}
	type prepared struct {
		entry *PreparedEntry
		err   error
	}
	if err := pages.flush(); err != nil { // each only reads from here on
		return err
	}
	done := make([]chan prepared, len(files))
	for i, f := range files {
		done[i] = make(chan prepared, 1)
		go func() {
			e, err := PrepareDeflate(f.name, w.opts.HashAlg, w.index.tmpDir, f.fill)
			done[i] <- prepared{e, err}
		}()
	}

	// indexes/
	idx, err := w.index.write(w.zw, w.opts.HashAlg)
	var entries []*PreparedEntry
	var perr error
	for _, c := range done {
		r := <-c
		if r.entry != nil {
			defer r.entry.Close()
			entries = append(entries, r.entry)
		}
		if perr == nil {
			perr = r.err
		}
	}
	if err != nil {
		return err
	}
	if perr != nil {
		return perr
	}
	w.resources = append(w.resources, idx...)

	// pages
	for _, e := range entries {
		if err := w.zw.AddPrepared(e); err != nil {
			return err
		}
		w.resources = append(w.resources, Resource{Name: resourceName(e.Name), Path: e.Name, Hash: e.Hash, Bytes: e.Size})
	}

	// manifest
	created := w.opts.Created
	if w.opts.Signer != nil && w.autoCreated {
		created = time.Now()
	}
	now := FormatTime(created.Truncate(time.Second))
	dp := &DataPackage{
		Profile:     "data-package",
		WACZVersion: Version,
		Title:       w.opts.Title,
		Description: w.opts.Description,
		Created:     now,
		Modified:    now,
		Software:    w.opts.Software,
		Resources:   w.resources,
	}
	if p := pages.main; p != nil {
		dp.MainPageURL, dp.MainPageDate = p.URL, p.TS
	}
	raw, err := dp.Marshal()
	if err != nil {
		return err
	}
	if err := w.addFile(DataPackagePath, Deflate, func(wr io.Writer) error { _, err := wr.Write(raw); return err }); err != nil {
		return err
	}
	df := NewDigestFile(raw)
	if w.opts.Signer != nil {
		sd, err := w.opts.Signer.Sign(context.Background(), df.Hash, now)
		if err != nil {
			return fmt.Errorf("signing: %v", err)
		}
		df.SignedData = sd
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

// addFile writes one entry and lists it in the resources.
func (w *Writer) addFile(name string, method uint16, fill func(io.Writer) error) error {
	e, err := w.zw.Create(name, method, w.opts.HashAlg)
	if err != nil {
		return err
	}
	if err := fill(e); err != nil {
		return err
	}
	if err := e.Close(); err != nil {
		return err
	}
	w.resources = append(w.resources, Resource{Name: resourceName(name), Path: name, Hash: e.Hash(), Bytes: e.Size()})
	return nil
}

// pageList builds the final pages: seeds (--url) first, then the --pages
// list or the detected pages. The requests are in memory already; the
// detected pages are streamed from the detector (unique by URL there) into
// a pageStore, which keeps them on disk past its bound.
func (w *Writer) pageList() (*pageStore, error) {
	var set pageSet
	resolve := func(req PageRequest) *Page {
		u, t, ok := w.caps.find(req.URL, req.TS)
		if !ok {
			w.warn("warning: page %s: no capture in the input, left out", req.URL)
			return nil
		}
		p := &Page{URL: u, TS: FormatTime(t), Title: req.Title, ID: req.ID, Text: req.Text, Seed: req.Seed}
		if d := w.det.Lookup(u); d != nil {
			if p.Title == "" {
				p.Title = d.Title
			}
			if p.Text == "" && w.opts.Text {
				p.Text = d.Text
			}
		}
		if t, ok := w.det.RenderedText(u); ok && req.Text == "" {
			p.Text = t // the text the browser rendered
		}
		if t, ok := w.det.RenderedTitle(u); ok && req.Title == "" {
			p.Title = t // the title the page's scripts left
		}
		if p.ID == "" {
			p.ID = PageID(p.TS, p.URL)
		}
		return p
	}
	for _, s := range w.opts.Seeds {
		if p := resolve(PageRequest{URL: s, Seed: true}); p != nil {
			set.add(p)
		}
	}
	if w.opts.PageList != nil {
		for _, req := range w.opts.PageList {
			if p := resolve(req); p != nil {
				set.add(p)
			}
		}
	}
	st := newPageStore(w.opts.TempDir, w.det.MemLimit)
	for _, p := range set.list {
		if err := st.add(p); err != nil {
			st.close()
			return nil, err
		}
	}
	if w.opts.PageList == nil {
		// detected pages have one URL each: only the requests can repeat one
		err := w.det.EachPage(func(p *Page) error {
			if set.byURL[p.TS+" "+p.URL] || set.byURL[p.URL] {
				return nil
			}
			return st.add(p)
		})
		if err != nil {
			st.close()
			return nil, err
		}
	}
	return st, nil
}
