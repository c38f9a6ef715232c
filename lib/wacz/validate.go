package wacz

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/record"
	"github.com/klauspost/compress/gzip"
)

// Problem is one way a WACZ fails the specification.
type Problem struct {
	Path string // the file inside the WACZ it concerns ("" for the zip)
	Msg  string
}

// String formats the problem as "path: msg".
func (p Problem) String() string {
	if p.Path == "" {
		return p.Msg
	}
	return p.Path + ": " + p.Msg
}

// MaxProblemsPerFile bounds the problems reported for one index or pages
// file (a broken index would otherwise give one line per capture).
const MaxProblemsPerFile = 20

// Validate checks a WACZ against WACZ 1.1.1 and returns every problem found
// (nil when it is valid). It checks: the zip directory (no duplicate
// names, none that could leave an unpacking directory: absolute, "..",
// backslashes); datapackage.json (well-formed, profile "data-package",
// wacz_version, each resource with a Frictionless name, a safe path present
// in the zip, the right size and hash; every file listed); datapackage-digest.json (path and hash of the
// manifest); archive/ holds WARC files, STORED, named .warc.gz exactly when
// gzipped; indexes/ holds a CDXJ index, .cdx.gz STORED, every line
// well-formed, sorted, pointing at a WARC of archive/ with offset+length
// inside it and at a gzip member start; the ZipNum .idx blocks lie inside
// the .cdx.gz, start with their key and match their digest;
// pages/pages.jsonl is present and every page has url and an RFC 3339 ts.
// The zip CRC of every entry is checked on the way, and every gzip member
// of archive/*.warc.gz is inflated to its end, its CRC checked (create
// copies members without inflating them whole unless Options.Verify).
// Record digests are checked by ValidateWith with Digests set.
func (r *Reader) Validate() []Problem {
	return r.ValidateWith(ValidateOptions{})
}

// ValidateOptions configures ValidateWith.
type ValidateOptions struct {
	// Digests recomputes the WARC-Block-Digest and WARC-Payload-Digest of
	// every record of archive/ (as CheckArchive does; only digest
	// problems are reported from there, the gzip check covering the
	// structure): each mismatch is one problem "record at offset N: ...",
	// not bounded by MaxProblemsPerFile. It is beyond WACZ 1.1.1, which
	// says nothing of the WARCs' digests.
	Digests bool
	// Verbose, when set, receives one line per WARC record of archive/
	// saying how its digests compared (see DescribeDigests), its Path the
	// WARC. It is called from another goroutine, one call at a time.
	Verbose func(Problem)
	// Warn, when set, receives what is worth saying but passes, such as
	// a resource hash written by js-wacz 0.1.x's known bug (see
	// jsWACZHash).
	Warn func(Problem)
}

// ValidateWith is Validate with options.
func (r *Reader) ValidateWith(o ValidateOptions) []Problem {
	v := &validator{r: r, digests: o.Digests, verbose: o.Verbose, warn: o.Warn}
	v.run()
	return v.problems
}

type validator struct {
	r        *Reader
	digests  bool
	verbose  func(Problem)
	warn     func(Problem)
	problems []Problem
	// jsWACZ: datapackage.json was written by js-wacz, whose resource
	// hashes may be jsWACZHash's; lastAlt is that hash of the entry
	// hashEntry read last (computed only then).
	jsWACZ  bool
	lastAlt string
	counts  map[string]int
	// starts holds, for each archive/*.warc.gz whose members were all
	// inflated while hashing, where its members start (ascending), so the
	// index check needs no read per line (a remote WACZ: no request).
	starts map[string][]int64
}

// maxStarts bounds the member starts kept per file (8 bytes each); past it
// the index check reads each line's offset instead.
const maxStarts = 16 << 20

func (v *validator) add(p, format string, a ...any) {
	if v.counts == nil {
		v.counts = map[string]int{}
	}
	v.counts[p]++
	switch n := v.counts[p]; {
	case n < MaxProblemsPerFile:
		v.problems = append(v.problems, Problem{p, fmt.Sprintf(format, a...)})
	case n == MaxProblemsPerFile:
		v.problems = append(v.problems, Problem{p, "more problems not shown"})
	}
}

