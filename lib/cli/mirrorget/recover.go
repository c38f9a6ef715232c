package mirrorget

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/internal/sysfile"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// recoveredTail is how many of the last captures of a recovered file are
// remembered as written: a crawl marks URLs done in batches a few captures
// behind its output, so only the last ones can be written and not done.
const recoveredTail = 4096

// recovered is the set of URLs found at the end of recovered output.
type recovered map[string]bool

func (r recovered) has(u string) bool { return r[u] }

// recoverFile cuts a stream file left by a killed run back to the end of
// its last complete capture (a gzip member per record; a WARC request
// record without its response is dropped too) and returns the URLs of the
// last captures it holds, and how many bytes were cut.
func recoverFile(path, format string, into recovered) (cut int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	type rec struct {
		off  int64
		typ  string
		uri  string
		done bool
	}
	var recs []rec // the last ones
	good := int64(0)
	next := func() (*record.Record, error) { return nil, io.EOF }
	if format == "arc" {
		rd, err := arc.NewReader(f, arc.WithPolicy(record.Fail), arc.WithName(path))
		if err == nil {
			next = rd.Next
		}
	} else {
		rd, err := warc.NewReader(f, warc.WithPolicy(record.Fail), warc.WithFilename(path))
		if err == nil {
			next = rd.Next
		}
	}
	for {
		r, err := next()
		if err == io.EOF {
			good = st.Size()
			break
		}
		if err != nil {
			break
		}
		good = r.Offset // everything before it is whole
		if _, err := io.Copy(io.Discard, r.Block); err != nil {
			break
		}
		typ := r.Header.Get(record.FieldType)
		if r.ARC != nil {
			typ = "response"
		}
		recs = append(recs, rec{off: r.Offset, typ: typ, uri: r.Header.Get(record.FieldTargetURI)})
		if len(recs) > 2*recoveredTail {
			recs = append(recs[:0], recs[len(recs)-recoveredTail:]...)
		}
	}
	// keep the records before good; a request whose response is cut goes too
	for len(recs) > 0 && recs[len(recs)-1].off >= good {
		recs = recs[:len(recs)-1]
	}
	if len(recs) > 0 && recs[len(recs)-1].typ == "request" {
		good = recs[len(recs)-1].off
		recs = recs[:len(recs)-1]
	}
	for _, r := range recs {
		if r.uri != "" && (r.typ == "response" || r.typ == "resource" || r.typ == "revisit") {
			into[r.uri] = true
		}
	}
	if good < st.Size() {
		if err := f.Truncate(good); err != nil {
			return 0, err
		}
	}
	return st.Size() - good, f.Sync()
}

// numbered returns name, or when it exists name with -N (00001, 00002 ...)
// before its archive extension: crawl.warc.gz, crawl-00001.warc.gz ...
func numbered(name string) string {
	if _, err := os.Lstat(name); errors.Is(err, os.ErrNotExist) {
		return name
	}
	dir, base := filepath.Split(name)
	ext := ""
	for _, e := range []string{".warc.gz", ".arc.gz", ".warc.zst", ".warc", ".arc", ".gz"} {
		if strings.HasSuffix(base, e) && len(base) > len(e) {
			ext = e
			break
		}
	}
	stem := strings.TrimSuffix(base, ext)
	for i := 1; ; i++ {
		n := filepath.Join(dir, fmt.Sprintf("%s-%05d%s", stem, i, ext))
		if _, err := os.Lstat(n); errors.Is(err, os.ErrNotExist) {
			return n
		}
	}
}

// partName is where -o FILE is written while a resumable crawl runs.
func partName(output string) string {
	return filepath.Join(filepath.Dir(output), "."+filepath.Base(output)+".part")
}

// syncDir makes the names in dir durable (a no-op on Windows:
// sysfile.SyncDir).
func syncDir(dir string) error { return sysfile.SyncDir(dir) }
