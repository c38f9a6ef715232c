package store

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Writer is an output that appears under its name only when complete.
// Write as to any io.Writer, then Commit to publish or Abort to discard.
// After Commit or Abort, Write and Commit return ErrClosed and Abort does
// nothing, so `defer w.Abort()` after Create is the usual pattern.
type Writer interface {
	io.Writer
	// Commit finishes the output: renames the temporary file, or
	// completes the S3 upload. If it fails, nothing is left.
	Commit() error
	// Abort discards the output: removes the temporary file, or aborts
	// the S3 multipart upload so that no parts are left.
	Abort() error
}

// Create opens name for writing: a local path (written to a temporary file
// beside it, renamed at Commit), "-" (Options.Stdout; Commit and Abort do
// nothing) or s3://bucket/key (a streaming multipart upload of
// Options.PartSize parts, Options.Concurrency at a time, completed at
// Commit; an output smaller than one part is sent with a single PutObject
// at Commit). Nothing appears under the name before Commit; Abort, or
// ctx ending before Commit, leaves nothing: no temporary file, no object,
// no incomplete multipart upload. (After SIGKILL an incomplete multipart
// upload may remain; see the package documentation.) http(s) URLs are
// read-only: ErrReadOnly.
func (s *Store) Create(ctx context.Context, name string) (Writer, error) {
	switch KindOf(name) {
	case Std:
		return &stdWriter{w: s.opts.Stdout}, nil
	case Local:
		return createLocal(name)
	case HTTP:
		return nil, &Error{Op: "create", URL: Redact(name), Kind: ErrReadOnly}
	}
	bucket, key, err := parseS3(name)
	if err != nil {
		return nil, err
	}
	if key == "" || key[len(key)-1] == '/' {
		return nil, &Error{Op: "create", URL: Redact(name), Err: errors.New("names a prefix, not an object")}
	}
	c, err := s.s3client(ctx)
	if err != nil {
		return nil, wrap("create", name, -1, err)
	}
	return s.createS3(ctx, c, name, bucket, key), nil
}

type stdWriter struct {
	w    io.Writer
	done bool
}

func (w *stdWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, ErrClosed
	}
	return w.w.Write(p)
}

func (w *stdWriter) Commit() error {
	if w.done {
		return ErrClosed
	}
	w.done = true
	return nil
}

func (w *stdWriter) Abort() error {
	w.done = true
	return nil
}

type localWriter struct {
	name   string
	f      *os.File
	done   bool
	direct bool // a device, FIFO or socket (/dev/null): written in place, never renamed over
}

func createLocal(name string) (*localWriter, error) {
	if fi, err := os.Stat(name); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			return nil, &Error{Op: "create", URL: name, Err: err}
		}
		return &localWriter{name: name, f: f, direct: true}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		// name the output, not the temporary file
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &Error{Op: "create", URL: name, Err: err}
	}
	return &localWriter{name: name, f: f}, nil
}

func (w *localWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, ErrClosed
	}
	return w.f.Write(p)
}

func (w *localWriter) Commit() error {
	if w.done {
		return ErrClosed
	}
	w.done = true
	if w.direct {
		if err := w.f.Close(); err != nil {
			return &Error{Op: "commit", URL: w.name, Err: err}
		}
		return nil
	}
	tmp := w.f.Name()
	err := w.f.Chmod(0o644)
	if err == nil {
		err = w.f.Close()
	} else {
		w.f.Close()
	}
	if err == nil {
		err = os.Rename(tmp, w.name)
	}
	if err != nil {
		os.Remove(tmp)
		return &Error{Op: "commit", URL: w.name, Err: err}
	}
	return nil
}

func (w *localWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	if w.direct {
		return nil
	}
	return os.Remove(w.f.Name())
}
