package cdx

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/surt"
	"github.com/klauspost/compress/gzip"
)

// A ZipNum cluster is the sorted index of a whole collection as pywb's
// ZipNumIndexSource and Common Crawl's cc-index read it: the sorted CDXJ
// lines cut into S parts by key range, each part a file of gzip members
// of DefaultClusterBlockLines lines, one summary over all parts, and a
// .loc file that tells where each part is:
//
//	cdx-00000.gz ... cdx-NNNNN.gz   the parts (gzip members of CDXJ lines)
//	cluster.idx                     <urlkey> <timestamp>\t<part>\t<offset>\t<length>\t<n>
//	cluster.loc                     <part>\t<path relative to the .loc>
//	cdx-00000.part ...              each part's own summary (n counted from 1 in the part)
//
// cluster.idx is the concatenation of the .part files in part order with
// the block numbers n counted on across parts (from 1), which pywb's
// paged queries (showNumPages, page=) need. The .part files are what S
// independent tasks leave behind (one each); JoinParts makes cluster.idx
// and cluster.loc from them.
const (
	// ClusterIdxName is the name of a cluster's summary.
	ClusterIdxName = "cluster.idx"
	// ClusterLocName is the name of a cluster's part locations; pywb
	// looks for the summary's name with .loc for .idx.
	ClusterLocName = "cluster.loc"
	// DefaultClusterBlockLines is the number of lines per gzip member in
	// a cluster (Common Crawl's cc-index uses 3000).
	DefaultClusterBlockLines = 3000
)

// PartName returns the name of part k of a cluster ("cdx-00000.gz").
func PartName(k int) string { return fmt.Sprintf("cdx-%05d.gz", k) }

// PartSummaryName returns the name of part k's own summary
// ("cdx-00000.part"; not ".idx", so that pywb, which loads every .idx in
// a collection's index folder, reads only cluster.idx).
func PartSummaryName(k int) string { return fmt.Sprintf("cdx-%05d.part", k) }

var partSummaryRE = regexp.MustCompile(`^cdx-([0-9]{5,})\.part$`)

// ClusterFile is one file of a cluster being written: it appears under
// its name whole, at Commit, or not at all.
type ClusterFile interface {
	io.Writer
	Commit() error
	Abort()
}

// ClusterDir is the folder (or object prefix) a cluster is written into.
type ClusterDir interface {
	// Create starts the file name, which appears only at its Commit.
	Create(name string) (ClusterFile, error)
	// Open reads the file name.
	Open(name string) (io.ReadCloser, error)
	// List returns the names of the files in the folder.
	List() ([]string, error)
}

// ClusterOptions configure the writing of a cluster.
type ClusterOptions struct {
	// BlockLines is the number of lines per gzip member
	// (DefaultClusterBlockLines when 0).
	BlockLines int
}

func (o ClusterOptions) blockLines() int {
	if o.BlockLines <= 0 {
		return DefaultClusterBlockLines
	}
	return o.BlockLines
}

// PartWriter writes one part of a cluster and its .part summary from
// sorted lines.
type PartWriter struct {
	k          int
	data, sum  ClusterFile
	bd, bs     *bufio.Writer
	zn         *ZipNumWriter
	lines      int64
	last       []byte
	firstLines bool
}

// NewPartWriter starts part k in dir.
func NewPartWriter(dir ClusterDir, k int, opts ClusterOptions) (*PartWriter, error) {
	data, err := dir.Create(PartName(k))
	if err != nil {
		return nil, err
	}
	sum, err := dir.Create(PartSummaryName(k))
	if err != nil {
		data.Abort()
		return nil, err
	}
	p := &PartWriter{k: k, data: data, sum: sum, bd: bufio.NewWriterSize(data, 256<<10), bs: bufio.NewWriterSize(sum, 64<<10)}
	p.zn = NewZipNumWriter(p.bd, p.bs, WithClusterPart(PartName(k), 1), WithBlockLines(opts.blockLines()), WithBlockDigests(false))
	return p, nil
}

