package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/arcport/arcport/lib/store/s3test"
)

// writeChunks writes data to w in chunks of n bytes.
func writeChunks(t *testing.T, w Writer, data []byte, n int) {
	t.Helper()
	for len(data) > 0 {
		k := min(len(data), n)
		if _, err := w.Write(data[:k]); err != nil {
			t.Fatal(err)
		}
		data = data[k:]
	}
}

// noUploads fails t if the bucket has an object key or an incomplete
// multipart upload.
func (e *env) noUploads(t *testing.T, key string) {
	t.Helper()
	if e.exists(t, key) {
		t.Errorf("object %s exists", key)
	}
	if u := e.uploads(t); len(u) != 0 {
		t.Errorf("incomplete multipart uploads left: %v", u)
	}
}

// isComplete matches CompleteMultipartUpload requests.
func isComplete(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Query().Has("uploadId")
}

// TestUploadMultipart: 17 MiB + 123 bytes written in odd chunks as 5 MiB
// parts: CreateMultipartUpload with CRC32C, four UploadParts sent with
// UNSIGNED-PAYLOAD, each carrying the CRC32C of its bytes, one
// CompleteMultipartUpload; read back byte for byte; an object of 4 parts;
// no upload left.
func TestUploadMultipart(t *testing.T) {
	e := setup(t, Options{PartSize: 5 << 20})
	const part = 5 << 20
	data := random(3*part+2<<20+123, 30)
	w, err := e.st.Create(context.Background(), "s3://bkt/multi")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	writeChunks(t, w, data, 7777)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	log := e.proxy.Log()
	var kinds []string
	for _, r := range log {
		switch {
		case r.Method == "POST" && strings.HasPrefix(r.Query, "uploads"):
			kinds = append(kinds, "create")
			if a := r.Header.Get("X-Amz-Checksum-Algorithm"); a != "CRC32C" {
				t.Errorf("CreateMultipartUpload: checksum algorithm %q", a)
			}
		case r.Method == "PUT" && strings.Contains(r.Query, "partNumber="):
			kinds = append(kinds, "part")
			// (the parts arrive in any order)
			q, _ := url.ParseQuery(r.Query)
			n, _ := strconv.Atoi(q.Get("partNumber"))
			n-- // part number - 1
			if n < 0 || n*part >= len(data) {
				t.Errorf("part number %q", q.Get("partNumber"))
				continue
			}
			want := crc32c(data[n*part : min(len(data), (n+1)*part)])
			if got := r.Header.Get("X-Amz-Checksum-Crc32c"); got != want {
				t.Errorf("part %d: CRC32C %q, want %q", n+1, got, want)
			}
			if p := r.Header.Get("X-Amz-Content-Sha256"); p != "UNSIGNED-PAYLOAD" {
				t.Errorf("part %d: payload hash %q", n+1, p)
			}
			if !strings.Contains(r.Header.Get("Authorization"), "x-amz-checksum-crc32c") {
				t.Errorf("part %d: checksum header not signed: %s", n+1, r.Header.Get("Authorization"))
			}
		case r.Method == "POST":
			kinds = append(kinds, "complete")
		default:
			kinds = append(kinds, r.Method+" "+r.Query)
		}
	}
	if g := strings.Join(kinds, " "); g != "create part part part part complete" {
		t.Errorf("requests: %s", g)
	}
	head, err := e.api(t).HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String("bkt"), Key: aws.String("multi")})
	if err != nil {
		t.Fatal(err)
	}
	if etag := aws.ToString(head.ETag); !strings.HasSuffix(etag, `-4"`) || aws.ToInt64(head.ContentLength) != int64(len(data)) {
		t.Errorf("ETag %s (want 4 parts), size %d", etag, aws.ToInt64(head.ContentLength))
	}
	if got := readAll(t, e.st, "s3://bkt/multi"); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, wrote %d: differ", len(got), len(data))
	}
	if u := e.uploads(t); len(u) != 0 {
		t.Errorf("uploads left: %v", u)
	}
}