func (v *validator) run() {
	r := v.r
	seen := map[string]bool{}
	for _, f := range r.zr.File {
		if seen[f.Name] {
			v.add(f.Name, "duplicate entry in the zip directory")
		}
		seen[f.Name] = true
		if why := unsafeName(f.Name); why != "" {
			v.add(f.Name, "unsafe entry name (%s)", why)
		}
	}
	v.checkPackage()
	v.checkArchive()
	v.checkIndexes()
	v.checkPages()
}

// unsafeName says why a zip entry name or resource path could reach
// outside the directory a tool unpacks into ("" when it cannot): absolute
// (a leading slash or a drive letter), a ".." element, or a backslash,
// which zip names must not hold (APPNOTE 4.4.17: "/" separates) and which
// Windows tools take for a separator, so that "..\x" climbs too.
func unsafeName(name string) string {
	slashed := strings.ReplaceAll(name, "\\", "/")
	switch {
	case strings.HasPrefix(slashed, "/"):
		return "absolute"
	case len(slashed) >= 2 && slashed[1] == ':' && (slashed[0]|0x20 >= 'a' && slashed[0]|0x20 <= 'z'):
		return "drive letter"
	case strings.Contains("/"+slashed+"/", "/../"):
		return "a \"..\" element"
	case strings.ContainsRune(name, '\\'):
		return "a backslash"
	}
	return ""
}

