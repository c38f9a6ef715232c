package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// s3Writer is a streaming multipart upload. Write copies into a part
// buffer; a full buffer is handed, once more bytes arrive, to one of
// Concurrency uploader goroutines, which send it with UploadPart and give
// the buffer back. At most Concurrency+1 buffers of PartSize exist (made
// as needed, then reused: no per-part allocation), so Write blocks while
// they are all full or in flight and memory stays bounded. The multipart
// upload is created with the first full part; an output of at most one
// part is sent with a single PutObject at Commit.
//
// Bodies go out with UNSIGNED-PAYLOAD, so the SDK does not hash each
// part with SHA-256 for the signature; instead each part carries its
// CRC32C (x-amz-checksum-crc32c, a signed header), which the server checks
// against the bytes received and rejects on mismatch, and
// CompleteMultipartUpload lists every part's CRC32C and the total size.
//
// Write and Commit are called from one goroutine; Abort may be called from
// another (a signal handler), as may the context's end, at any time.
type s3Writer struct {
	c           *s3Client
	name        string
	bucket, key string
	size        int // part size
	conc        int
	ctx         context.Context    // of Create
	wctx        context.Context    // of the requests: ctx, canceled at failure
	cancel      context.CancelFunc // of wctx
	stop        func() bool        // of the context.AfterFunc that aborts

	// Used by Write and Commit only.
	buf   []byte // the part being filled: len filled, cap its size
	nbuf  int    // buffers made
	next  int32  // number of the last part handed to the uploaders
	total int64  // bytes handed to the uploaders

	free chan []byte // buffers sent, to reuse
	jobs chan part   // parts to send

	mu       sync.Mutex
	closed   bool          // Commit or Abort called
	done     bool          // Commit returned or Abort called: Abort does nothing
	ended    bool          // aborting: no upload may be created, no uploader started
	creating chan struct{} // closed when CreateMultipartUpload has answered
	uploadID string        // once the multipart upload is created
	err      error         // the first failure
	failed   chan struct{}
	parts    []types.CompletedPart
	wg       sync.WaitGroup // the uploaders

	abortOnce sync.Once
	abortErr  error

	// CreateAfterCopy: the upload starts with the first copyN bytes of
	// the object copySrc ("bucket/key"), copied by the server.
	copySrc  string
	copyN    int64
	copyETag string
}

// part is one part to upload.
type part struct {
	num int32
	buf []byte
}

// errAborted is the failure of an aborted upload.
var errAborted = errors.New("aborted")

// firstBuffer is the starting size of the first part buffer, which grows
// to the part size only if the output does: a small output does not cost
// a whole part.
const firstBuffer = 64 << 10

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// unsignedPayload sends a request's body with UNSIGNED-PAYLOAD in place of
// its SHA-256 in the signature (the SDK's own middleware; the request is
// still signed by the SDK). The copy of APIOptions keeps concurrent calls
// from appending into a shared array.
func unsignedPayload(o *s3.Options) {
	o.APIOptions = append(o.APIOptions[:len(o.APIOptions):len(o.APIOptions)],
		v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
}

// crc32c returns the base64 of the big-endian CRC32C of b, as S3 wants it.
func crc32c(b []byte) string {
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.Checksum(b, castagnoli))
	return base64.StdEncoding.EncodeToString(sum[:])
}

func (s *Store) createS3(ctx context.Context, c *s3Client, name, bucket, key string) *s3Writer {
	w := &s3Writer{
		c: c, name: name, bucket: bucket, key: key,
		size: int(s.opts.PartSize), conc: s.opts.Concurrency,
		ctx:    ctx,
		free:   make(chan []byte, s.opts.Concurrency+1),
		jobs:   make(chan part, s.opts.Concurrency+1),
		failed: make(chan struct{}),
	}
	w.wctx, w.cancel = context.WithCancel(ctx)
	// The context of a Create ending aborts the upload, whether or not
	// the caller calls Abort.
	w.stop = context.AfterFunc(ctx, func() {
		w.fail(ctx.Err())
		w.abort()
	})
	return w
}

// fail records the first failure and stops the uploaders.
func (w *s3Writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failLocked(err)
}

// failLocked is fail with w.mu held.
func (w *s3Writer) failLocked(err error) {
	if w.err == nil {
		w.err = err
		close(w.failed)
		w.cancel()
	}
}

