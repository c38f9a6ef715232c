package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/record"
)

type kv struct{ Name, Value string }

type digestRow struct {
	Name, Value, Check, CheckClass string
}

// Limits of the record page.
const (
	uiPreview   = 4 << 10  // payload bytes shown as text
	uiDigestMax = 64 << 20 // blocks larger than this are not hashed
)

// findCapture is the index line of url at exactly ts (with that file and
// offset when they are given) and the collection that holds it.
func (s *Server) findCapture(coll, u, ts, file, offset string) (*cdxObj, *Collection, error) {
	src, ok := s.source(coll)
	if !ok {
		return nil, nil, errNotFound
	}
	q := &query{params: map[string]string{"url": u, "closest": ts, "sort": "closest", "limit": "1000", "matchType": "exact"}, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	if err := q.checkLimits(); err != nil {
		return nil, nil, err
	}
	it, err := runQuery(src, q)
	if err != nil {
		return nil, nil, err
	}
	for {
		c, err := it()
		if err != nil || c == nil {
			return nil, nil, err
		}
		if c.gets(fTimestamp) != ts {
			continue
		}
		if file != "" && c.gets(fFilename) != file || offset != "" && c.gets(fOffset) != offset {
			continue
		}
		cl := s.colls[c.gets("source-coll")]
		if cl == nil {
			continue
		}
		return c, cl, nil
	}
}

// uiRecord answers /COLL/record?url=U&ts=TS[&file=F&offset=O]: the
// capture's index line, digests (the block's checked), WARC and HTTP
// headers, the start of a text payload; with raw=1 the record as stored
// in its file (its gzip member for a compressed file).
func (s *Server) uiRecord(w http.ResponseWriter, r *http.Request, coll string, q url.Values) {
	u, ts := q.Get("url"), q.Get("ts")
	switch {
	case u == "":
		uiError(w, r, http.StatusBadRequest, "url= is required")
		return
	case len(u) > MaxURL:
		uiError(w, r, http.StatusBadRequest, fmt.Sprintf("url of %d bytes: at most %d", len(u), MaxURL))
		return
	case len(ts) < 4 || len(ts) > 14 || strings.Trim(ts, "0123456789") != "":
		uiError(w, r, http.StatusBadRequest, "ts=: a time-stamp of 4 to 14 digits")
		return
	}
	c, cl, err := s.findCapture(coll, u, ts, q.Get("file"), q.Get("offset"))
	if err != nil {
		code, msg := errorStatus(err)
		uiError(w, r, code, msg)
		return
	}
	if c == nil {
		uiError(w, r, http.StatusNotFound, "No capture of "+u+" at "+ts)
		return
	}
	if a := c.gets("access"); a != "" && a != "allow" {
		// an access rule blocks it (an excluded capture is not found)
		uiError(w, r, http.StatusUnavailableForLegalReasons, "Access Blocked to "+u)
		return
	}
	file := c.gets(fFilename)
	off, ok1 := cdx.PyInt(c.gets(fOffset))
	length, ok2 := cdx.PyInt(c.gets(fLength))
	if !ok1 || off < 0 {
		uiError(w, r, http.StatusNotFound, "the index gives no offset for this capture")
		return
	}
	if !ok2 {
		length = 0
	}
	if q.Get("raw") != "" {
		uiRawRecord(w, r, cl, c, file, off, length)
		return
	}
	cp, err := cl.readCapture(file, off, length)
	if err != nil {
		uiError(w, r, http.StatusNotFound, "cannot read the record: "+err.Error())
		return
	}
	defer cp.Close()
	rec := cp.rec
	cu := c.gets(fURL)
	rc := c.gets("source-coll")
	data := struct {
		uiBase
		URL, When, File, Type, Version                       string
		Offset, Length                                       string
		ReplayHref, RawHref, DownloadHref, CalHref, OrigHref string
		Revisit                                              bool
		OrigURL, OrigWhen                                    string
		Index, WARC, HTTP                                    []kv
		Digests                                              []digestRow
		HTTPStatus                                           string
		Preview                                              string
		PreviewLen                                           int
	}{
		uiBase:     uiBase{Title: "Record of " + cu, Crumbs: collCrumbs(coll, crumb{"captures", calHref(coll, "", cu)}, crumb{"record", ""})},
		URL:        cu,
		When:       fmtTS(c.gets(fTimestamp)),
		File:       file,
		Offset:     fmtCount(off),
		Type:       string(rec.Type()),
		Version:    rec.Version,
		ReplayHref: replayHref(rc, c.gets(fTimestamp), cu),
		RawHref:    rawHref(rc, c.gets(fTimestamp), cu),
		CalHref:    calHref(coll, "", cu),
	}
	if length > 0 {
		data.Length = fmtCount(length)
	}
	dl := url.Values{}
	for k, v := range q {
		dl[k] = v
	}
	dl.Set("raw", "1")
	data.DownloadHref = "/" + coll + "/record?" + dl.Encode()
	for i, k := range c.keys {
		data.Index = append(data.Index, kv{k, c.vals[i].String()})
	}
	if rec.ARC != nil {
		data.Type, data.Version = "ARC", rec.Version
	}
	for _, f := range rec.Header {
		data.WARC = append(data.WARC, kv{f.Name, f.Value})
	}
	data.Revisit = rec.Type() == record.Revisit
	if data.Revisit {
		ou := record.StripAngle(rec.Header.Get(record.FieldRefersToTargetURI))
		if ou == "" {
			ou = cu
		}
		if d := rec.Header.Get(record.FieldRefersToDate); len(d) >= 19 {
			ots := strings.NewReplacer("-", "", "T", "", ":", "", "Z", "").Replace(d)
			ots = ots[:min(len(ots), 14)]
			data.OrigURL, data.OrigWhen = ou, fmtTS(ots)
			data.OrigHref = recordHref(coll, ots, ou, "", "")
		}
	}
	head, body, _, herr := httpParts(rec)
	if herr == nil && head != nil {
		data.HTTPStatus = strings.TrimSpace(head.Proto + " " + head.Status + " " + head.Reason)
		for _, f := range head.Header {
			data.HTTP = append(data.HTTP, kv{f.Name, f.Value})
		}
	}
	// the start of a text payload not content-coded
	if herr == nil && body != nil && !data.Revisit {
		ct := rec.ContentType()
		coded := false
		if head != nil {
			ct = head.ContentType()
			coded = len(head.ContentEncoding()) > 0
		}
		mt := httpmsg.MediaType(ct)
		if !coded && (strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "xml") || strings.Contains(mt, "javascript")) {
			b, _ := io.ReadAll(io.LimitReader(body, uiPreview))
			for len(b) > 0 && !utf8.Valid(b) && len(b) > uiPreview-4 {
				b = b[:len(b)-1]
			}
			data.Preview, data.PreviewLen = strings.ToValidUTF8(string(b), "\uFFFD"), len(b)
		}
	}
	// digests: the index's, the record's, the block's checked
	if d := c.gets(fDigest); d != "" && d != "-" {
		data.Digests = append(data.Digests, digestRow{Name: "index digest", Value: d})
	}
	bd := rec.Header.Get(record.FieldBlockDigest)
	pd := rec.Header.Get(record.FieldPayloadDigest)
	if bd == "" && pd == "" {
		data.Digests = append(data.Digests, digestRow{Name: "WARC-Block-Digest", Value: "none in the record"})
	}
	if bd != "" || pd != "" {
		bcheck, pcheck := cl.checkDigests(file, off, length, bd, pd, head, data.Revisit)
		if bd != "" {
			data.Digests = append(data.Digests, digestRow{Name: "WARC-Block-Digest", Value: bd, Check: bcheck.text, CheckClass: bcheck.class})
		}
		if pd != "" {
			data.Digests = append(data.Digests, digestRow{Name: "WARC-Payload-Digest", Value: pd, Check: pcheck.text, CheckClass: pcheck.class})
		}
	}
	uiRender(w, r, http.StatusOK, "record", data)
}