// checkPackage checks datapackage.json, every resource, and the digest file.
func (v *validator) checkPackage() {
	r := v.r
	raw, err := r.readSmall(DataPackagePath)
	if err != nil {
		v.add(DataPackagePath, "missing or unreadable: %v", stripName(err, r.name))
		// still check the zip CRCs of everything
		for _, f := range r.zr.File {
			v.hashEntry(f, "")
		}
		return
	}
	var dp DataPackage
	if err := json.Unmarshal(raw, &dp); err != nil {
		v.add(DataPackagePath, "not valid JSON: %v", err)
		return
	}
	var generic map[string]json.RawMessage
	json.Unmarshal(raw, &generic)
	if dp.Profile != "data-package" {
		v.add(DataPackagePath, "profile is %q, want \"data-package\"", dp.Profile)
	}
	if dp.WACZVersion == "" {
		v.add(DataPackagePath, "no wacz_version")
	} else if dp.WACZVersion != Version {
		v.add(DataPackagePath, "wacz_version %q, this validator checks %s", dp.WACZVersion, Version)
	}
	for _, k := range []string{"created", "modified"} {
		if rawv, ok := generic[k]; ok {
			var s string
			if json.Unmarshal(rawv, &s) != nil {
				v.add(DataPackagePath, "%s is not a string", k)
			} else if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				v.add(DataPackagePath, "%s %q is not an RFC 3339 datetime", k, s)
			}
		}
	}
	if _, ok := generic["resources"]; !ok {
		v.add(DataPackagePath, "no resources")
	}
	v.jsWACZ = strings.HasPrefix(dp.Software, "@harvard-lil/js-wacz")
	listed := map[string]bool{}
	for i, res := range dp.Resources {
		where := fmt.Sprintf("resource %d", i)
		if res.Path == "" {
			v.add(DataPackagePath, "%s: no path", where)
			continue
		}
		if listed[res.Path] {
			v.add(DataPackagePath, "%s: %s listed twice", where, res.Path)
		}
		if why := unsafeName(res.Path); why != "" {
			v.add(DataPackagePath, "%s: unsafe path %q (%s)", where, res.Path, why)
		}
		listed[res.Path] = true
		if res.Name == "" {
			v.add(DataPackagePath, "%s (%s): no name", where, res.Path)
		} else if !resourceNameRE.MatchString(res.Name) {
			v.add(DataPackagePath, "%s (%s): name %q is not a Frictionless name ([-a-z0-9._/])", where, res.Path, res.Name)
		}
		f := r.files[res.Path]
		if f == nil {
			v.add(res.Path, "listed in %s but not in the zip", DataPackagePath)
			continue
		}
		if res.Hash == "" {
			v.add(res.Path, "no hash in %s", DataPackagePath)
		}
		size, sum := v.hashEntry(f, res.Hash)
		if size >= 0 && size != res.Bytes {
			v.add(res.Path, "size %d, %s says %d", size, DataPackagePath, res.Bytes)
		}
		if sum != "" && res.Hash != "" && !strings.EqualFold(sum, res.Hash) {
			if v.lastAlt != "" && strings.EqualFold(v.lastAlt, res.Hash) {
				if v.warn != nil {
					v.warn(Problem{res.Path, fmt.Sprintf("%s lists hash %s, which js-wacz 0.1.x computes by hashing every 64 KiB of the file twice (harvard-lil/js-wacz#127); the bytes match it, their sha256 is %s", DataPackagePath, res.Hash, sum)})
				}
			} else {
				v.add(res.Path, "hash %s, %s says %s", sum, DataPackagePath, res.Hash)
			}
		}
	}
	for _, f := range r.zr.File {
		if listed[f.Name] || strings.HasSuffix(f.Name, "/") {
			continue
		}
		if f.Name == DataPackagePath || f.Name == DataPackageDigestPath {
			if f.Name == DataPackageDigestPath {
				v.hashEntry(f, "")
			}
			continue
		}
		v.add(f.Name, "not listed in %s resources", DataPackagePath)
		v.hashEntry(f, "")
	}
	if r.files[DataPackageDigestPath] != nil {
		b, err := r.readSmall(DataPackageDigestPath)
		if err != nil {
			v.add(DataPackageDigestPath, "unreadable: %v", stripName(err, r.name))
			return
		}
		var d DigestFile
		if err := json.Unmarshal(b, &d); err != nil {
			v.add(DataPackageDigestPath, "not valid JSON: %v", err)
			return
		}
		if d.Path != DataPackagePath {
			v.add(DataPackageDigestPath, "path is %q, want %q", d.Path, DataPackagePath)
		}
		if got, err := hashBytes(d.Hash, raw); err != nil {
			v.add(DataPackageDigestPath, "%v", err)
		} else if !strings.EqualFold(got, d.Hash) {
			v.add(DataPackageDigestPath, "hash %s, datapackage.json hashes to %s", d.Hash, got)
		}
		if d.SignedData != nil {
			if _, err := VerifySignedData(d.SignedData, d.Hash, VerifyOptions{Created: dp.Created}); err != nil {
				v.add(DataPackageDigestPath, "signature: %v", err)
			}
		}
	}
}

func stripName(err error, name string) string {
	return strings.TrimPrefix(err.Error(), name+": ")
}