// failure returns the error of a failed or canceled upload as an *Error
// of op, or nil.
func (w *s3Writer) failure(op string) error {
	if err := w.ctx.Err(); err != nil {
		return &Error{Op: op, URL: Redact(w.name), Err: err}
	}
	w.mu.Lock()
	err := w.err
	w.mu.Unlock()
	if err == nil {
		return nil
	}
	if err == errAborted {
		return &Error{Op: op, URL: Redact(w.name), Err: err}
	}
	return wrap(op, w.name, -1, err)
}

func (w *s3Writer) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

func (w *s3Writer) Write(p []byte) (int, error) {
	if w.isClosed() {
		return 0, ErrClosed
	}
	n := 0
	for len(p) > 0 {
		if err := w.failure("write"); err != nil {
			return n, err
		}
		if w.buf != nil && len(w.buf) == w.size {
			// Full, and there is more: not the last part.
			if err := w.send("write"); err != nil {
				return n, err
			}
		}
		if w.buf == nil {
			if err := w.take(); err != nil {
				return n, err
			}
		}
		if len(w.buf) == cap(w.buf) && cap(w.buf) < w.size {
			// The first buffer, grown as the output does: doubled up to
			// 1 MiB, then made whole.
			c := 2 * cap(w.buf)
			if c > 1<<20 {
				c = w.size
			}
			nb := make([]byte, len(w.buf), min(w.size, c))
			copy(nb, w.buf)
			w.buf = nb
		}
		k := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf = w.buf[:len(w.buf)+k]
		p = p[k:]
		n += k
	}
	return n, nil
}

// take makes w.buf an empty part buffer: a free one, a new one while
// fewer than Concurrency+1 exist, else the next one an uploader gives
// back.
func (w *s3Writer) take() error {
	select {
	case b := <-w.free:
		w.buf = b[:0]
		return nil
	default:
	}
	if w.nbuf == 0 {
		w.nbuf++
		w.buf = make([]byte, 0, min(w.size, firstBuffer))
		return nil
	}
	if w.nbuf <= w.conc {
		w.nbuf++
		w.buf = make([]byte, 0, w.size)
		return nil
	}
	select {
	case b := <-w.free:
		w.buf = b[:0]
		return nil
	case <-w.failed:
		return w.failure("write")
	}
}

// send hands w.buf to the uploaders, creating the multipart upload first
// if this is the first part.
func (w *s3Writer) send(op string) error {
	if err := w.start(op); err != nil {
		return err
	}
	w.next++
	w.total += int64(len(w.buf))
	select {
	case w.jobs <- part{num: w.next, buf: w.buf}:
	case <-w.failed:
		return w.failure(op)
	}
	w.buf = nil
	return nil
}

// start creates the multipart upload and its uploaders, once. An abort
// meanwhile cancels the request and waits for its answer, to abort the
// upload if it was created all the same.
func (w *s3Writer) start(op string) error {
	w.mu.Lock()
	if w.uploadID != "" {
		w.mu.Unlock()
		return nil
	}
	if w.ended {
		w.mu.Unlock()
		return w.failure(op)
	}
	created := make(chan struct{})
	w.creating = created
	w.mu.Unlock()
	out, err := w.c.api.CreateMultipartUpload(w.wctx, &s3.CreateMultipartUploadInput{
		Bucket:            &w.bucket,
		Key:               &w.key,
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32c,
	})
	if err == nil && aws.ToString(out.UploadId) == "" {
		err = errors.New("CreateMultipartUpload answered no upload ID")
	}
	w.mu.Lock()
	close(created)
	if err != nil {
		w.failLocked(err)
		w.mu.Unlock()
		return w.failure(op)
	}
	w.uploadID = aws.ToString(out.UploadId)
	if w.ended {
		// aborting: the abort, waiting on created, aborts this upload
		w.mu.Unlock()
		return w.failure(op)
	}
	if w.copyN > 0 {
		// the copied prefix first, before any uploader runs
		w.mu.Unlock()
		err := w.copyPrefix()
		w.mu.Lock()
		if err != nil {
			w.failLocked(err)
			w.mu.Unlock()
			return w.failure(op)
		}
	}
	w.wg.Add(w.conc)
	for range w.conc {
		go w.upload()
	}
	w.mu.Unlock()
	return nil
}

