package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// Info is what Stat learns about a name without reading it.
type Info struct {
	// Size is the size in bytes.
	Size int64
	// ETag is the object's entity tag as the server sends it (quotes
	// included), "" for a local file or a server that sends none.
	ETag string
	// ModTime is a local file's modification time (zero for remote
	// objects).
	ModTime time.Time
}

// Stat returns the size and ETag of name without reading its bytes: one
// HEAD for s3:// (a one-byte ranged GET for http(s)://, as OpenAt),
// retried as OpenAt's is; os.Stat for a local path. A missing object or
// file is an *Error with Kind ErrNotFound. "-" cannot be stat'ed.
func (s *Store) Stat(ctx context.Context, name string) (Info, error) {
	switch KindOf(name) {
	case Std:
		return Info{}, &Error{Op: "stat", URL: "-", Err: errors.New("standard input has no size or ETag")}
	case Local:
		fi, err := os.Stat(name)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			e := &Error{Op: "stat", URL: name, Err: err, Offset: -1}
			if errors.Is(err, fs.ErrNotExist) {
				e.Kind, e.Err = ErrNotFound, nil
			}
			return Info{}, e
		}
		if fi.IsDir() {
			return Info{}, &Error{Op: "stat", URL: name, Offset: -1, Err: errors.New("is a directory")}
		}
		return Info{Size: fi.Size(), ModTime: fi.ModTime()}, nil
	}
	f, err := s.OpenAt(ctx, name)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	return Info{Size: f.size, ETag: f.etag}, nil
}

// Stat is Default.Stat.
func Stat(ctx context.Context, name string) (Info, error) {
	return Default.Stat(ctx, name)
}