// hashEntry reads an entry (checking its zip CRC) and returns its size and
// its hash in the algorithm of want ("" or no algorithm: sha256); size -1
// when it cannot be read.
func (v *validator) hashEntry(f *zip.File, want string) (int64, string) {
	alg := "sha256"
	if a, _, ok := strings.Cut(want, ":"); ok && a != "" {
		alg = strings.ToLower(a)
	}
	h, err := record.NewHash(alg)
	if err != nil {
		v.add(f.Name, "hash %q: %v", want, err)
		h, _ = record.NewHash("sha256")
		alg = "sha256"
	}
	rc, err := f.Open()
	if err != nil {
		v.add(f.Name, "cannot read: %v", err)
		return -1, ""
	}
	defer rc.Close()
	var dst io.Writer = h
	v.lastAlt = ""
	var alt *jsWACZHash
	if v.jsWACZ && alg == "sha256" && want != "" {
		alt = newJSWACZHash()
		dst = io.MultiWriter(h, alt)
	}
	var members chan error
	var pw *io.PipeWriter
	archive := strings.HasPrefix(f.Name, ArchiveDir)
	gz := archive && strings.HasSuffix(f.Name, ".warc.gz")
	// with Digests, the records' digests are recomputed on another
	// goroutine, from the data the gzip check inflates (for .warc.gz) or
	// from the entry (.warc)
	var digests chan []Problem
	var dpw *io.PipeWriter
	var mm *memberMap
	if v.digests && (gz || archive && strings.HasSuffix(f.Name, ".warc")) {
		var dpr *io.PipeReader
		dpr, dpw = io.Pipe()
		digests = make(chan []Problem, 1)
		if gz {
			mm = &memberMap{}
		}
		go func() { digests <- v.checkDigests(f.Name, dpr, mm) }()
	}
	if gz {
		// every gzip member is inflated to its end (its CRC checked) on
		// another goroutine while the entry is hashed: waczpack create
		// copies members it did not inflate whole, so this is where their
		// CRCs are first checked
		var pr *io.PipeReader
		pr, pw = io.Pipe()
		members = make(chan error, 1)
		go func() {
			var out io.Writer = io.Discard
			if dpw != nil {
				out = dpw
			}
			starts, err := checkMembers(pr, out, mm)
			if dpw != nil {
				dpw.Close()
			}
			io.Copy(io.Discard, pr)
			if err == nil && starts != nil {
				if v.starts == nil {
					v.starts = map[string][]int64{}
				}
				v.starts[f.Name] = starts
			}
			members <- err
		}()
		dst = io.MultiWriter(dst, pw)
	} else if dpw != nil {
		dst = io.MultiWriter(dst, dpw)
	}
	n, err := io.Copy(dst, rc)
	if pw != nil {
		pw.Close()
		if merr := <-members; merr != nil && err == nil {
			v.add(f.Name, "%v", merr)
		}
	}
	if dpw != nil {
		dpw.Close()
		if err == nil {
			v.problems = append(v.problems, <-digests...)
		} else {
			<-digests
		}
	}
	if err != nil {
		v.add(f.Name, "cannot read: %v (corrupt zip data)", err)
		return -1, ""
	}
	if alt != nil {
		v.lastAlt = alt.Sum()
	}
	return n, alg + ":" + hex.EncodeToString(h.Sum(nil))
}

// jsWACZHash is the resource hash js-wacz 0.1.6 (the latest on npm) writes
// for a file it adds by path: it feeds each chunk of its read stream to
// the hash twice (a "data" listener and a pipe into the same hash), so the
// hash is sha256 of every 64 KiB block (Node's highWaterMark) repeated
// (harvard-lil/js-wacz#127). It still binds the bytes: validate accepts
// it, with a warning.
type jsWACZHash struct {
	h   hash.Hash
	buf []byte
}

const jsWACZChunk = 64 << 10

func newJSWACZHash() *jsWACZHash {
	return &jsWACZHash{h: sha256.New(), buf: make([]byte, 0, jsWACZChunk)}
}

func (j *jsWACZHash) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), jsWACZChunk-len(j.buf))
		j.buf = append(j.buf, p[:k]...)
		p = p[k:]
		if len(j.buf) == jsWACZChunk {
			j.flush()
		}
	}
	return n, nil
}

func (j *jsWACZHash) flush() {
	j.h.Write(j.buf)
	j.h.Write(j.buf)
	j.buf = j.buf[:0]
}

// Sum returns "sha256:<hex>".
func (j *jsWACZHash) Sum() string {
	if len(j.buf) > 0 {
		j.flush()
	}
	return "sha256:" + hex.EncodeToString(j.h.Sum(nil))
}

// checkDigests reads a WARC of archive/ with CheckArchive and returns its
// digest problems (damage to the structure is reported by the gzip check).
// With mm, r is the inflated data of a .warc.gz and mm maps its offsets to
// the members' offsets in the file.
func (v *validator) checkDigests(name string, r io.Reader, mm *memberMap) []Problem {
	var ps []Problem
	where := func(off int64) string {
		if mm == nil {
			return fmt.Sprintf("record at offset %d", off)
		}
		return mm.where(off)
	}
	opts := CheckOptions{Problem: func(p *record.Problem) {
		if IsDigestProblem(p.Msg) {
			ps = append(ps, Problem{name, where(p.Offset) + ": " + p.Msg})
		}
	}}
	if v.verbose != nil {
		opts.Verbose = func(off int64, line string) {
			v.verbose(Problem{name, where(off) + ": " + line})
		}
	}
	CheckArchive(r, name, opts)
	io.Copy(io.Discard, r)
	return ps
}