// WriteLine adds a line, which must not sort before the one before it.
func (p *PartWriter) WriteLine(line []byte) error {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if p.lines > 0 && bytes.Compare(line, p.last) < 0 {
		return fmt.Errorf("%s: line %d: %w", PartName(p.k), p.lines+1, ErrNotSorted)
	}
	p.last = append(p.last[:0], line...)
	p.lines++
	return p.zn.WriteLine(line)
}

// Lines returns the number of lines written.
func (p *PartWriter) Lines() int64 { return p.lines }

// Commit writes the last block and commits the part, then its summary
// (so that a .part file means a whole part). An empty part is one empty
// gzip member (no summary line points into it), so that zcat of all
// parts works.
func (p *PartWriter) Commit() error {
	err := p.zn.Close()
	if err == nil && p.lines == 0 {
		err = gzip.NewWriter(p.bd).Close()
	}
	if err == nil {
		err = p.bd.Flush()
	}
	if err == nil {
		err = p.bs.Flush()
	}
	if err == nil {
		err = p.data.Commit()
	}
	if err == nil {
		err = p.sum.Commit()
	}
	if err != nil {
		p.Abort()
	}
	return err
}

// Abort drops the part.
func (p *PartWriter) Abort() {
	p.data.Abort()
	p.sum.Abort()
}

// lineURLKey returns the urlkey of a CDXJ line: what stands before the
// timestamp, the last word before " {".
func lineURLKey(line []byte) []byte {
	head := line
	if i := bytes.Index(line, []byte(" {")); i >= 0 {
		head = line[:i]
	}
	if j := bytes.LastIndexByte(head, ' '); j >= 0 {
		return head[:j]
	}
	return head
}

// ClusterWriter writes a whole cluster of S parts from all its sorted
// lines, total of them: part k starts at the first line at or after
// line k*total/S whose urlkey differs from the line before (the
// captures of one URL stay in one part), so parts are about equal.
// Close writes cluster.idx and cluster.loc.
type ClusterWriter struct {
	dir      ClusterDir
	opts     ClusterOptions
	shards   int
	total, n int64
	k        int
	cur      *PartWriter
	prevKey  []byte
	splits   []string
	closed   bool
}

// NewClusterWriter returns a writer of a cluster of shards parts
// holding total lines.
func NewClusterWriter(dir ClusterDir, shards int, total int64, opts ClusterOptions) *ClusterWriter {
	return &ClusterWriter{dir: dir, opts: opts, shards: max(shards, 1), total: total}
}

// NewClusterWriterSplits returns a writer of a cluster of len(splits)+1
// parts cut at the given keys (SampleSplits): part k holds the lines L
// with splits[k-1] <= L < splits[k]. It writes the same parts as
// len(splits)+1 tasks that each write one part with PartWriter from the
// lines of ShardRange(splits, k).
func NewClusterWriterSplits(dir ClusterDir, splits []string, opts ClusterOptions) *ClusterWriter {
	return &ClusterWriter{dir: dir, opts: opts, shards: len(splits) + 1, splits: splits}
}

// WriteLine adds the next line in sorted order.
func (w *ClusterWriter) WriteLine(line []byte) error {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if w.splits != nil {
		if w.cur == nil {
			p, err := NewPartWriter(w.dir, w.k, w.opts)
			if err != nil {
				return err
			}
			w.cur = p
		}
		for w.k < len(w.splits) && string(line) >= w.splits[w.k] {
			if err := w.next(); err != nil {
				return err
			}
		}
		return w.cur.WriteLine(line)
	}
	key := lineURLKey(line)
	if w.cur == nil {
		p, err := NewPartWriter(w.dir, w.k, w.opts)
		if err != nil {
			return err
		}
		w.cur = p
	} else if w.k < w.shards-1 && w.n >= int64(w.k+1)*w.total/int64(w.shards) && !bytes.Equal(key, w.prevKey) {
		if err := w.next(); err != nil {
			return err
		}
	}
	w.prevKey = append(w.prevKey[:0], key...)
	w.n++
	return w.cur.WriteLine(line)
}

// next commits the current part and starts the next.
func (w *ClusterWriter) next() error {
	if err := w.cur.Commit(); err != nil {
		w.cur = nil
		return err
	}
	w.k++
	p, err := NewPartWriter(w.dir, w.k, w.opts)
	if err != nil {
		w.cur = nil
		return err
	}
	w.cur = p
	return nil
}

