package waczpack

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/urfave/cli/v2"
)

// lookupCommand is `waczpack lookup INDEX URL`.
func lookupCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "lookup",
		Usage:     "query a ZipNum cluster (folder or s3:// prefix with cluster.idx + cluster.loc, or an .idx) with the cdx-server API's rules",
		ArgsUsage: "INDEX URL",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "match", Usage: "exact, prefix, host or domain (default: from the URL as pywb reads it: *.example.com is domain, example.com/a* prefix, else exact)"},
			&cli.StringFlag{Name: "ts", Usage: "order by distance from `TIMESTAMP` (YYYYMMDDhhmmss, or a prefix of it), closest first, as pywb's closest="},
			&cli.IntFlag{Name: "limit", Usage: "print at most `N` captures (0: all)"},
			&cli.BoolFlag{Name: "json", Usage: "one JSON object per line (urlkey, timestamp and the fields), as pywb's output=json"},
		},
		Action: func(c *cli.Context) error { return lookup(c, stdout) },
	}
}

// clusterPaths returns the summary and .loc names of an index argument
// and the folder part paths are relative to.
func clusterPaths(index string) (idx, loc, dir string) {
	remote := cliutil.IsRemote(index)
	join := filepath.Join
	if remote {
		join = func(a ...string) string { return strings.TrimSuffix(a[0], "/") + "/" + a[1] }
	}
	if strings.HasSuffix(index, ".idx") || strings.HasSuffix(index, ".summary") {
		base := strings.TrimSuffix(strings.TrimSuffix(index, ".idx"), ".summary")
		if remote {
			return index, base + ".loc", index[:strings.LastIndexByte(index, '/')+1]
		}
		return index, base + ".loc", filepath.Dir(index)
	}
	return join(index, cdx.ClusterIdxName), join(index, cdx.ClusterLocName), index
}

// openIndex opens a cluster (or a WACZ-style ZipNum idx) for lookups.
func openIndex(index string) (*cdx.ZipNum, func(), error) {
	idxName, locName, dir := clusterPaths(index)
	var closers []io.Closer
	done := func() {
		for _, c := range closers {
			c.Close()
		}
	}
	ra, err := cliutil.OpenAt(idxName)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, ra)
	// the .loc: part name -> path; without one, parts lie beside the idx
	locs := map[string][]string{}
	if f, _, err := cliutil.OpenInput(locName); err == nil {
		locs, err = cdx.ParseLoc(bufio.NewReader(f))
		f.Close()
		if err != nil {
			done()
			return nil, nil, fmt.Errorf("%s: %w", store.Redact(locName), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, store.ErrNotFound) {
		done()
		return nil, nil, err
	}
	resolve := func(p string) string {
		switch {
		case strings.Contains(p, "://"):
			return p
		case cliutil.IsRemote(dir):
			return strings.TrimSuffix(dir, "/") + "/" + path.Clean("/" + p)[1:]
		case filepath.IsAbs(p):
			return p
		}
		return filepath.Join(dir, p)
	}
	open := func(part string) (io.ReaderAt, error) {
		paths := locs[part]
		if len(paths) == 0 {
			if len(locs) > 0 {
				return nil, fmt.Errorf("%s: part %q is not in it", store.Redact(locName), part)
			}
			paths = []string{part}
		}
		var firstErr error
		for _, p := range paths {
			r, err := cliutil.OpenAt(resolve(p))
			if err == nil {
				closers = append(closers, r)
				return r, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		return nil, firstErr
	}
	z, err := cdx.OpenZipNum(ra, ra.Size(), open)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("%s: %w", store.Redact(idxName), err)
	}
	return z, done, nil
}

func lookup(c *cli.Context, stdout io.Writer) error {
	if c.NArg() != 2 {
		return cliutil.Usagef("want INDEX URL")
	}
	index, url := c.Args().Get(0), c.Args().Get(1)
	from, to, err := cdx.SearchRange(url, c.String("match"))
	if err != nil {
		return cliutil.Usagef("%v", err)
	}
	z, done, err := openIndex(index)
	if err != nil {
		return err
	}
	defer done()
	ts := c.String("ts")
	if ts != "" && strings.Trim(ts, "0123456789") != "" {
		t, err := wacz.ParseTS(ts)
		if err != nil {
			return cliutil.Usagef("--ts: %v", err)
		}
		ts = t.UTC().Format("20060102150405")
	}
	limit := c.Int("limit")
	bw := bufio.NewWriterSize(stdout, 64<<10)
	defer bw.Flush()
	asJSON := c.Bool("json")
	print := func(line []byte) error {
		if !asJSON {
			bw.Write(line)
			return bw.WriteByte('\n')
		}
		e, err := cdx.ParseCDXJ(line)
		if err != nil {
			return fmt.Errorf("--json: %w", err)
		}
		bw.WriteString(`{"urlkey":`)
		k, _ := json.Marshal(e.URLKey)
		bw.Write(k)
		bw.WriteString(`,"timestamp":`)
		k, _ = json.Marshal(e.Timestamp)
		bw.Write(k)
		for _, f := range e.Fields {
			k, _ = json.Marshal(f.Name)
			bw.WriteByte(',')
			bw.Write(k)
			bw.WriteByte(':')
			if f.Raw {
				bw.WriteString(f.Value)
			} else {
				k, _ = json.Marshal(f.Value)
				bw.Write(k)
			}
		}
		_, err = bw.WriteString("}\n")
		return err
	}
	n := 0
	var lines [][]byte
	err = z.RangeLines(from, to, func(_ cdx.Block, l []byte) error {
		if ts != "" {
			lines = append(lines, bytes.Clone(l))
			return nil
		}
		// in index order, streaming
		if limit > 0 && n >= limit {
			return errLimit
		}
		n++
		return print(l)
	})
	if err == errLimit {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", store.Redact(index), err)
	}
	cdx.SortLinesByClosest(lines, ts)
	for _, l := range lines {
		if limit > 0 && n >= limit {
			break
		}
		n++
		if err := print(l); err != nil {
			return err
		}
	}
	return bw.Flush()
}

var errLimit = errors.New("limit reached")