// TestUploadSmall: outputs of at most one part (100 KiB, exactly one part)
// are one PutObject at Commit, UNSIGNED-PAYLOAD with their CRC32C, and
// nothing before it.
func TestUploadSmall(t *testing.T) {
	e := setup(t, Options{PartSize: 5 << 20})
	for _, size := range []int{100 << 10, 5 << 20} {
		data := random(size, 31)
		e.proxy.Reset()
		w, err := e.st.Create(context.Background(), "s3://bkt/small")
		if err != nil {
			t.Fatal(err)
		}
		writeChunks(t, w, data, 4096)
		if n := e.proxy.Stats().Requests; n != 0 {
			t.Errorf("%d bytes: %d requests before Commit", size, n)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		log := e.proxy.Log()
		if len(log) != 1 || log[0].Method != "PUT" || strings.Contains(log[0].Query, "upload") || strings.Contains(log[0].Query, "part") {
			t.Fatalf("%d bytes: requests %+v, want one PutObject", size, log)
		}
		h := log[0].Header
		if h.Get("X-Amz-Content-Sha256") != "UNSIGNED-PAYLOAD" || h.Get("X-Amz-Checksum-Crc32c") != crc32c(data) {
			t.Errorf("%d bytes: payload hash %q, CRC32C %q", size, h.Get("X-Amz-Content-Sha256"), h.Get("X-Amz-Checksum-Crc32c"))
		}
		if got := readAll(t, e.st, "s3://bkt/small"); !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back differs", size)
		}
	}
}

// TestUploadSlowDownPart: 503 SlowDown on two UploadParts; the SDK's
// retryer sends them again (the part bodies are seekable) and the object
// is whole.
func TestUploadSlowDownPart(t *testing.T) {
	e := setup(t, Options{PartSize: 5 << 20})
	data := random(12<<20, 32)
	e.proxy.SlowDownIf(2, s3test.UploadPart)
	write(t, e.st, "s3://bkt/slow", data)
	ps := e.proxy.Stats()
	parts := 0
	for _, r := range e.proxy.Log() {
		if r.Method == "PUT" {
			parts++
		}
	}
	t.Logf("2 UploadParts answered SlowDown: %+v, %d UploadPart requests", ps, parts)
	if ps.Faults != 2 || parts != 3+2 {
		t.Errorf("%+v, %d UploadPart requests; want 2 faults and 5 requests for 3 parts", ps, parts)
	}
	if got := readAll(t, e.st, "s3://bkt/slow"); !bytes.Equal(got, data) {
		t.Fatal("read back differs")
	}
	if u := e.uploads(t); len(u) != 0 {
		t.Errorf("uploads left: %v", u)
	}
}

// TestUploadChecksum: the server checks each part's CRC32C. A direct
// UploadPart with a wrong CRC32C is refused (400 BadDigest). A part or a
// PutObject whose body is corrupted on the way (one byte flipped by the
// proxy) is refused and sent again from the buffer, so the object is
// whole; corrupted on every attempt, the Commit fails naming the URL and
// no object and no upload are left.
func TestUploadChecksum(t *testing.T) {
	e := setup(t, Options{PartSize: 5 << 20})
	ctx := context.Background()
	api := e.api(t)
	body := random(5<<20, 33)

	// Directly, with the writer's request options.
	cr, err := api.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("bkt"), Key: aws.String("direct"), ChecksumAlgorithm: "CRC32C"})
	if err != nil {
		t.Fatal(err)
	}
	put := func(sum string) error {
		_, err := api.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: aws.String("bkt"), Key: aws.String("direct"), UploadId: cr.UploadId,
			PartNumber: aws.Int32(1), Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
			ChecksumCRC32C: aws.String(sum),
		}, unsignedPayload)
		return err
	}
	wrong := crc32c(body[1:])
	err = put(wrong) // (sent 6 times: BadDigest is retried)
	t.Logf("UploadPart with a wrong CRC32C: %v", err)
	if err == nil {
		t.Fatal("UploadPart with a wrong CRC32C accepted")
	}
	if code := codeOf(err); code != "BadDigest" {
		t.Errorf("wrong CRC32C: code %q", code)
	}
	if err := put(crc32c(body)); err != nil {
		t.Fatalf("UploadPart with the right CRC32C: %v", err)
	}
	if _, err := api.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String("bkt"), Key: aws.String("direct"), UploadId: cr.UploadId}); err != nil {
		t.Fatal(err)
	}

	// Through the writer, a body corrupted on the way, once (sent again)
	// or on every attempt (Retries 2: 3 attempts).
	part2 := func(r *http.Request) bool { return s3test.UploadPart(r) && r.URL.Query().Get("partNumber") == "2" }
	st := New(Options{PartSize: 5 << 20, Retries: 2, RetryBase: time.Millisecond})
	for _, c := range []struct {
		what  string
		size  int
		match s3test.Match
		times int
	}{
		{"part", 12 << 20, s3test.UploadPart, 1},
		{"PutObject", 1 << 20, s3test.PutObject, 1},
		{"part", 12 << 20, part2, 3},
		{"PutObject", 1 << 20, s3test.PutObject, 3},
	} {
		e.proxy.Reset()
		e.proxy.CorruptIf(c.times, c.match)
		key := fmt.Sprintf("corrupt-%s-%d", c.what, c.times)
		w, err := st.Create(ctx, "s3://bkt/"+key)
		if err != nil {
			t.Fatal(err)
		}
		data := random(c.size, 34)
		var werr error
		for rest := data; len(rest) > 0 && werr == nil; {
			k := min(len(rest), 1<<20)
			_, werr = w.Write(rest[:k])
			rest = rest[k:]
		}
		err = w.Commit()
		t.Logf("%s corrupted on the way %d times: Write %v; Commit %v", c.what, c.times, werr, err)
		if f := e.proxy.Stats().Faults; f != int64(c.times) {
			t.Errorf("%s: %d faults injected, want %d", key, f, c.times)
		}
		if c.times == 1 {
			if err != nil {
				t.Errorf("%s: %v", key, err)
			} else if got := readAll(t, st, "s3://bkt/"+key); !bytes.Equal(got, data) {
				t.Errorf("%s: read back differs", key)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: a corrupted body was accepted", key)
		} else if !strings.HasPrefix(err.Error(), "s3://bkt/"+key+": ") || !strings.Contains(err.Error(), "BadDigest") {
			t.Errorf("%s: error %q", key, err)
		}
		e.noUploads(t, key)
	}
}