// Close commits the last part, writes the parts left empty, and then
// cluster.idx and cluster.loc.
func (w *ClusterWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	for {
		if w.cur == nil {
			p, err := NewPartWriter(w.dir, w.k, w.opts)
			if err != nil {
				return err
			}
			w.cur = p
		}
		err := w.cur.Commit()
		w.cur = nil
		if err != nil {
			return err
		}
		if w.k+1 >= w.shards {
			break
		}
		w.k++
	}
	return JoinParts(w.dir, w.shards)
}

// Abort drops the part being written (the caller removes the folder).
func (w *ClusterWriter) Abort() {
	w.closed = true
	if w.cur != nil {
		w.cur.Abort()
		w.cur = nil
	}
}

// JoinParts writes cluster.idx, the .part summaries of parts 0..shards-1
// in order with the block numbers counted on across them, and
// cluster.loc, one "<part>\t<part>" line per part (paths relative to the
// .loc file, as pywb's LocMapResolver resolves them). It fails when a
// part's summary is missing, when parts overlap (a part's first key sorts
// before the previous part's last), or when a .part beyond shards is
// there (left by a run with more shards).
func JoinParts(dir ClusterDir, shards int) error {
	names, err := dir.List()
	if err != nil {
		return err
	}
	for _, n := range names {
		if m := partSummaryRE.FindStringSubmatch(n); m != nil {
			if k, _ := strconv.Atoi(m[1]); k >= shards {
				return fmt.Errorf("%s is there but the cluster has %d parts (left by a run with more --shards?)", n, shards)
			}
		}
	}
	idx, err := dir.Create(ClusterIdxName)
	if err != nil {
		return err
	}
	defer idx.Abort()
	bw := bufio.NewWriterSize(idx, 256<<10)
	var loc strings.Builder
	lineNo := int64(1)
	lastKey := ""
	for k := range shards {
		if err := joinPart(dir, k, bw, &lineNo, &lastKey); err != nil {
			return err
		}
		fmt.Fprintf(&loc, "%s\t%s\n", PartName(k), PartName(k))
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	lf, err := dir.Create(ClusterLocName)
	if err != nil {
		return err
	}
	defer lf.Abort()
	if _, err := io.WriteString(lf, loc.String()); err != nil {
		return err
	}
	// the .loc first: a cluster.idx means a whole cluster
	if err := lf.Commit(); err != nil {
		return err
	}
	return idx.Commit()
}

func joinPart(dir ClusterDir, k int, w *bufio.Writer, lineNo *int64, lastKey *string) error {
	name := PartSummaryName(k)
	r, err := dir.Open(name)
	if err != nil {
		return fmt.Errorf("part %d of the cluster is not written (%s): %w", k, name, err)
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLineSize)
	first := true
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		b, err := parseClusterLine(line, 0)
		if err != nil {
			return fmt.Errorf("%s: line %d: %w", name, n, err)
		}
		if b.Filename != PartName(k) {
			return fmt.Errorf("%s: line %d: names part %q, not %s", name, n, b.Filename, PartName(k))
		}
		if first && b.Key < *lastKey {
			return fmt.Errorf("%s: first block %q sorts before the last block of the parts before it (%q): parts overlap", name, b.Key, *lastKey)
		}
		first = false
		*lastKey = b.Key
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\n", b.Key, b.Filename, b.Offset, b.Length, *lineNo)
		*lineNo++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// ParseLoc reads a .loc file: lines of a part name and one or more paths,
// tab-separated (pywb tries the paths in turn; relative ones are relative
// to the .loc file).
func ParseLoc(r io.Reader) (map[string][]string, error) {
	out := map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLineSize)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r\n\t ")
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 || f[0] == "" {
			return nil, fmt.Errorf("%w: .loc line %d: want part<TAB>path", ErrBadIndex, n)
		}
		out[f[0]] = f[1:]
	}
	return out, sc.Err()
}

// SizedReaderAt is a sorted CDXJ run read in place.
type SizedReaderAt interface {
	io.ReaderAt
	Size() int64
}