type check struct{ text, class string }

// checkDigests reads the record again and hashes its block and its
// payload (the bytes after the HTTP head, as they are stored) when their
// digests are declared and the block is at most uiDigestMax bytes.
func (c *Collection) checkDigests(file string, off, length int64, bd, pd string, head *httpmsg.Head, revisit bool) (check, check) {
	var bc, pc check
	cp, err := c.readCapture(file, off, length)
	if err != nil {
		return check{"not checked: " + err.Error(), "muted"}, check{}
	}
	defer cp.Close()
	rec := cp.rec
	if n := rec.ContentLength(); n > uiDigestMax || rec.ARC != nil {
		return check{"not checked (large block)", "muted"}, check{"not checked (large block)", "muted"}
	}
	var bh, ph hash.Hash
	var bwant, pwant []byte
	if d, err := record.ParseDigest(bd); err == nil {
		bh, _ = record.NewHash(d.Algorithm)
		bwant = d.Sum
	} else if bd != "" {
		bc = check{"unreadable digest", "bad"}
	}
	if d, err := record.ParseDigest(pd); err == nil && !revisit && head != nil {
		ph, _ = record.NewHash(d.Algorithm)
		pwant = d.Sum
	}
	block := rec.Block
	if block == nil {
		block = strings.NewReader("")
	}
	br := bufio.NewReader(io.LimitReader(block, uiDigestMax+1))
	var skip int64
	if head != nil {
		skip = head.Len
	}
	buf := make([]byte, 32<<10)
	var pos int64
	for {
		n, err := br.Read(buf)
		if n > 0 {
			p := buf[:n]
			if bh != nil {
				bh.Write(p)
			}
			if ph != nil {
				if pos+int64(n) > skip {
					from := max(skip-pos, 0)
					ph.Write(p[from:])
				}
			}
			pos += int64(n)
		}
		if err != nil {
			if err != io.EOF {
				return check{"not checked: " + err.Error(), "muted"}, check{}
			}
			break
		}
	}
	if bh != nil {
		if bytes.Equal(bh.Sum(nil), bwant) {
			bc = check{"✓ matches the block", "ok"}
		} else {
			bc = check{"✗ the block's is different", "bad"}
		}
	}
	switch {
	case revisit:
		pc = check{"the original's payload", "muted"}
	case ph != nil:
		if bytes.Equal(ph.Sum(nil), pwant) {
			pc = check{"✓ matches the payload", "ok"}
		} else if head != nil && head.Chunked() {
			pc = check{"not the stored (chunked) payload's", "muted"}
		} else {
			pc = check{"✗ the payload's is different", "bad"}
		}
	}
	return bc, pc
}

