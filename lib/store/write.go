package store

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
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
	name string
	f    *os.File
	done bool
}

func createLocal(name string) (*localWriter, error) {
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
	return os.Remove(w.f.Name())
}

// s3Writer streams into transfermanager's UploadObject through a pipe:
// the uploader reads parts from the pipe into its pool of
// Concurrency+1 part buffers, so Write blocks while parts are in flight
// and memory stays bounded. Commit closes the pipe (the uploader then
// completes the multipart upload, or sends one PutObject if all fit in
// one part); Abort closes it with an error (the uploader then aborts the
// multipart upload, with a fresh context if ctx is done).
type s3Writer struct {
	name string
	ctx  context.Context
	pw   *io.PipeWriter
	done chan struct{}
	err  error // of the upload, once done is closed
	stop func() bool

	mu     sync.Mutex
	closed bool
}

// errAborted ends the pipe of an aborted upload.
var errAborted = errors.New("aborted")

func (s *Store) createS3(ctx context.Context, c *s3Client, name, bucket, key string) *s3Writer {
	pr, pw := io.Pipe()
	w := &s3Writer{name: name, ctx: ctx, pw: pw, done: make(chan struct{})}
	tm := transfermanager.New(c.api, func(o *transfermanager.Options) {
		o.PartSizeBytes = s.opts.PartSize
		o.MultipartUploadThreshold = s.opts.PartSize
		o.Concurrency = s.opts.Concurrency
		o.FailTimeout = failTimeout
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	})
	// The context of a Create ending stops the writes: the uploader
	// reads the error and aborts.
	w.stop = context.AfterFunc(ctx, func() { pw.CloseWithError(ctx.Err()) })
	go func() {
		defer close(w.done)
		_, err := tm.UploadObject(ctx, &transfermanager.UploadObjectInput{
			Bucket: aws.String(bucket),
			Key:    aws.String(key),
			Body:   pr,
		})
		w.err = err
		// Unblock a Write waiting on a failed upload.
		if err != nil {
			pr.CloseWithError(err)
		} else {
			pr.Close()
		}
	}()
	return w
}

func (w *s3Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return 0, ErrClosed
	}
	if err := w.ctx.Err(); err != nil {
		return 0, &Error{Op: "write", URL: Redact(w.name), Err: err}
	}
	n, err := w.pw.Write(p)
	if err != nil {
		if w.ctx.Err() != nil {
			err = w.ctx.Err()
		}
		return n, wrap("write", w.name, -1, err)
	}
	return n, nil
}

func (w *s3Writer) finish() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.closed = true
	w.stop()
	return true
}

func (w *s3Writer) Commit() error {
	if !w.finish() {
		return ErrClosed
	}
	if err := w.ctx.Err(); err != nil {
		w.pw.CloseWithError(err)
	} else {
		w.pw.Close()
	}
	<-w.done
	if w.err != nil {
		if w.ctx.Err() != nil {
			return &Error{Op: "commit", URL: Redact(w.name), Err: w.ctx.Err()}
		}
		return wrap("commit", w.name, -1, w.err)
	}
	return nil
}

func (w *s3Writer) Abort() error {
	if !w.finish() {
		return nil
	}
	w.pw.CloseWithError(errAborted)
	<-w.done
	if w.err == nil {
		// The upload had already completed (it cannot before the pipe
		// closes; kept for safety).
		return nil
	}
	// The uploader reports a failed AbortMultipartUpload inside its
	// error (transfermanager has no typed error for it).
	if strings.Contains(w.err.Error(), "failed to abort multipart upload") {
		return wrap("abort", w.name, -1, w.err)
	}
	return nil
}
