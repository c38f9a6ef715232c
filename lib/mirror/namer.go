package mirror

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/links"
)

// Default length limits of local paths, in bytes. They keep a mirror
// usable on Windows (MAX_PATH 260 for DIR plus the path) and on CD-ROM-era
// tools, while leaving room for the collision suffix.
const (
	DefaultMaxSegment = 128
	DefaultMaxPath    = 200
)

// DefaultIndex is the file name given to a URL that names a directory.
const DefaultIndex = "index.html"

// maxAliasHops bounds the redirect chains Lookup follows.
const maxAliasHops = 16

// Options tune a Namer. The zero value gives the defaults.
type Options struct {
	// MaxSegment caps each path segment (file or directory name), in bytes;
	// a longer one is cut and ends with an MD5 digest of the full name.
	MaxSegment int
	// MaxPath caps the whole relative path, in bytes; a longer one is moved
	// to host/_long/<digest>.<ext>.
	MaxPath int
}

// ErrConflict is wrapped by Seed errors when a path or URL is already taken.
var ErrConflict = errors.New("mirror: name conflict")

// Entry is one URL and its local path.
type Entry struct {
	URL  string // canonical absolute URL (lib/links.Resolve form)
	Path string // slash-separated, relative to the mirror directory
}

// Namer assigns collision-free local paths to URLs and remembers them. It
// is safe for concurrent use. Paths are slash-separated and relative to the
// mirror directory (use filepath.FromSlash to open them).
//
// Collisions are judged case-insensitively (Windows and macOS file systems)
// and between files and directories: a file never takes the name of a
// directory and the reverse, whichever comes first.
type Namer struct {
	mu       sync.Mutex
	opt      Options
	byURL    map[string]string // URL key -> path
	alias    map[string]string // URL key -> URL key (redirects)
	files    map[string]string // folded path -> URL key
	dirs     map[string]string // folded candidate dir path -> assigned dir path
	dirOwned map[string]bool   // folded assigned dir paths
	next     map[string]int    // folded wanted path -> next collision number to try
}

// NewNamer returns an empty Namer; opt may be nil.
func NewNamer(opt *Options) *Namer {
	n := &Namer{
		byURL: map[string]string{}, alias: map[string]string{},
		files: map[string]string{}, dirs: map[string]string{}, dirOwned: map[string]bool{},
		next: map[string]int{},
	}
	if opt != nil {
		n.opt = *opt
	}
	if n.opt.MaxSegment <= 0 {
		n.opt.MaxSegment = DefaultMaxSegment
	}
	if n.opt.MaxSegment < 24 {
		n.opt.MaxSegment = 24
	}
	if n.opt.MaxPath <= 0 {
		n.opt.MaxPath = DefaultMaxPath
	}
	if n.opt.MaxPath < n.opt.MaxSegment+40 {
		n.opt.MaxPath = n.opt.MaxSegment + 40
	}
	return n
}

// URLKey returns the canonical form of an absolute http(s) URL under which
// a Namer files it (lower-case scheme and host, default port dropped,
// percent-escapes normalised, fragment removed), or an error.
func URLKey(rawURL string) (string, error) {
	abs, _, ok := links.Resolve(nil, rawURL)
	if !ok {
		return "", fmt.Errorf("mirror: not an absolute http(s) URL: %q", rawURL)
	}
	return abs, nil
}