// SampleSplits chooses the shards-1 keys that cut the lines of sorted
// runs into shards key ranges of about equal bytes, from samples alone:
// the line at or after each of perRun evenly spaced byte offsets of each
// run, weighted by the run's bytes per sample. Part k then holds the
// lines L with splits[k-1] <= L < splits[k] (see ShardRange). Each split
// is a sampled line's "urlkey " (the key and the space after it), so the
// captures of one URL fall into one part. The result depends only on the
// runs' bytes, not on their order: every task of a batch job computes
// the same splits from the same runs. perRun <= 0 takes 8192 samples in
// all, at least 4 and at most 256 per run.
func SampleSplits(runs []SizedReaderAt, shards, perRun int) ([]string, error) {
	sm := NewSampler(len(runs), perRun)
	for _, r := range runs {
		if err := sm.Add(r); err != nil {
			return nil, err
		}
	}
	return sm.Splits(shards), nil
}

// Sampler gathers the samples of SampleSplits one run at a time, so that
// a caller keeps only one run open.
type Sampler struct {
	perRun  int
	samples []sample
}

type sample struct {
	key string
	w   float64
}

// NewSampler returns a sampler for runs runs (perRun as for
// SampleSplits).
func NewSampler(runs, perRun int) *Sampler {
	if perRun <= 0 {
		perRun = min(max(8192/max(runs, 1), 4), 256)
	}
	return &Sampler{perRun: perRun}
}

// Add samples one run.
func (sm *Sampler) Add(r SizedReaderAt) error {
	size := r.Size()
	if size == 0 {
		return nil
	}
	w := float64(size) / float64(sm.perRun)
	seen := int64(-1)
	for i := range sm.perRun {
		off := size * int64(i) / int64(sm.perRun)
		s, err := nextLineStart(r, size, 0, off)
		if err != nil {
			return err
		}
		if s >= size || s == seen {
			continue
		}
		seen = s
		line, _, err := readLineAt(r, size, s)
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		sm.samples = append(sm.samples, sample{string(lineURLKey([]byte(line))) + " ", w})
	}
	return nil
}

// Splits returns the shards-1 split keys of the samples.
func (sm *Sampler) Splits(shards int) []string {
	if shards <= 1 {
		return nil
	}
	samples := slices.Clone(sm.samples)
	// by key, then weight: the same order whatever order the runs came in
	slices.SortFunc(samples, func(a, b sample) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		switch {
		case a.w < b.w:
			return -1
		case a.w > b.w:
			return 1
		}
		return 0
	})
	// summed in that order too: float sums depend on the order
	var total float64
	for _, x := range samples {
		total += x.w
	}
	splits := make([]string, 0, shards-1)
	var cum float64
	k := 1
	for i := 0; i < len(samples) && k < shards; {
		key := samples[i].key
		// the split goes before key once the keys below it carry the
		// part's share
		if cum >= total*float64(k)/float64(shards) {
			if len(splits) == 0 || splits[len(splits)-1] < key {
				splits = append(splits, key)
			}
			k++
			continue
		}
		for ; i < len(samples) && samples[i].key == key; i++ {
			cum += samples[i].w
		}
	}
	// fewer distinct keys than parts: the last parts are empty
	for len(splits) < shards-1 {
		splits = append(splits, "\xff")
	}
	return splits
}

// RunFrom returns a reader of a sorted run from the last line that sorts
// before from (found by binary search, reading only a few blocks of the
// run) to its end: what AddRunRange needs of the run for lines from from
// on.
func RunFrom(r SizedReaderAt, from string) (io.Reader, error) {
	start, err := searchLines(r, r.Size(), 0, from)
	if err != nil {
		return nil, err
	}
	return io.NewSectionReader(r, start, r.Size()-start), nil
}

// ShardRange returns the lines L of part k, from <= L < to ("" for no
// bound), for the splits of SampleSplits.
func ShardRange(splits []string, k int) (from, to string) {
	if k > 0 && k-1 < len(splits) {
		from = splits[k-1]
	}
	if k < len(splits) {
		to = splits[k]
	}
	return from, to
}

// Match types of the cdx-server API (pywb's matchType).
const (
	MatchExact  = "exact"
	MatchPrefix = "prefix"
	MatchHost   = "host"
	MatchDomain = "domain"
)