// upload sends parts until there are none left or the upload fails.
func (w *s3Writer) upload() {
	defer w.wg.Done()
	for {
		select {
		case <-w.failed:
			return
		case p, ok := <-w.jobs:
			if !ok {
				return
			}
			sum := crc32c(p.buf)
			out, err := w.c.api.UploadPart(w.wctx, &s3.UploadPartInput{
				Bucket:         &w.bucket,
				Key:            &w.key,
				UploadId:       &w.uploadID,
				PartNumber:     aws.Int32(p.num),
				Body:           bytes.NewReader(p.buf), // seekable: re-sent on retry
				ContentLength:  aws.Int64(int64(len(p.buf))),
				ChecksumCRC32C: aws.String(sum),
			}, unsignedPayload)
			if err == nil {
				if got := aws.ToString(out.ChecksumCRC32C); got != "" && got != sum {
					err = fmt.Errorf("part %d: server computed CRC32C %s, sent %s", p.num, got, sum)
				}
			}
			if err != nil {
				w.fail(err)
				return
			}
			w.mu.Lock()
			w.parts = append(w.parts, types.CompletedPart{
				ETag:           out.ETag,
				PartNumber:     aws.Int32(p.num),
				ChecksumCRC32C: aws.String(sum),
			})
			w.mu.Unlock()
			w.free <- p.buf // never blocks: it holds every buffer
		}
	}
}

// finish marks w closed; it reports false if it was already.
func (w *s3Writer) finish() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.closed = true
	return true
}

func (w *s3Writer) Commit() error {
	if !w.finish() {
		return ErrClosed
	}
	err := w.commit()
	w.stop()
	if err != nil {
		w.fail(err)
		w.abort()
	} else {
		w.cancel()
	}
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	return err
}

func (w *s3Writer) commit() error {
	if err := w.failure("commit"); err != nil {
		return err
	}
	w.mu.Lock()
	single := w.uploadID == ""
	w.mu.Unlock()
	if single {
		// At most one part: one PutObject.
		_, err := w.c.api.PutObject(w.wctx, &s3.PutObjectInput{
			Bucket:         &w.bucket,
			Key:            &w.key,
			Body:           bytes.NewReader(w.buf),
			ContentLength:  aws.Int64(int64(len(w.buf))),
			ChecksumCRC32C: aws.String(crc32c(w.buf)),
		}, unsignedPayload)
		return w.requestError(err)
	}
	if len(w.buf) > 0 {
		if err := w.send("commit"); err != nil {
			return err
		}
	}
	close(w.jobs)
	w.wg.Wait()
	if err := w.failure("commit"); err != nil {
		return err
	}
	w.mu.Lock()
	parts := w.parts
	w.mu.Unlock()
	if len(parts) != int(w.next) {
		return &Error{Op: "commit", URL: Redact(w.name), Err: fmt.Errorf("%d parts sent of %d", len(parts), w.next)}
	}
	sort.Slice(parts, func(i, j int) bool { return *parts[i].PartNumber < *parts[j].PartNumber })
	_, err := w.c.api.CompleteMultipartUpload(w.wctx, &s3.CompleteMultipartUploadInput{
		Bucket:          &w.bucket,
		Key:             &w.key,
		UploadId:        &w.uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		MpuObjectSize:   aws.Int64(w.total),
	})
	return w.requestError(err)
}

// requestError is the error of a request made at Commit: the context's
// if it ended, else err as an *Error.
func (w *s3Writer) requestError(err error) error {
	if err == nil {
		return nil
	}
	if e := w.failure("commit"); e != nil {
		return e
	}
	return wrap("commit", w.name, -1, err)
}

// Abort aborts the upload, also while Commit runs (from another
// goroutine: Commit then fails, unless the upload was completed already).
func (w *s3Writer) Abort() error {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return nil
	}
	w.closed, w.done = true, true
	w.mu.Unlock()
	return w.abort()
}

// abort stops the uploaders, waits for them and aborts the multipart
// upload, if one was created, with a fresh context (the write's may have
// ended), bounded by failTimeout. It runs once; later calls wait for it
// and return its result. After a Commit that succeeded it does nothing.
func (w *s3Writer) abort() error {
	w.abortOnce.Do(func() {
		w.fail(errAborted)
		w.mu.Lock()
		w.ended = true
		creating := w.creating
		w.mu.Unlock()
		if creating != nil {
			<-creating // the request is canceled: not for long
		}
		w.mu.Lock()
		id := w.uploadID
		w.mu.Unlock()
		w.wg.Wait()
		if id == "" {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), failTimeout)
		defer cancel()
		_, err := w.c.api.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
			Bucket: &w.bucket, Key: &w.key, UploadId: &id,
		})
		if err != nil && codeOf(err) != "NoSuchUpload" {
			w.abortErr = wrap("abort", w.name, -1, err)
		}
	})
	return w.abortErr
}
