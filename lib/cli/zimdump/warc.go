package zimdump

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/arcport/arcport/lib/zim"
)

// warcBase returns "https://zim.local/<name>/": name is M/Name, or the
// file name without its .zim extension.
func warcBase(a *zim.Archive, file string) string {
	name := ""
	if v, err := a.Metadata("Name"); err == nil {
		name = strings.TrimSpace(string(v))
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(file), ".zim")
		name = strings.TrimSuffix(name, ".zimaa")
	}
	return "https://zim.local/" + url.PathEscape(name) + "/"
}

// escapePath percent-encodes each segment of an archive path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// warcDate is the archive's M/Date (YYYY-MM-DD) at midnight UTC, or the
// file's modification time.
func warcDate(a *zim.Archive, file string) time.Time {
	if v, err := a.Metadata("Date"); err == nil {
		if t, err := time.Parse("2006-01-02", strings.TrimSpace(string(v))); err == nil {
			return t
		}
	}
	if st, err := os.Stat(file); err == nil {
		return st.ModTime().UTC()
	}
	return time.Unix(0, 0).UTC()
}

// warc writes the archive as WARC 1.1: a warcinfo record with the ZIM's
// metadata, then every user entry in cluster order: items as resource
// records (Content-Type the item's MIME type), redirects as response
// records holding an HTTP 302 to their target, so that a replay tool
// follows them. Record IDs are derived from the ZIM UUID and the path, so
// the output is reproducible. -o FILE writes atomically; --plain writes
// without gzip.
//
// The archive is first checked as zimdump check checks it, except that the
// clusters are decompressed by the conversion itself rather than twice
// (docs/damaged-input.md): each problem is one line on stderr, "zimdump:
// FILE: offset N: reason", the same problem at the same offset as zimdump
// check prints it, and the exit status is 1. To standard output the
// records of the entries that can be read are still written; -o FILE, which
// is written whole or not at all, is then not written.
func (e *env) warc() int {
	a := e.a
	damage := a.Check(zim.CheckOptions{Checksum: true})
	for _, p := range damage {
		fmt.Fprintf(e.stderr, "zimdump: %s: %s\n", e.p.file, oneLine(p.String()))
	}
	var out io.Writer = e.out
	var af cliutil.Output
	if o := e.p.opts["output"]; o != "" && o != "-" {
		if len(damage) > 0 {
			fmt.Fprintf(e.stderr, "zimdump: %s: %d problem(s) of a damaged archive (zimdump check): %s not written\n", e.p.file, len(damage), o)
			return 1
		}
		var err error
		if af, err = e.createOutput(o); err != nil {
			return e.fail(err)
		}
		defer af.Abort()
		out = af
	}
	h := a.Header()
	ns := uuid.UUID(h.UUID)
	idFor := func(key string) string { return "<urn:uuid:" + uuid.NewSHA1(ns, []byte(key)).String() + ">" }
	opts := []warc.WriterOption{warc.WithIDFunc(func(r *record.Record) string { return idFor(r.Header.Get(record.FieldTargetURI)) })}
	if e.p.has("plain") {
		opts = append(opts, warc.WithCompression(compio.Plain))
	}
	spoolMax := compio.DefaultSpoolMax
	if e.p.has("spool-max") {
		n, err := compio.ParseSize(e.p.opts["spool-max"])
		if err != nil {
			return e.fail(fmt.Errorf("--spool-max: %w", err))
		}
		spoolMax = n
	}
	w := warc.NewWriter(out, opts...)
	base := warcBase(a, e.p.file)
	date := record.FormatDate(warcDate(a, e.p.file), false)

	// warcinfo
	var info strings.Builder
	fmt.Fprintf(&info, "software: arcport zimdump %s\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n", cliutil.Version)
	fmt.Fprintf(&info, "source: %s\r\nzim-uuid: %s\r\nzim-base-uri: %s\r\n", filepath.Base(e.p.file), h.UUIDString(), base)
	if ms, err := a.MetadataEntries(); err == nil {
		for _, m := range ms {
			if r, err := a.Resolve(m); err == nil {
				if mt, _ := a.MimeType(r); strings.HasPrefix(mt, "text/") {
					if v, err := a.ReadBlob(r); err == nil && len(v) < 4096 && len(strings.TrimSpace(string(v))) > 0 {
						fmt.Fprintf(&info, "zim-%s: %s\r\n", m.Path, strings.Join(strings.Fields(string(v)), " "))
					}
				}
			}
		}
	}
	wi := &record.Record{Header: record.Header{
		{Name: record.FieldType, Value: string(record.Warcinfo)},
		{Name: record.FieldRecordID, Value: idFor("warcinfo")},
		{Name: record.FieldDate, Value: date},
		{Name: record.FieldFilename, Value: filepath.Base(e.p.file)},
		{Name: record.FieldContentType, Value: "application/warc-fields"},
	}, Block: strings.NewReader(info.String())}
	if err := w.WriteRecord(wi); err != nil {
		return e.fail(err)
	}
	warcinfoID := wi.ID()

	// An entry that cannot be converted (a cluster that does not
	// decompress, lying blob offsets) ends the run; the archive is then
	// checked with every cluster decompressed, as zimdump check does, so
	// that the problems check would report are given too (those the
	// failure does not name already).
	stop := func(err error) int {
		msg := oneLine(err.Error())
		code := e.fail(err)
		if len(damage) == 0 {
			for _, p := range a.Check(zim.CheckOptions{Clusters: true}) {
				if l := oneLine(p.String()); !strings.Contains(msg, l) {
					fmt.Fprintf(e.stderr, "zimdump: %s: %s\n", e.p.file, l)
				}
			}
		}
		return code
	}
	order, err := a.EfficientOrder()
	if err != nil {
		return e.fail(err)
	}
	for _, idx := range order {
		ent, err := a.EntryAt(idx)
		if err != nil {
			return stop(e.named(err, fmt.Sprintf("entry %d", idx)))
		}
		uri := base + escapePath(a.PathOf(ent))
		rec := &record.Record{Header: record.Header{
			{Name: record.FieldTargetURI, Value: uri},
			{Name: record.FieldDate, Value: date},
			{Name: record.FieldWarcinfoID, Value: warcinfoID},
		}}
		var closer io.Closer
		switch ent.Kind {
		case zim.KindDeprecated:
			continue
		case zim.KindRedirect:
			t, err := a.Resolve(ent)
			if err != nil {
				return stop(e.entryErr(ent, err))
			}
			loc := base + escapePath(a.PathOf(t))
			rec.Header = append(rec.Header,
				record.Field{Name: record.FieldType, Value: string(record.Response)},
				record.Field{Name: record.FieldContentType, Value: "application/http; msgtype=response"})
			rec.Block = strings.NewReader("HTTP/1.1 302 Found\r\nLocation: " + loc + "\r\nContent-Length: 0\r\n\r\n")
		default:
			mt, err := a.MimeType(ent)
			if err != nil {
				return stop(e.entryErr(ent, err))
			}
			r, size, err := a.OpenBlob(ent)
			if err != nil {
				return stop(e.entryErr(ent, err))
			}
			if size > spoolMax {
				// refused before a byte is spooled
				r.Close()
				return stop(fmt.Errorf("%s: offset %d: entry %s: %w", e.p.file, ent.Offset, ent.LongPath(), &compio.SpoolLimitError{Max: spoolMax, Declared: size}))
			}
			closer = r
			rec.Header = append(rec.Header,
				record.Field{Name: record.FieldType, Value: string(record.Resource)},
				record.Field{Name: record.FieldContentType, Value: mt})
			rec.Block = compio.CapReader(r, spoolMax)
		}
		err = w.WriteRecord(rec)
		if closer != nil {
			closer.Close()
		}
		if err != nil {
			var sl *compio.SpoolLimitError
			if errors.As(err, &sl) {
				return stop(fmt.Errorf("%s: offset %d: entry %s: %w", e.p.file, ent.Offset, ent.LongPath(), sl))
			}
			var fe *zim.FormatError
			if errors.As(err, &fe) { // reading the blob
				return stop(e.entryErr(ent, fe))
			}
			return e.fail(err)
		}
	}
	if err := w.Close(); err != nil {
		return e.fail(err)
	}
	if af != nil {
		if err := af.Commit(); err != nil {
			return e.fail(err)
		}
	}
	if len(damage) > 0 {
		e.out.Flush()
		fmt.Fprintf(e.stderr, "zimdump: %s: %d problem(s) of a damaged archive (zimdump check): the records of the entries that could be read are written\n", e.p.file, len(damage))
		return 1
	}
	return 0
}