// uiRawRecord sends the bytes of a record as its file stores them.
func uiRawRecord(w http.ResponseWriter, r *http.Request, cl *Collection, c *cdxObj, file string, off, length int64) {
	ra, size, closer, err := cl.openArchive(file)
	if err != nil {
		uiError(w, r, http.StatusNotFound, "cannot read the record: "+err.Error())
		return
	}
	if closer != nil {
		defer closer.Close()
	}
	if off > size {
		uiError(w, r, http.StatusNotFound, "the record's offset is past the end of its file")
		return
	}
	if length <= 0 {
		// no length in the index: the record's own, read
		cp, err := cl.readCapture(file, off, 0)
		if err == nil {
			if cp.rec.Block != nil {
				io.Copy(io.Discard, cp.rec.Block)
			}
			length = cp.rec.DiskLength
			cp.Close()
		}
		if length <= 0 {
			uiError(w, r, http.StatusNotFound, "the index gives no length for this record")
			return
		}
	}
	length = min(length, size-off)
	base := path.Base(file)
	ext := ".warc"
	lower := strings.ToLower(base)
	switch {
	case strings.Contains(lower, ".arc"):
		ext = ".arc"
	}
	ct := "application/warc"
	if ext == ".arc" {
		ct = "application/octet-stream"
	}
	head := make([]byte, 2)
	if n, _ := ra.ReadAt(head, off); n == 2 && head[0] == 0x1f && head[1] == 0x8b {
		ext += ".gz"
		ct = "application/gzip"
	}
	name := fmt.Sprintf("%s-%s-%d%s", strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".warc"), ".arc"), c.gets(fTimestamp), off, ext)
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' || r == '\\' || r >= 0x7f {
			return '_'
		}
		return r
	}, name)
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Content-Length", strconv.FormatInt(length, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	io.Copy(w, io.NewSectionReader(ra, off, length))
}
