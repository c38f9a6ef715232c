package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"time"
)

// objInfo is what a response says about the object.
type objInfo struct {
	start int64  // first byte of the body in the object
	size  int64  // object size, -1 if unknown
	etag  string // "" if none
}

// remote is an object read over HTTP: S3 or http(s).
type remote interface {
	// get returns the bytes [off, off+n) of the object (n < 0: to its
	// end; off == 0 && n < 0: a plain GET) with If-Match etag when etag
	// is set.
	get(ctx context.Context, off, n int64, etag string) (io.ReadCloser, objInfo, error)
	// stat returns the object's size and ETag.
	stat(ctx context.Context) (objInfo, error)
	// url is the name as given.
	url() string
}

// Open opens name for reading: a local path, "-" (Options.Stdin),
// s3://bucket/key or an http(s):// URL. A remote object is read with one
// GET; when the connection drops, stalls or the server fails mid-body, the
// read resumes with a Range request from the first byte not yet received,
// checking with If-Match that the object is the same (ErrChanged if not).
// It never starts over and never yields a byte twice.
func (s *Store) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	switch KindOf(name) {
	case Std:
		return io.NopCloser(s.opts.Stdin), nil
	case Local:
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	r, err := s.remote(ctx, name)
	if err != nil {
		return nil, err
	}
	st := &stream{s: s, ctx: ctx, r: r, end: -1, size: -1}
	// The first GET now, so that a missing object or bad credentials
	// fail at Open.
	if err := st.open(); err != nil {
		return nil, err
	}
	return st, nil
}

func (s *Store) remote(ctx context.Context, name string) (remote, error) {
	if KindOf(name) == HTTP {
		return &httpObject{client: s.client, name: name}, nil
	}
	bucket, key, err := parseS3(name)
	if err != nil {
		return nil, err
	}
	if key == "" || key[len(key)-1] == '/' {
		return nil, &Error{Op: "open", URL: Redact(name), Err: errors.New("names a prefix, not an object")}
	}
	c, err := s.s3client(ctx)
	if err != nil {
		return nil, wrap("open", name, -1, err)
	}
	return &s3Object{c: c, name: name, bucket: bucket, key: key}, nil
}

// backoff sleeps before retry number attempt (0-based): RetryBase × 2^n,
// at most 32 × RetryBase, half of it fixed and half random ("equal
// jitter"), or less if ctx ends.
func (s *Store) backoff(ctx context.Context, attempt int) error {
	d := s.opts.RetryBase << min(attempt, 5)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// stream reads [off, end) of a remote object (end -1: to its end),
// resuming after failures.
type stream struct {
	s    *Store
	ctx  context.Context
	r    remote
	body io.ReadCloser
	off  int64 // next byte to return
	end  int64 // -1: the object's end
	size int64 // object size once known, else -1
	etag string
	// fails counts failed attempts since the last byte received.
	fails int
	err   error
	reqs  *atomic.Int64 // counters of a File, or nil
	bytes *atomic.Int64
}

// open sends GETs from off, retrying, until one answers or the retries
// are spent.
func (st *stream) open() error {
	for {
		if st.fails > 0 {
			if err := st.s.backoff(st.ctx, st.fails-1); err != nil {
				return wrap("read", st.r.url(), st.off, err)
			}
		}
		n := int64(-1)
		if st.end >= 0 {
			n = st.end - st.off
		}
		if st.reqs != nil {
			st.reqs.Add(1)
		}
		body, info, err := st.r.get(st.ctx, st.off, n, st.etag)
		if err == nil {
			err = st.check(info)
			if err != nil {
				body.Close()
			}
		}
		if err == nil {
			st.body = body
			return nil
		}
		op := "read"
		if st.off == 0 && st.size < 0 {
			op = "open"
		}
		if st.ctx.Err() != nil {
			return wrap(op, st.r.url(), st.off, st.ctx.Err())
		}
		st.fails++
		if !retryable(err) || st.fails > st.s.opts.Retries {
			return st.giveUp(op, err)
		}
		st.s.logf("%s: retrying at offset %d after attempt %d: %s", Redact(st.r.url()), st.off, st.fails, oneLine(describe(err)))
	}
}

// giveUp is the error of a stream that stops: err, and the number of
// attempts if it stops because the retries are spent.
func (st *stream) giveUp(op string, err error) error {
	again := retryable(err)
	err = wrap(op, st.r.url(), st.off, err)
	var e *Error
	if errors.As(err, &e) && again && st.fails > 1 {
		e.Attempts = st.fails
	}
	return err
}

// check compares a response with what the stream knows.
func (st *stream) check(info objInfo) error {
	if info.start != st.off {
		return fmt.Errorf("server sent bytes from %d, asked from %d", info.start, st.off)
	}
	if st.size < 0 && st.etag == "" {
		st.size, st.etag = info.size, info.etag
		return nil
	}
	if (st.etag != "" && info.etag != "" && info.etag != st.etag) ||
		(st.size >= 0 && info.size >= 0 && info.size != st.size) {
		return &Error{Op: "read", URL: Redact(st.r.url()), Offset: st.off, Kind: ErrChanged}
	}
	return nil
}

// limit is where the stream ends: end, or the object size, or -1.
func (st *stream) limit() int64 {
	if st.end >= 0 {
		return st.end
	}
	return st.size
}

func (st *stream) Read(p []byte) (int, error) {
	for {
		if st.err != nil {
			return 0, st.err
		}
		if l := st.limit(); l >= 0 && st.off >= l {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		if st.body == nil {
			if err := st.open(); err != nil {
				st.err = err
				return 0, err
			}
		}
		if l := st.limit(); l >= 0 && int64(len(p)) > l-st.off {
			p = p[:l-st.off]
		}
		var stalled atomic.Bool
		body := st.body
		t := time.AfterFunc(st.s.opts.ReadTimeout, func() {
			stalled.Store(true)
			body.Close()
		})
		n, err := body.Read(p)
		t.Stop()
		if stalled.Load() {
			err = errStalled
		}
		st.off += int64(n)
		if st.bytes != nil {
			st.bytes.Add(int64(n))
		}
		if n > 0 {
			st.fails = 0
		}
		if err == io.EOF {
			if l := st.limit(); l < 0 || st.off >= l {
				if n > 0 {
					return n, nil
				}
				return 0, io.EOF
			}
			// Ended before the length the server announced.
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			st.body.Close()
			st.body = nil
			if st.ctx.Err() != nil {
				st.err = wrap("read", st.r.url(), st.off, st.ctx.Err())
			} else if st.fails++; !retryable(err) || st.fails > st.s.opts.Retries {
				st.err = st.giveUp("read", err)
			} else {
				st.s.logf("%s: resuming at offset %d: %s", Redact(st.r.url()), st.off, oneLine(describe(err)))
			}
		}
		if n > 0 {
			return n, nil
		}
	}
}

// Close closes the current connection.
func (st *stream) Close() error {
	if st.body != nil {
		st.body.Close()
		st.body = nil
	}
	if st.err == nil {
		st.err = &Error{Op: "read", URL: Redact(st.r.url()), Offset: st.off, Err: errors.New("read after Close")}
	}
	return nil
}