// TestUploadAbortWhileBlocked: Abort from another goroutine (as the signal
// handler of the tools does) while Write waits for part buffers, the parts
// in flight being answered SlowDown and retried on and on; and Abort while
// Commit waits for CompleteMultipartUpload. Both return promptly, the
// waiting call fails, and no object and no upload are left.
func TestUploadAbortWhileBlocked(t *testing.T) {
	e := setup(t, Options{PartSize: 5 << 20, Retries: 50, RetryBase: time.Second})
	chunk := random(1<<20, 35)
	for _, during := range []string{"Write", "Commit"} {
		e.proxy.Reset()
		key := "blocked-" + during
		if during == "Write" {
			e.proxy.SlowDownIf(1000, s3test.UploadPart)
		} else {
			e.proxy.SlowDownIf(1000, isComplete)
		}
		w, err := e.st.Create(context.Background(), "s3://bkt/"+key)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var err2 error
		wg.Add(1)
		go func() {
			defer wg.Done()
			if during == "Write" {
				// 3 buffers of 5 MiB: the 16th MiB waits for one
				for range 40 {
					if _, err2 = w.Write(chunk); err2 != nil {
						return
					}
				}
				err2 = errors.New("all 40 MiB written")
				return
			}
			for range 12 {
				if _, err := w.Write(chunk); err != nil {
					err2 = err
					return
				}
			}
			err2 = w.Commit()
		}()
		// The writer is stuck once the proxy has refused a request.
		for deadline := time.Now().Add(20 * time.Second); e.proxy.Stats().Faults == 0; {
			if time.Now().After(deadline) {
				t.Fatalf("%s: no request refused", during)
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		start := time.Now()
		if err := w.Abort(); err != nil {
			t.Errorf("%s: Abort: %v", during, err)
		}
		wg.Wait()
		took := time.Since(start)
		t.Logf("Abort during %s: returned after %v; %s failed with %v; proxy %+v", during, took.Round(time.Millisecond), during, err2, e.proxy.Stats())
		if err2 == nil || !strings.Contains(err2.Error(), "s3://bkt/"+key) {
			t.Errorf("%s after Abort: %v", during, err2)
		}
		if took > 10*time.Second {
			t.Errorf("Abort took %v", took)
		}
		e.proxy.Reset()
		e.noUploads(t, key)
		if err := w.Abort(); err != nil {
			t.Errorf("second Abort: %v", err)
		}
	}
	// After a Commit that succeeded, Abort does nothing.
	w, err := e.st.Create(context.Background(), "s3://bkt/kept")
	if err != nil {
		t.Fatal(err)
	}
	writeChunks(t, w, random(11<<20, 36), 1<<20)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil || !e.exists(t, "kept") {
		t.Errorf("Abort after Commit: %v; object kept: %v", err, e.exists(t, "kept"))
	}
}