// memberMap maps offsets in the inflated data of a .warc.gz to the offsets
// of its gzip members: checkMembers adds each member before it passes on
// its data, checkDigests looks offsets up meanwhile.
type memberMap struct {
	mu     sync.Mutex
	c, u   []int64 // member starts in the file, and in the inflated data
	broken bool    // past maxStarts: no longer kept
}

func (m *memberMap) add(c, u int64) {
	m.mu.Lock()
	if len(m.c) >= maxStarts {
		m.broken = true
	} else if !m.broken {
		m.c, m.u = append(m.c, c), append(m.u, u)
	}
	m.mu.Unlock()
}

// where names the record at offset u of the inflated data: "record at
// offset N", N the offset of the member it starts (as the index has it).
func (m *memberMap) where(u int64) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, found := slices.BinarySearch(m.u, u)
	switch {
	case found:
		return fmt.Sprintf("record at offset %d", m.c[i])
	case i > 0 && !(m.broken && i == len(m.u)):
		return fmt.Sprintf("record at offset %d of the data inflated from the gzip member at offset %d", u, m.c[i-1])
	}
	return fmt.Sprintf("record at offset %d of the inflated data", u)
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// checkMembers inflates every gzip member of a .warc.gz to its end,
// checking its CRC-32 and size, and returns the members' start offsets
// (nil past maxStarts) or the first failure with the member's offset. NUL
// bytes between members (tape block padding, which create copies as it
// is) are skipped.
//
// The inflated data is written to out, and with mm each member's start in
// the file and in the inflated data is added to mm before its data.
func checkMembers(r io.Reader, out io.Writer, mm *memberMap) ([]int64, error) {
	var starts []int64
	many := false
	cr := &countReader{r: r}
	br := bufio.NewReaderSize(cr, 256<<10)
	var zr gzip.Reader
	buf := make([]byte, 64<<10)
	var inflated int64
	for {
		c, err := br.ReadByte()
		for err == nil && c == 0 {
			c, err = br.ReadByte()
		}
		if err == io.EOF {
			if many {
				return nil, nil
			}
			return starts, nil
		}
		if err != nil {
			return nil, err
		}
		br.UnreadByte()
		start := cr.n - int64(br.Buffered())
		if !many {
			if many = len(starts) >= maxStarts; many {
				starts = nil
			} else {
				starts = append(starts, start)
			}
		}
		if err := zr.Reset(br); err != nil {
			return nil, fmt.Errorf("gzip member at offset %d: %v", start, err)
		}
		zr.Multistream(false)
		if mm != nil {
			mm.add(start, inflated)
		}
		n, err := io.CopyBuffer(out, &zr, buf)
		inflated += n
		if err != nil {
			return nil, fmt.Errorf("gzip member at offset %d: %v", start, err)
		}
	}
}

func hashBytes(want string, b []byte) (string, error) {
	alg, _, ok := strings.Cut(want, ":")
	if !ok {
		return "", fmt.Errorf("hash %q has no algorithm prefix", want)
	}
	h, err := record.NewHash(alg)
	if err != nil {
		return "", err
	}
	h.Write(b)
	return strings.ToLower(alg) + ":" + hex.EncodeToString(h.Sum(nil)), nil
}