// SearchRange returns the SURT key range [from, to) of the captures that
// match url as pywb's cdx-server API matches them (calc_search_range):
// exact the URL's key; prefix every key starting with it; host every
// URL of the host; domain the host and its subdomains. An empty match
// type is read from the URL as pywb reads it: "*.example.com" is domain,
// "example.com/path*" prefix, else exact. A URL without a scheme gets
// "http://". Keys are those of warcio.js (surt.Key).
func SearchRange(url, match string) (from, to string, err error) {
	if match == "" {
		switch {
		case strings.HasPrefix(url, "*."):
			url, match = url[2:], MatchDomain
		case strings.HasSuffix(url, "*"):
			url, match = url[:len(url)-1], MatchPrefix
		default:
			match = MatchExact
		}
	}
	u := url
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	key := surt.Key(u)
	if key == "" {
		return "", "", fmt.Errorf("%q: empty URL", url)
	}
	host, _, _ := strings.Cut(key, ")/")
	switch match {
	case MatchExact:
		return key, key + "!", nil
	case MatchPrefix:
		if strings.HasSuffix(url, "/") && !strings.HasSuffix(key, "/") {
			key += "/"
		}
		if strings.HasSuffix(url, "?") && !strings.HasSuffix(key, "?") {
			key += "?"
		}
		return key, key[:len(key)-1] + string(key[len(key)-1]+1), nil
	case MatchHost:
		return host + ")/", host + "*", nil
	case MatchDomain:
		if !strings.Contains(host, ",") {
			return host + ",", host + "-", nil
		}
		return host + ")/", host + "-", nil
	}
	return "", "", fmt.Errorf("match type %q: want exact, prefix, host or domain", match)
}

// SortLinesByClosest orders index lines (CDXJ or CDX-11; see
// LineTimestamp) by how far their timestamps lie from ts, in seconds,
// closest first; lines as far apart keep their order (pywb's
// cdx_sort_closest, with warcio's timestamp_to_sec: a short timestamp is
// completed with 10000101000000 and out-of-range fields are clamped). An
// empty ts leaves the order.
func SortLinesByClosest(lines [][]byte, ts string) {
	if ts == "" {
		return
	}
	want := timestampSeconds(ts)
	d := make([]int64, len(lines))
	idx := make([]int, len(lines))
	for i, l := range lines {
		d[i] = absDiff(timestampSeconds(LineTimestamp(l)), want)
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case d[a] < d[b]:
			return -1
		case d[a] > d[b]:
			return 1
		}
		return 0
	})
	sorted := make([][]byte, len(lines))
	for i, j := range idx {
		sorted[i] = lines[j]
	}
	copy(lines, sorted)
}

// LineTimestamp returns the timestamp of a CDXJ line (the word before
// " {") or of a CDX-11 line (its second field).
func LineTimestamp(line []byte) string {
	if i := bytes.Index(line, []byte(" {")); i >= 0 {
		head := line[:i]
		return string(head[bytes.LastIndexByte(head, ' ')+1:])
	}
	f := bytes.Fields(line)
	if len(f) > 1 {
		return string(f[1])
	}
	return ""
}

// timestampSeconds reads a 14-digit (or shorter) timestamp as Unix
// seconds, as warcio's timestamp_to_sec does.
func timestampSeconds(ts string) int64 {
	const pad = "10000101000000"
	digits := make([]byte, 0, 14)
	for i := 0; i < len(ts) && len(digits) < 14; i++ {
		if ts[i] >= '0' && ts[i] <= '9' {
			digits = append(digits, ts[i])
		}
	}
	s := string(digits) + pad[len(digits):]
	n := func(a, b int) int { v, _ := strconv.Atoi(s[a:b]); return v }
	clamp := func(v, lo, hi int) int { return min(max(v, lo), hi) }
	y := max(n(0, 4), 1)
	mo := clamp(n(4, 6), 1, 12)
	last := time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	d := clamp(n(6, 8), 1, last)
	return time.Date(y, time.Month(mo), d, clamp(n(8, 10), 0, 23), clamp(n(10, 12), 0, 59), clamp(n(12, 14), 0, 59), 0, time.UTC).Unix()
}