// Name returns the local path of rawURL, assigning one on first use from
// the URL and contentType (the response's Content-Type; "" when not known
// yet, which keeps the URL's own extension). Once assigned, a URL keeps its
// path whatever the type given later.
func (n *Namer) Name(rawURL, contentType string) (string, error) {
	n.mu.Lock()
	p, ok := n.byURL[rawURL] // fast path for canonical URLs
	n.mu.Unlock()
	if ok {
		return p, nil
	}
	key, err := URLKey(rawURL)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(key)
	if err != nil {
		return "", fmt.Errorf("mirror: %q: %w", rawURL, err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if p, ok := n.byURL[key]; ok {
		return p, nil
	}
	host, dirs, file := n.candidate(u, contentType)
	dir := n.assignDir(append([]string{host}, dirs...))
	return n.assignFile(dir, file, key), nil
}

// Lookup returns the local path of rawURL if it has one, following the
// redirects registered with Alias.
func (n *Namer) Lookup(rawURL string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	// fast path: URLs from lib/links are already in canonical form
	if p, ok := n.byURL[rawURL]; ok {
		if _, aliased := n.alias[rawURL]; !aliased {
			return p, true
		}
	}
	key, err := URLKey(rawURL)
	if err != nil {
		return "", false
	}
	for range maxAliasHops {
		to, ok := n.alias[key]
		if !ok {
			break
		}
		key = to
	}
	p, ok := n.byURL[key]
	return p, ok
}

// Alias records that from redirects to to: links to from are rewritten to
// to's file (HTTrack rewrites a link to a moved page to its new location).
// An alias takes precedence over a name from has itself.
func (n *Namer) Alias(from, to string) error {
	kf, err := URLKey(from)
	if err != nil {
		return err
	}
	kt, err := URLKey(to)
	if err != nil {
		return err
	}
	if kf == kt {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.alias[kf] = kt
	return nil
}

// Seed records an existing assignment (from a previous run's cache or
// mapping) so that an update keeps its names. It fails with ErrConflict
// when the URL has another path or the path (case-insensitively) belongs to
// another URL or is a directory, and with an error for an unsafe path
// (absolute, with "..", empty segments or backslashes; on Windows also a
// segment that is not WindowsSafe).
func (n *Namer) Seed(rawURL, localPath string) error {
	key, err := URLKey(rawURL)
	if err != nil {
		return err
	}
	if err := checkRelPath(localPath, runtime.GOOS); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if p, ok := n.byURL[key]; ok {
		if p == localPath {
			return nil
		}
		return fmt.Errorf("%w: %s already named %q, not %q", ErrConflict, key, p, localPath)
	}
	f := fold(localPath)
	if owner, ok := n.files[f]; ok {
		return fmt.Errorf("%w: %q already belongs to %s", ErrConflict, localPath, owner)
	}
	if n.dirOwned[f] {
		return fmt.Errorf("%w: %q is a directory", ErrConflict, localPath)
	}
	segs := strings.Split(localPath, "/")
	cur := ""
	for _, s := range segs[:len(segs)-1] {
		cur = joinPath(cur, s)
		if _, isFile := n.files[fold(cur)]; isFile {
			return fmt.Errorf("%w: directory %q of %q is a file", ErrConflict, cur, localPath)
		}
	}
	cur = ""
	for _, s := range segs[:len(segs)-1] {
		cur = joinPath(cur, s)
		fc := fold(cur)
		if _, ok := n.dirs[fc]; !ok {
			n.dirs[fc] = cur
		}
		n.dirOwned[fc] = true
	}
	n.files[f] = key
	n.byURL[key] = localPath
	return nil
}

// Entries returns every URL with its path, sorted by URL (aliases not
// included).
func (n *Namer) Entries() []Entry {
	n.mu.Lock()
	out := make([]Entry, 0, len(n.byURL))
	for k, p := range n.byURL {
		out = append(out, Entry{k, p})
	}
	n.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// Len returns the number of named URLs.
func (n *Namer) Len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.byURL)
}

// checkRelPath refuses a local path that could leave the mirror (absolute,
// "..", empty segments, backslashes, NUL) and, when goos is "windows", one
// with a segment Windows cannot create (WindowsSafe): a mirror made on
// another system and continued on Windows renames those URLs.
func checkRelPath(p, goos string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || strings.ContainsRune(p, 0) {
		return fmt.Errorf("mirror: unsafe local path %q", p)
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			return fmt.Errorf("mirror: unsafe local path %q", p)
		}
		if goos == "windows" && !WindowsSafe(s) {
			return fmt.Errorf("mirror: local path %q is not a valid Windows name", p)
		}
	}
	return nil
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// fold is the case-insensitive identity of a path.
func fold(p string) string { return strings.ToLower(p) }

// candidate computes the sanitised host directory, directory segments and
// file name of a URL, before collision handling.
func (n *Namer) candidate(u *url.URL, contentType string) (host string, dirs []string, file string) {
	host = strings.ToLower(u.Hostname())
	if port := u.Port(); port != "" {
		host += "_" + port
	}
	host = n.sanitize(host)
	segs := strings.Split(u.EscapedPath(), "/")
	last := segs[len(segs)-1]
	for _, s := range segs[:len(segs)-1] {
		if s == "" {
			continue // "//" and the leading slash
		}
		dirs = append(dirs, n.sanitize(decodeSegment(s)))
	}
	name := decodeSegment(last)
	if name == "" {
		name = DefaultIndex
	} else if name = strings.TrimRight(name, ". "); name == "" {
		name = "_" // "...", "%20"
	}
	name = FileName(name, contentType)
	if u.RawQuery != "" || u.ForceQuery {
		// HTTrack: name + first 4 hex digits of MD5(query) + extension
		sum := md5.Sum([]byte(u.RawQuery))
		stem, ext := splitExt(name)
		name = stem + hex.EncodeToString(sum[:2])
		if ext != "" {
			name += "." + ext
		}
	}
	file = n.sanitize(name)
	// whole-path cap: move deep paths to host/_long/<digest>.<ext>
	total := len(host) + len(file) + 1
	for _, d := range dirs {
		total += len(d) + 1
	}
	if total > n.opt.MaxPath {
		sum := md5.Sum([]byte(u.String()))
		_, ext := splitExt(file)
		file = hex.EncodeToString(sum[:8])
		if ext != "" && len(ext) <= 16 {
			file += "." + ext
		}
		dirs = []string{"_long"}
	}
	return host, dirs, file
}

// decodeSegment percent-decodes one path segment when the result is valid
// UTF-8 (HTTrack leaves "buggy" escapes as they are); a decoded '/' or '\'
// becomes '_' so that it cannot add a directory.
func decodeSegment(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	d, err := url.PathUnescape(s)
	if err != nil || !utf8.ValidString(d) {
		return s
	}
	return strings.NewReplacer("/", "_", `\`, "_").Replace(d)
}

// reservedBase reports whether base (a name without its extension, any
// case) is a DOS device name that Windows opens as a device instead of a
// file: CON, PRN, AUX, NUL, CLOCK$, CONIN$, CONOUT$, COM0-COM9, LPT0-LPT9
// and COM/LPT with a superscript 1, 2 or 3 (as Windows and Go's
// filepath.IsLocal count them).
func reservedBase(base string) bool {
	switch strings.ToUpper(base) {
	case "CON", "PRN", "AUX", "NUL", "CLOCK$", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 {
		return false
	}
	switch strings.ToUpper(base[:3]) {
	case "COM", "LPT":
		switch d := base[3:]; d {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3":
			return true
		}
	}
	return false
}

// windowsReserved reports whether the path segment s names a DOS device
// on Windows: its part before the first dot (or colon), trailing spaces
// dropped as Windows drops them, is a reserved base name ("nul",
// "CON.txt", "aux .html", "com1.tar.gz"). Windows 11 accepts some of these
// with an extension; older versions do not, so all are avoided.
func windowsReserved(s string) bool {
	base := s
	if i := strings.IndexAny(base, ".:"); i >= 0 {
		base = base[:i]
	}
	return reservedBase(strings.TrimRight(base, " "))
}

// WindowsSafe reports whether the path segment s (a file or folder name,
// no separator) can be created as it is on Windows: not empty, no control
// character, none of \ / : * ? " < > |, no trailing dot or space, not a
// DOS device name (windowsReserved), valid UTF-8. Every segment a Namer
// assigns is WindowsSafe.
func WindowsSafe(s string) bool {
	if s == "" || s == "." || s == ".." || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 32 || c == 127 || strings.IndexByte(`\/:*?"<>|`, c) >= 0 {
			return false
		}
	}
	if last := s[len(s)-1]; last == '.' || last == ' ' {
		return false
	}
	return !windowsReserved(s)
}

// sanitize makes one path segment safe on Windows and Unix: control
// characters and \ : * ? " < > | ~ become '_' (HTTrack's set), trailing dots
// and spaces go, a reserved DOS name gets a '_' after its base name
// ("con.txt" -> "con_.txt", "aux .html" -> "aux_.html"), the length is
// capped.
func (n *Namer) sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c < 32 || c == 127:
			b[i] = '_'
		case c == '\\' || c == '/' || c == ':' || c == '*' || c == '?' || c == '"' || c == '<' || c == '>' || c == '|' || c == '~':
			b[i] = '_'
		}
	}
	s = strings.TrimRight(string(b), ". ")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "_")
	}
	if s == "" {
		s = "_"
	}
	if windowsReserved(s) {
		base, rest, hasDot := strings.Cut(s, ".")
		s = strings.TrimRight(base, " ") + "_"
		if hasDot {
			s += "." + rest
		}
	}
	if len(s) > n.opt.MaxSegment {
		s = capSegment(s, n.opt.MaxSegment)
	}
	return s
}