// checkArchive checks the files in archive/.
func (v *validator) checkArchive() {
	n := 0
	for _, f := range v.r.zr.File {
		if !strings.HasPrefix(f.Name, ArchiveDir) || strings.HasSuffix(f.Name, "/") {
			continue
		}
		n++
		base := path.Base(f.Name)
		if !strings.HasSuffix(base, ".warc") && !strings.HasSuffix(base, ".warc.gz") {
			v.add(f.Name, "not a .warc or .warc.gz file")
		}
		if f.Method != zip.Store {
			v.add(f.Name, "compressed in the zip (method %d): WARC files must be STORED for random access", f.Method)
		}
		head := v.peek(f, 4)
		gz := len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b
		switch {
		case len(head) == 0:
			v.add(f.Name, "empty")
		case gz && !strings.HasSuffix(base, ".gz"):
			v.add(f.Name, "gzip data without the .warc.gz extension")
		case !gz && strings.HasSuffix(base, ".gz"):
			v.add(f.Name, "named .warc.gz but not gzip data")
		case !gz && !bytes.HasPrefix(head, []byte("WARC")):
			v.add(f.Name, "does not start with a WARC record")
		}
	}
	if n == 0 {
		v.add(ArchiveDir, "no WARC files (archive/ must hold at least one)")
	}
}

func (v *validator) peek(f *zip.File, n int) []byte {
	rc, err := f.Open()
	if err != nil {
		return nil
	}
	defer rc.Close()
	b := make([]byte, n)
	k, _ := io.ReadFull(rc, b)
	return b[:k]
}

// checkIndexes checks indexes/: at least one CDXJ index, ZipNum files
// STORED, every line in range of its WARC.
func (v *validator) checkIndexes() {
	r := v.r
	names := r.IndexFiles()
	if len(names) == 0 {
		v.add(IndexesDir, "no CDXJ index (.cdx, .cdxj or .cdx.gz)")
	}
	for _, name := range names {
		f := r.files[name]
		if strings.HasSuffix(name, ".gz") && f.Method != zip.Store {
			v.add(name, "compressed in the zip (method %d): .cdx.gz must be STORED", f.Method)
		}
		v.checkCDX(name)
	}
	for _, f := range r.zr.File {
		if strings.HasPrefix(f.Name, IndexesDir) && strings.HasSuffix(f.Name, ".idx") {
			v.checkIdx(f.Name)
		}
	}
}

func (v *validator) checkCDX(name string) {
	r := v.r
	prev := ""
	memberCache := map[string]*zip.File{}
	rc, err := r.openIndex(name)
	if err != nil {
		v.add(name, "cannot read: %v", err)
		return
	}
	defer rc.Close()
	err = eachLine(rc, func(n int, line []byte) error {
		s := string(line)
		if s == "" || s[0] == '!' {
			return nil
		}
		if s < prev {
			v.add(name, "line %d: not sorted (binary search will miss captures)", n)
		}
		prev = s
		c, err := ParseCDXJ(s)
		if err != nil {
			v.add(name, "line %d: %v", n, err)
			return nil
		}
		if _, _, err := record.ParseTimestamp(c.Timestamp); err != nil {
			v.add(name, "line %d: bad timestamp %q", n, c.Timestamp)
		}
		if c.Filename == "" {
			v.add(name, "line %d: no filename", n)
			return nil
		}
		f, ok := memberCache[c.Filename]
		if !ok {
			f = r.files[ArchiveDir+c.Filename]
			memberCache[c.Filename] = f
		}
		if f == nil {
			v.add(name, "line %d: filename %q is not in %s", n, c.Filename, ArchiveDir)
			return nil
		}
		size := int64(f.UncompressedSize64)
		if c.Length == 0 {
			v.add(name, "line %d: length 0", n)
		}
		if !within(c.Offset, c.Length, size) {
			v.add(name, "line %d: %s offset %d + length %d is past the end of %s (%d bytes)", n, c.URL, c.Offset, c.Length, f.Name, size)
			return nil
		}
		if starts, ok := v.starts[f.Name]; ok {
			// every member was inflated while hashing: is this one's start?
			if i, found := slices.BinarySearch(starts, c.Offset); !found || i < 0 {
				v.add(name, "line %d: %s offset %d in %s is not the start of a gzip member", n, c.URL, c.Offset, f.Name)
			}
		} else if f.Method == zip.Store && strings.HasSuffix(f.Name, ".gz") {
			rd, err := r.rangeOf(f, c.Offset, min(c.Length, 3))
			var b [3]byte
			if err == nil {
				_, err = io.ReadFull(rd, b[:min(c.Length, 3)])
			}
			if err != nil || b != [3]byte{0x1f, 0x8b, 8} {
				v.add(name, "line %d: %s offset %d in %s is not the start of a gzip member", n, c.URL, c.Offset, f.Name)
			}
		}
		return nil
	})
	if err != nil {
		v.add(name, "%v", err)
	}
}