// fail reports err on stderr as one line, "zimdump: reason", and returns
// status 1 (the house rule for the arcport commands and options: check,
// meta, warc, info --json, list --json).
// Errors of the archive read "FILE: offset N: reason".
func (e *env) fail(err error) int {
	e.err = err
	e.out.Flush()
	fmt.Fprintf(e.stderr, "zimdump: %s\n", oneLine(err.Error()))
	return 1
}

// named gives an error that does not name the archive (a sentinel such as
// zim.ErrOutOfRange) the file name and what was being read.
func (e *env) named(err error, what string) error {
	var fe *zim.FormatError
	if errors.As(err, &fe) {
		return err
	}
	return fmt.Errorf("%s: %s: %w", e.p.file, what, err)
}

// entryFail reports err met on entry ent: the file, the offset (of the
// fault, or of the entry's dirent) and the entry's namespace and path.
func (e *env) entryFail(ent *zim.Entry, err error) int {
	return e.fail(e.entryErr(ent, err))
}

// entryErr is the error entryFail reports.
func (e *env) entryErr(ent *zim.Entry, err error) error {
	path := ent.LongPath()
	var fe *zim.FormatError
	if errors.As(err, &fe) {
		return fmt.Errorf("%w (entry %s)", fe, path)
	}
	return fmt.Errorf("%s: offset %d: entry %s: %w", e.p.file, ent.Offset, path, err)
}