// capSegment shortens a name to max bytes, keeping its extension and ending
// the stem with '_' and 8 hex digits of the full name's MD5.
func capSegment(s string, max int) string {
	sum := md5.Sum([]byte(s))
	tag := "_" + hex.EncodeToString(sum[:4])
	stem, ext := splitExt(s)
	if ext != "" {
		ext = "." + ext
	}
	if len(ext) > max/4 {
		stem, ext = s, ""
	}
	keep := max - len(tag) - len(ext)
	for keep > 0 && !utf8.RuneStart(stem[keep]) {
		keep--
	}
	return strings.TrimRight(stem[:keep], ". ") + tag + ext
}

// assignDir maps directory segments to their assigned directory path,
// creating (and renaming away from files) as needed. Directories whose
// names differ only in case share one directory.
func (n *Namer) assignDir(segs []string) string {
	cur := ""
	for _, s := range segs {
		cand := joinPath(cur, s)
		if d, ok := n.dirs[fold(cand)]; ok {
			cur = d
			continue
		}
		name := cand
		for i := 2; ; i++ {
			if _, isFile := n.files[fold(name)]; !isFile {
				break
			}
			name = joinPath(cur, s+"-"+strconv.Itoa(i))
		}
		n.dirs[fold(cand)] = name
		if _, ok := n.dirs[fold(name)]; !ok {
			n.dirs[fold(name)] = name
		}
		n.dirOwned[fold(name)] = true
		cur = name
	}
	return cur
}