func (v *validator) checkIdx(name string) {
	r := v.r
	meta, lines, err := r.readIdx(name)
	if err != nil {
		v.add(name, "%v", err)
		return
	}
	if meta != nil {
		if f, _ := meta["format"].(string); f != "" && f != "cdxj-gzip-1.0" {
			v.add(name, "!meta format %q, want cdxj-gzip-1.0", f)
		}
	}
	prev := ""
	for i, l := range lines {
		where := fmt.Sprintf("line for block %d (%s)", i, clip(l.Key, 60))
		if l.Key < prev {
			v.add(name, "%s: not sorted", where)
		}
		prev = l.Key
		cdx := IndexesDir + l.Filename
		if l.Filename == "" {
			cdx = strings.TrimSuffix(name, ".idx") + ".cdx.gz"
		}
		f := r.files[cdx]
		if f == nil {
			v.add(name, "%s: no %s", where, cdx)
			continue
		}
		rd, err := r.rangeOf(f, l.Offset, l.Length)
		if err != nil {
			v.add(name, "%s: %v", where, err)
			continue
		}
		var block bytes.Buffer
		if _, err := io.Copy(&block, rd); err != nil {
			v.add(name, "%s: %v", where, err)
			continue
		}
		if l.Digest != "" {
			if got, err := hashBytes(l.Digest, block.Bytes()); err == nil && !strings.EqualFold(got, l.Digest) {
				v.add(name, "%s: block digest %s, idx says %s", where, got, l.Digest)
			}
		}
		gz, err := gzip.NewReader(&block)
		if err != nil {
			v.add(name, "%s: block at %d is not gzip: %v", where, l.Offset, err)
			continue
		}
		gz.Multistream(false)
		first := make([]byte, len(l.Key)+1)
		k, _ := io.ReadFull(gz, first)
		if k < len(l.Key) || string(first[:len(l.Key)]) != l.Key || (k > len(l.Key) && first[len(l.Key)] != ' ') {
			v.add(name, "%s: block at %d does not start with its key", where, l.Offset)
		}
	}
}

// checkPages checks pages/*.jsonl.
func (v *validator) checkPages() {
	r := v.r
	if r.files[PagesPath] == nil {
		v.add(PagesPath, "missing (WACZ 1.1.1 requires it)")
	}
	for _, f := range r.zr.File {
		if !strings.HasPrefix(f.Name, PagesDir) || strings.HasSuffix(f.Name, "/") {
			continue
		}
		if !strings.HasSuffix(f.Name, ".jsonl") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			v.add(f.Name, "cannot read: %v", err)
			continue
		}
		err = eachLineMax(rc, MaxPagesLine, func(n int, line []byte) error {
			if len(bytes.TrimSpace(line)) == 0 {
				return nil
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				v.add(f.Name, "line %d: not valid JSON: %v", n, err)
				return nil
			}
			if n == 1 {
				if _, ok := m["format"]; ok {
					if m["format"] != PagesFormat {
						v.add(f.Name, "line 1: format %v, want %s", m["format"], PagesFormat)
					}
					return nil
				}
			}
			u, _ := m["url"].(string)
			if u == "" {
				v.add(f.Name, "line %d: no url", n)
			}
			ts, _ := m["ts"].(string)
			if ts == "" {
				v.add(f.Name, "line %d: no ts", n)
			} else if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
				v.add(f.Name, "line %d: ts %q is not an RFC 3339 datetime", n, ts)
			}
			return nil
		})
		rc.Close()
		if err != nil {
			v.add(f.Name, "%v", err)
		}
	}
}
