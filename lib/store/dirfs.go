package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// DirFS returns the objects under an s3:// prefix as a read-only fs.FS,
// for formats that are folders of files (an HTTrack project: hts-cache/
// and the mirror tree). The prefix is listed once, when DirFS is called;
// a name is the part of a key after the prefix, and folders are implied by
// the keys. Stat (fs.StatFS) answers from the listing; Open of a file
// opens it by ranges (OpenAt: one request for its size, then block-cached
// ranged reads), and the fs.File returned is also an io.ReaderAt.
func (s *Store) DirFS(ctx context.Context, prefix string) (fs.FS, error) {
	if KindOf(prefix) != S3 {
		return nil, &Error{Op: "list", URL: Redact(prefix), Err: errors.New("not an s3:// URL")}
	}
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	objs, err := s.ListObjects(ctx, prefix)
	if err != nil {
		return nil, err
	}
	d := &dirFS{s: s, ctx: ctx, prefix: prefix, files: map[string]Object{}, dirs: map[string][]string{".": nil}}
	_, keyPrefix, _ := strings.Cut(prefix[len("s3://"):], "/")
	for _, o := range objs {
		name := strings.TrimPrefix(o.Key, keyPrefix)
		if !fs.ValidPath(name) || name == "." {
			continue // "a//b", "../x": not reachable as a path
		}
		d.files[name] = o
		for child := name; ; {
			dir := path.Dir(child)
			known := d.dirs[dir] != nil
			d.dirs[dir] = append(d.dirs[dir], path.Base(child))
			if dir == "." || known {
				break
			}
			child = dir
		}
	}
	if len(d.files) == 0 {
		return nil, &Error{Op: "list", URL: Redact(prefix), Kind: ErrNotFound, Err: errors.New("no objects under this prefix")}
	}
	for k, v := range d.dirs {
		sort.Strings(v)
		d.dirs[k] = v
	}
	return d, nil
}

type dirFS struct {
	s      *Store
	ctx    context.Context
	prefix string
	files  map[string]Object
	dirs   map[string][]string // folder -> its entries' names
}

func (d *dirFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if o, ok := d.files[name]; ok {
		return fileInfo{name: path.Base(name), size: o.Size, mod: o.ModTime}, nil
	}
	if _, ok := d.dirs[name]; ok {
		return fileInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: Redact(d.prefix + name), Err: fs.ErrNotExist}
}

func (d *dirFS) Open(name string) (fs.File, error) {
	fi, err := d.Stat(name)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return &dirFile{d: d, name: name, info: fi}, nil
	}
	f, err := d.s.OpenAt(d.ctx, d.files[name].URL)
	if err != nil {
		return nil, err
	}
	return &objFile{File: f, info: fi}, nil
}

// ReadDir lists a folder (fs.ReadDirFS).
func (d *dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	kids, ok := d.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	seen := map[string]bool{}
	for _, k := range kids {
		if seen[k] {
			continue
		}
		seen[k] = true
		fi, err := d.Stat(path.Join(name, k))
		if err != nil {
			return nil, err
		}
		out = append(out, fs.FileInfoToDirEntry(fi))
	}
	return out, nil
}

type fileInfo struct {
	name string
	size int64
	mod  time.Time
	dir  bool
}

func (f fileInfo) Name() string { return f.name }
func (f fileInfo) Size() int64  { return f.size }
func (f fileInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (f fileInfo) ModTime() time.Time { return f.mod }
func (f fileInfo) IsDir() bool        { return f.dir }
func (f fileInfo) Sys() any           { return nil }

// objFile is an object opened from a DirFS: fs.File and io.ReaderAt.
type objFile struct {
	*File
	info fs.FileInfo
	off  int64
}

func (o *objFile) Stat() (fs.FileInfo, error) { return o.info, nil }

func (o *objFile) Read(p []byte) (int, error) {
	n, err := o.File.ReadAt(p, o.off)
	o.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

type dirFile struct {
	d    *dirFS
	name string
	info fs.FileInfo
}

func (f *dirFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: f.name, Err: errors.New("is a directory")}
}
func (f *dirFile) Close() error { return nil }
func (f *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	ents, err := f.d.ReadDir(f.name)
	if err != nil || n <= 0 || n >= len(ents) {
		return ents, err
	}
	return ents[:n], nil
}