// assignFile picks a free file name in dir (name, name-2, name-3... before
// the extension, as HTTrack does) and records it for key.
func (n *Namer) assignFile(dir, file, key string) string {
	stem, ext := splitExt(file)
	if ext != "" {
		ext = "." + ext
	}
	want := joinPath(dir, file)
	p := want
	i := max(n.next[fold(want)], 2)
	for {
		f := fold(p)
		_, taken := n.files[f]
		if !taken && !n.dirOwned[f] {
			break
		}
		p = joinPath(dir, stem+"-"+strconv.Itoa(i)+ext)
		i++
	}
	if p != want {
		n.next[fold(want)] = i
	}
	n.files[fold(p)] = key
	n.byURL[key] = p
	return p
}

// RelURL returns the relative URL from the document at local path from to
// the file at local path to (both slash-separated, relative to the mirror
// directory), each segment percent-escaped with lower-case hex as HTTrack
// writes them (r%c3%a9sum%c3%a9.html).
func RelURL(from, to string) string {
	fd := strings.Split(path.Dir(from), "/")
	if path.Dir(from) == "." {
		fd = nil
	}
	ts := strings.Split(to, "/")
	i := 0
	for i < len(fd) && i < len(ts)-1 && fd[i] == ts[i] {
		i++
	}
	var b strings.Builder
	for range len(fd) - i {
		b.WriteString("../")
	}
	for j, s := range ts[i:] {
		if j > 0 {
			b.WriteByte('/')
		}
		b.WriteString(escapeSegment(s))
	}
	return b.String()
}

// escapeSegment percent-escapes a path segment for use in a relative URL:
// everything but unreserved characters and a few harmless sub-delimiters.
func escapeSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("-._~!$&'()*+,;=@", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte("0123456789abcdef"[c>>4])
		b.WriteByte("0123456789abcdef"[c&15])
	}
	return b.String()
}
