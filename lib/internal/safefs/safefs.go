// Package safefs writes below a directory without ever leaving it: every
// path is relative to a Root opened on the directory, and no component of
// it may be a symbolic link, "..", or absolute. The tools use it for what
// they write into a directory the user names (mirrorget -O DIR, zimdump
// dump --dir): a symbolic link planted in that directory, to a file or to
// a folder, is refused instead of written through.
//
// On Linux a path is resolved by openat2(2) with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS; on kernels without it (ENOSYS) and on other Unix
// systems one component at a time with openat(2) and O_NOFOLLOW, from the
// root's descriptor. Elsewhere each component is checked with Lstat below
// an os.Root.
//
// A refused path gives an *fs.PathError whose Path is the path relative to
// the root and whose Err is ErrSymlink or ErrEscape.
package safefs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ErrSymlink is the error (inside an *fs.PathError) of a path that goes
// through a symbolic link.
var ErrSymlink = errors.New("symbolic link refused")

// ErrEscape is the error (inside an *fs.PathError) of a path that is
// absolute or has a ".." component.
var ErrEscape = errors.New("path leaves the directory")

// Refused reports whether err is a path refused by a Root (a symbolic
// link, "..", or an absolute path).
func Refused(err error) bool {
	return errors.Is(err, ErrSymlink) || errors.Is(err, ErrEscape)
}

// symlinkAt is ErrSymlink naming the component that is a link, when that
// is not the whole path.
type symlinkAt struct{ at string }

func (e *symlinkAt) Is(t error) bool { return t == ErrSymlink }

func (e *symlinkAt) Error() string {
	if e.at == "" {
		return ErrSymlink.Error()
	}
	return ErrSymlink.Error() + " at " + e.at
}

// pathError is an *fs.PathError; a symlinkAt naming the path itself names
// nothing more.
func pathError(op, rel string, err error) error {
	if s, ok := err.(*symlinkAt); ok && s.at == strings.Trim(filepath.ToSlash(rel), "/") {
		err = &symlinkAt{}
	}
	return &fs.PathError{Op: op, Path: rel, Err: err}
}

// split checks rel and returns its components, "" and "." dropped, with
// the rules of the system it runs on (splitPath).
func split(op, rel string) ([]string, error) {
	return splitPath(op, rel, runtime.GOOS == "windows")
}

// splitPath checks rel and returns its components, "" and "." dropped. rel
// is slash-separated; with windows set, a backslash separates too, and
// what Windows would read as leaving the folder is refused as well: a
// drive ("C:", "C:x", "C:\x"), a UNC or device path (\\server\share,
// \\?\C:\x), a colon anywhere (an NTFS stream, "a:b"), and a component
// ending in a dot or a space (Windows drops those: ".. " is "..").
func splitPath(op, rel string, windows bool) ([]string, error) {
	s := rel
	escape := func() ([]string, error) {
		return nil, &fs.PathError{Op: op, Path: rel, Err: ErrEscape}
	}
	if windows {
		s = strings.ReplaceAll(s, `\`, "/")
		if strings.ContainsRune(s, ':') {
			return escape() // a drive or a stream
		}
	}
	if strings.HasPrefix(s, "/") {
		return escape()
	}
	var comps []string
	for _, c := range strings.Split(s, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			return escape()
		}
		if windows && (strings.HasSuffix(c, ".") || strings.HasSuffix(c, " ")) {
			return escape()
		}
		comps = append(comps, c)
	}
	return comps, nil
}

// Create creates or truncates the regular file rel (mode 0666 before the
// umask) for writing.
func (r *Root) Create(rel string) (*os.File, error) {
	return r.OpenFile(rel, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Open opens the file rel for reading.
func (r *Root) Open(rel string) (*os.File, error) {
	return r.OpenFile(rel, os.O_RDONLY, 0)
}

// ReadFile reads the whole file rel.
func (r *Root) ReadFile(rel string) ([]byte, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

var tempSeq atomic.Uint64

// CreateTemp creates a new file (mode 0600) in the folder dir below the
// root, named from pattern as os.CreateTemp names it (the last "*"
// replaced by a random string, else the string appended), and returns it
// with its path relative to the root.
func (r *Root) CreateTemp(dir, pattern string) (*os.File, string, error) {
	pre, suf := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		pre, suf = pattern[:i], pattern[i+1:]
	}
	if strings.ContainsRune(pattern, '/') || strings.ContainsRune(pattern, os.PathSeparator) {
		return nil, "", &fs.PathError{Op: "createtemp", Path: pattern, Err: errors.New("pattern contains path separator")}
	}
	for try := 0; ; try++ {
		n := uint64(time.Now().UnixNano()) ^ tempSeq.Add(0x9E3779B97F4A7C15)
		name := pre + strconv.FormatUint(n%1e10, 10) + suf
		rel := name
		if d := filepath.ToSlash(dir); d != "" && d != "." {
			rel = strings.TrimSuffix(d, "/") + "/" + name
		}
		f, err := r.OpenFile(rel, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, rel, nil
	}
}

// full is the path of rel for messages and os.File names.
func (r *Root) full(rel string) string {
	if rel == "" || rel == "." {
		return r.name
	}
	return filepath.Join(r.name, filepath.FromSlash(rel))
}

// Name returns the directory the root was opened on.
func (r *Root) Name() string { return r.name }
