package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/arcport/arcport/lib/store/s3test"
)

// env is a real versitygw behind a counting, fault-injecting proxy, a
// bucket "bkt" in it, and a Store talking to the proxy.
type env struct {
	srv   *s3test.Server
	proxy *s3test.Proxy
	st    *Store
}

func setup(t *testing.T, opts Options) *env {
	t.Helper()
	srv := s3test.Start(t)
	srv.Bucket(t, "bkt")
	p := s3test.NewProxy(t, srv.URL)
	srv.Setenv(t, p.URL)
	if opts.RetryBase == 0 {
		opts.RetryBase = 10 * time.Millisecond
	}
	return &env{srv: srv, proxy: p, st: New(opts)}
}

// api is the store's own S3 client, to check the bucket behind its back.
func (e *env) api(t *testing.T) *s3.Client {
	t.Helper()
	c, err := e.st.s3client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c.api
}

func (e *env) put(t *testing.T, key string, data []byte) {
	t.Helper()
	_, err := e.api(t).PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String("bkt"), Key: aws.String(key), Body: bytes.NewReader(data)})
	if err != nil {
		t.Fatal(err)
	}
}

// uploads returns the keys of the bucket's incomplete multipart uploads.
func (e *env) uploads(t *testing.T) []string {
	t.Helper()
	out, err := e.api(t).ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String("bkt")})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, aws.ToString(u.Key))
	}
	return keys
}

func (e *env) exists(t *testing.T, key string) bool {
	t.Helper()
	_, err := e.api(t).HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String("bkt"), Key: aws.String(key)})
	if err == nil {
		return true
	}
	if !errors.Is(wrap("head", key, -1, err), ErrNotFound) {
		t.Fatal(err)
	}
	return false
}

// random returns n deterministic pseudo-random bytes.
func random(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	r.Read(b)
	return b
}

func readAll(t *testing.T, st *Store, name string) []byte {
	t.Helper()
	r, err := st.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, st *Store, name string, data []byte) {
	t.Helper()
	w, err := st.Create(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for len(data) > 0 {
		n := min(len(data), 1<<20)
		if _, err := w.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestRoundTrip writes a small object (one PutObject at Commit) and a
// three-part one, sees neither before Commit, and reads both back with
// one GET each.
func TestRoundTrip(t *testing.T) {
	e := setup(t, Options{PartSize: 5 << 20})
	for _, c := range []struct {
		key  string
		size int
		reqs int64 // to write: PutObject, or Create + parts + Complete
	}{{"dir/small.bin", 100 << 10, 1}, {"dir/big.bin", 12 << 20, 5}, {"empty", 0, 1}} {
		data := random(c.size, 1)
		name := "s3://bkt/" + c.key
		e.proxy.Reset()
		w, err := e.st.Create(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if e.exists(t, c.key) {
			t.Errorf("%s: exists before Commit", c.key)
		}
		if err := w.Commit(); err != nil {
			t.Fatalf("%s: commit: %v", c.key, err)
		}
		if err := w.Commit(); !errors.Is(err, ErrClosed) {
			t.Errorf("second Commit: %v", err)
		}
		if n := e.proxy.Stats().Requests - 1; n != c.reqs { // less the HEAD of exists
			t.Errorf("%s: written with %d requests, want %d", c.key, n, c.reqs)
		}
		e.proxy.Reset()
		got := readAll(t, e.st, name)
		if !bytes.Equal(got, data) {
			t.Fatalf("%s: read %d bytes, wrote %d (sha256 %x vs %x)", c.key, len(got), len(data), sha256.Sum256(got), sha256.Sum256(data))
		}
		ps := e.proxy.Stats()
		t.Logf("%s: %d bytes read back with %d requests, %d bytes", c.key, c.size, ps.Requests, ps.Bytes)
		if ps.Requests != 1 || ps.Bytes != int64(c.size) {
			t.Errorf("%s: read with %+v, want 1 request and %d bytes", c.key, ps, c.size)
		}
	}
	if u := e.uploads(t); len(u) != 0 {
		t.Errorf("uploads left: %v", u)
	}
}

// TestOpenAt reads ranges through the block cache and counts requests:
// one HEAD at OpenAt, one ranged GET per run of missing blocks, none for
// cached blocks.
func TestOpenAt(t *testing.T) {
	e := setup(t, Options{BlockSize: 256 << 10, CacheBlocks: 4})
	data := random(5<<20+1234, 2)
	e.put(t, "obj", data)
	e.proxy.Reset()
	f, err := e.st.OpenAt(context.Background(), "s3://bkt/obj")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", f.Size(), len(data))
	}
	const bs = 256 << 10
	steps := []struct {
		off, n     int64
		reqs, byts int64 // added by this read
	}{
		{1 << 20, 100, 1, bs},                // block 4
		{1<<20 + 5000, 1000, 0, 0},           // cached
		{2<<20 - 10, 3 * bs, 1, 4 * bs},      // blocks 7-10 in one GET; 4 is evicted
		{int64(len(data)) - 10, 10, 1, 1234}, // the short last block 20
		{0, 10, 1, bs},                       // block 0
		{1 << 20, 10, 1, bs},                 // block 4 again
		{3<<20 + 100, 5 * bs, 1, 5 * bs},     // blocks 12-17, more than the cache: straight, uncached
		{3<<20 + 100 + bs, 10, 1, bs},        // so block 13 is not cached
	}
	var reqs, byts int64 = 1, 0
	for i, s := range steps {
		p := make([]byte, s.n)
		n, err := f.ReadAt(p, s.off)
		if err != nil || int64(n) != s.n || !bytes.Equal(p, data[s.off:s.off+s.n]) {
			t.Fatalf("step %d: ReadAt(%d, %d) = %d, %v", i, s.n, s.off, n, err)
		}
		reqs += s.reqs
		byts += s.byts
		fs, ps := f.Stats(), e.proxy.Stats()
		t.Logf("step %d: ReadAt(%d bytes at %d): file %v, proxy %d requests %d bytes", i, s.n, s.off, fs, ps.Requests, ps.Bytes)
		if fs.Requests != reqs || fs.Bytes != byts {
			t.Errorf("step %d: %v, want %d requests %d bytes", i, fs, reqs, byts)
		}
		if ps.Requests != fs.Requests || ps.Bytes != fs.Bytes {
			t.Errorf("step %d: proxy saw %+v, file counted %v", i, ps, fs)
		}
	}
	// Past the end: io.EOF with the bytes there are.
	p := make([]byte, 100)
	if n, err := f.ReadAt(p, int64(len(data))-10); n != 10 || err != io.EOF {
		t.Errorf("ReadAt at end: %d, %v", n, err)
	}
}

// TestList lists a prefix of 250 objects in pages of 100 (3 list
// requests), in key order, without the keys outside the prefix, and
// expands arguments.
func TestList(t *testing.T) {
	e := setup(t, Options{ListPageSize: 100})
	var want []string
	for i := range 250 {
		k := fmt.Sprintf("p/%04d", (i*7919)%250) // out of order
		e.put(t, k, []byte(k))
	}
	for i := range 250 {
		want = append(want, fmt.Sprintf("s3://bkt/p/%04d", i))
	}
	e.put(t, "q/other", []byte("x"))
	e.put(t, "p0", []byte("x"))
	e.proxy.Reset()
	got, err := e.st.List(context.Background(), "s3://bkt/p/")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("listed %d keys: %v...", len(got), got[:min(5, len(got))])
	}
	if ps := e.proxy.Stats(); ps.Requests != 3 {
		t.Errorf("list with %d requests, want 3 pages", ps.Requests)
	}
	args, err := e.st.Expand(context.Background(), []string{"local.warc", "s3://bkt/q/", "-", "s3://bkt/p0", "https://h/x"})
	if err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(args, " "); g != "local.warc s3://bkt/q/other - s3://bkt/p0 https://h/x" {
		t.Errorf("Expand: %s", g)
	}
	if _, err := e.st.Expand(context.Background(), []string{"s3://bkt/none/"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Expand of an empty prefix: %v", err)
	}
}

// TestWrongSecret: a wrong secret fails at once (one request, no retry)
// with a one-line error naming the URL, testable as ErrAccessDenied, the
// secret nowhere in it; a missing object is ErrNotFound, also at once.
func TestWrongSecret(t *testing.T) {
	e := setup(t, Options{})
	e.put(t, "k", []byte("data"))
	secret := "wrong-" + e.srv.Secret
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	st := New(Options{RetryBase: 10 * time.Millisecond})
	for _, op := range []string{"Open", "OpenAt", "List", "Create"} {
		e.proxy.Reset()
		var err error
		switch op {
		case "Open":
			_, err = st.Open(context.Background(), "s3://bkt/k")
		case "OpenAt":
			_, err = st.OpenAt(context.Background(), "s3://bkt/k")
		case "List":
			_, err = st.List(context.Background(), "s3://bkt/")
		case "Create":
			w, cerr := st.Create(context.Background(), "s3://bkt/new")
			if cerr != nil {
				t.Fatal(cerr)
			}
			w.Write([]byte("abc"))
			err = w.Commit()
		}
		t.Logf("%s: %v", op, err)
		if !errors.Is(err, ErrAccessDenied) {
			t.Errorf("%s: %v, want ErrAccessDenied", op, err)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, secret) || strings.Contains(msg, e.srv.Secret) || strings.Contains(msg, "\n") || !strings.Contains(msg, "s3://bkt/") {
			t.Errorf("%s: message %q", op, msg)
		}
		if n := e.proxy.Stats().Requests; n != 1 {
			t.Errorf("%s: %d requests, want 1 (no retry)", op, n)
		}
	}
	// An access key the server does not know.
	t.Setenv("AWS_SECRET_ACCESS_KEY", e.srv.Secret)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAUNKNOWN")
	e.proxy.Reset()
	_, err := New(Options{}).Open(context.Background(), "s3://bkt/k")
	t.Logf("unknown key: %v", err)
	if !errors.Is(err, ErrAccessDenied) || e.proxy.Stats().Requests != 1 || strings.Contains(err.Error(), e.srv.Secret) {
		t.Errorf("unknown access key: %v after %d requests", err, e.proxy.Stats().Requests)
	}
	e.proxy.Reset()
	_, err = e.st.Open(context.Background(), "s3://bkt/missing")
	if !errors.Is(err, ErrNotFound) || e.proxy.Stats().Requests != 1 {
		t.Errorf("missing key: %v after %d requests", err, e.proxy.Stats().Requests)
	}
	var se *Error
	if !errors.As(err, &se) || se.URL != "s3://bkt/missing" || se.Op != "open" {
		t.Errorf("missing key: %#v", se)
	}
	t.Logf("missing: %v", err)
}

// TestSlowDown: 503 SlowDown for the next two requests is retried, for a
// stream, a ranged read, a list and an upload.
func TestSlowDown(t *testing.T) {
	e := setup(t, Options{PartSize: 5 << 20})
	data := random(300<<10, 3)
	e.put(t, "k", data)
	check := func(what string, f func() error) {
		t.Helper()
		e.proxy.Reset()
		e.proxy.SlowDown(2)
		if err := f(); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		ps := e.proxy.Stats()
		t.Logf("%s with 2 SlowDown answers: %+v", what, ps)
		if ps.Faults != 2 || ps.Requests < 3 {
			t.Errorf("%s: %+v", what, ps)
		}
	}
	check("Open", func() error {
		if got := readAll(t, e.st, "s3://bkt/k"); !bytes.Equal(got, data) {
			return errors.New("bytes differ")
		}
		return nil
	})
	check("OpenAt", func() error {
		f, err := e.st.OpenAt(context.Background(), "s3://bkt/k")
		if err != nil {
			return err
		}
		p := make([]byte, 1000)
		_, err = f.ReadAt(p, 1000)
		if err == nil && !bytes.Equal(p, data[1000:2000]) {
			err = errors.New("bytes differ")
		}
		return err
	})
	check("List", func() error {
		l, err := e.st.List(context.Background(), "s3://bkt/")
		if err == nil && len(l) != 1 {
			err = fmt.Errorf("listed %v", l)
		}
		return err
	})
	check("Create", func() error {
		write(t, e.st, "s3://bkt/up", data)
		return nil
	})
	big := random(12<<20, 3)
	check("Create multipart", func() error {
		write(t, e.st, "s3://bkt/up2", big)
		if !bytes.Equal(readAll(t, e.st, "s3://bkt/up2"), big) {
			return errors.New("bytes differ")
		}
		return nil
	})
	// More failures than retries: an error, not a hang.
	e.proxy.Reset()
	e.proxy.SlowDown(100)
	st := New(Options{Retries: 2, RetryBase: time.Millisecond})
	_, err := st.Open(context.Background(), "s3://bkt/k")
	if err == nil || errors.Is(err, ErrAccessDenied) || e.proxy.Stats().Requests != 3 {
		t.Errorf("SlowDown beyond retries: %v after %d requests", err, e.proxy.Stats().Requests)
	}
	t.Logf("beyond retries: %v", err)
}

// TestResumeCut: response bodies cut twice mid-stream; the stream resumes
// with Range requests and yields each byte once: the proxy sends exactly
// the object's size in 3 GETs.
func TestResumeCut(t *testing.T) {
	var logs []string
	e := setup(t, Options{Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	data := random(4<<20, 4)
	e.put(t, "k", data)
	e.proxy.Reset()
	e.proxy.Cut(2, 1<<20)
	before := e.st.Stats()
	got := readAll(t, e.st, "s3://bkt/k")
	if sha256.Sum256(got) != sha256.Sum256(data) {
		t.Fatalf("read %d bytes, sha256 differs", len(got))
	}
	ps, ss := e.proxy.Stats(), e.st.Stats()
	t.Logf("cut twice after 1 MiB: proxy %+v; store %d requests %d bytes", ps, ss.Requests-before.Requests, ss.Bytes-before.Bytes)
	if ps.Gets != 3 || ps.Bytes != int64(len(data)) || ss.Bytes-before.Bytes != int64(len(data)) {
		t.Errorf("proxy %+v, store %v", ps, ss)
	}
	t.Logf("log: %q", logs)
	if len(logs) != 2 || !strings.HasPrefix(logs[0], "s3://bkt/k: resuming at offset 1048576: ") || !strings.HasPrefix(logs[1], "s3://bkt/k: resuming at offset 2097152: ") {
		t.Errorf("log %q", logs)
	}
}

// TestChanged: an object replaced while it is read is an error
// (ErrChanged), not a mix of two objects.
func TestChanged(t *testing.T) {
	e := setup(t, Options{})
	data := random(4<<20, 5)
	e.put(t, "k", data)
	e.proxy.Cut(1, 1<<20)
	r, err := e.st.Open(context.Background(), "s3://bkt/k")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := make([]byte, 1000)
	if _, err := io.ReadFull(r, p); err != nil {
		t.Fatal(err)
	}
	e.put(t, "k", random(4<<20, 6))
	_, err = io.Copy(io.Discard, r)
	t.Logf("changed: %v", err)
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "s3://bkt/k at offset 1048576") {
		t.Errorf("read of a replaced object: %v", err)
	}
}

// TestServerRestart: versitygw killed mid-read and started again a moment
// later; the read resumes by Range (retrying refused connections) and
// completes with the right bytes.
func TestServerRestart(t *testing.T) {
	e := setup(t, Options{})
	data := random(32<<20, 7)
	e.put(t, "k", data)
	// Straight to the server, no proxy: the server itself goes away.
	st := New(Options{Endpoint: e.srv.URL, RetryBase: 50 * time.Millisecond, Retries: 20})
	r, err := st.Open(context.Background(), "s3://bkt/k")
	if err != nil {
		t.Fatal(err)
	}
	f, err := st.OpenAt(context.Background(), "s3://bkt/k")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.CopyN(h, r, 1<<20); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Kill(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var runErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(200 * time.Millisecond) // connections are refused meanwhile
		runErr = e.srv.Run()
	}()
	n, err := io.Copy(h, r)
	wg.Wait()
	if runErr != nil {
		t.Fatal(runErr)
	}
	if err != nil {
		t.Fatalf("read after restart: %v", err)
	}
	if [32]byte(h.Sum(nil)) != sha256.Sum256(data) || n != int64(len(data))-1<<20 {
		t.Fatalf("read %d bytes after the kill, sha256 differs", n)
	}
	ss := st.Stats()
	t.Logf("killed after 1 MiB of 32 MiB and restarted: %d starts, %v", e.srv.Starts(), ss)
	if e.srv.Starts() != 2 || ss.Requests < 3 || ss.Bytes != int64(len(data)) {
		t.Errorf("starts %d, %v", e.srv.Starts(), ss)
	}
	// Again for a ranged read of a File opened before.
	if err := e.srv.Kill(); err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(200 * time.Millisecond)
		runErr = e.srv.Run()
	}()
	p := make([]byte, 1000)
	_, err = f.ReadAt(p, 20<<20)
	wg.Wait()
	if err != nil || runErr != nil || !bytes.Equal(p, data[20<<20:20<<20+1000]) {
		t.Fatalf("ReadAt across a restart: %v, %v", err, runErr)
	}
	t.Logf("ReadAt across a restart: file %v", f.Stats())
}

// TestAbortUpload: an upload of several parts aborted, or whose context is
// canceled, leaves no object and no multipart upload.
func TestAbortUpload(t *testing.T) {
	e := setup(t, Options{PartSize: 5 << 20})
	chunk := random(1<<20, 8)
	for _, how := range []string{"Abort", "cancel"} {
		key := "up-" + how
		ctx, cancel := context.WithCancel(context.Background())
		w, err := e.st.Create(ctx, "s3://bkt/"+key)
		if err != nil {
			t.Fatal(err)
		}
		for range 12 {
			if _, err := w.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		// Two parts read by the uploader: the multipart upload exists.
		if u := e.uploads(t); len(u) != 1 || u[0] != key {
			t.Fatalf("%s: uploads in progress %v, want [%s]", how, u, key)
		}
		if how == "Abort" {
			if err := w.Abort(); err != nil {
				t.Errorf("Abort: %v", err)
			}
		} else {
			cancel()
			_, werr := w.Write(chunk)
			cerr := w.Commit()
			t.Logf("after cancel: Write: %v; Commit: %v", werr, cerr)
			if !errors.Is(werr, context.Canceled) || !errors.Is(cerr, context.Canceled) {
				t.Errorf("after cancel: Write %v, Commit %v", werr, cerr)
			}
		}
		cancel()
		if e.exists(t, key) {
			t.Errorf("%s: object exists", how)
		}
		if u := e.uploads(t); len(u) != 0 {
			t.Errorf("%s: uploads left %v", how, u)
		}
	}
}

// genReader yields n deterministic pseudo-random bytes without holding
// them.
type genReader struct {
	r *rand.ChaCha8
	n int64
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), g.n)]
	g.r.Read(p)
	g.n -= int64(len(p))
	return len(p), nil
}

// TestBigUpload streams 100 MiB in 16 MiB parts (7 parts, 2 in flight)
// while watching the heap (at most the 3 part buffers and a little more,
// allocated once), then reads it back.
func TestBigUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MiB upload")
	}
	e := setup(t, Options{})
	const size = 100 << 20
	src := &genReader{r: rand.NewChaCha8([32]byte{9}), n: size}
	w, err := e.st.Create(context.Background(), "s3://bkt/big")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	var peak uint64
	var ms runtime.MemStats
	runtime.GC() // (what earlier tests left)
	runtime.ReadMemStats(&ms)
	alloc0, base := ms.TotalAlloc, ms.HeapInuse
	for {
		n, err := src.Read(buf)
		if n > 0 {
			h.Write(buf[:n])
			if _, err := w.Write(buf[:n]); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
		if err == io.EOF {
			break
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	ps := e.proxy.Stats()
	t.Logf("100 MiB upload, 16 MiB parts: peak HeapInuse %.1f MiB (sampled after each 1 MiB write; %.1f MiB before), allocated during the upload %.1f MiB; %d requests", float64(peak)/(1<<20), float64(base)/(1<<20), float64(ms.TotalAlloc-alloc0)/(1<<20), ps.Requests)
	// 3 part buffers of 16 MiB, made once: no allocation per part
	if limit := base + uint64(e.st.UploadMemory()) + 16<<20; peak > limit {
		t.Errorf("peak heap in use %d MiB, want at most %d", peak>>20, limit>>20)
	}
	if alloc, limit := ms.TotalAlloc-alloc0, uint64(e.st.UploadMemory())+12<<20; alloc > limit {
		t.Errorf("%d MiB allocated during the upload, want at most %d", alloc>>20, limit>>20)
	}
	head, err := e.api(t).HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String("bkt"), Key: aws.String("big")})
	if err != nil {
		t.Fatal(err)
	}
	if etag := aws.ToString(head.ETag); !strings.HasSuffix(etag, `-7"`) || aws.ToInt64(head.ContentLength) != size {
		t.Errorf("ETag %s (want 7 parts), size %d", etag, aws.ToInt64(head.ContentLength))
	}
	r, err := e.st.Open(context.Background(), "s3://bkt/big")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h2 := sha256.New()
	if _, err := io.Copy(h2, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h.Sum(nil), h2.Sum(nil)) {
		t.Fatal("read back differs")
	}
}

// TestContentEncoding: an object stored with Content-Encoding: gzip (as
// some tools upload .warc.gz) is read as its stored bytes, never
// decompressed on the way, by Open and OpenAt.
func TestContentEncoding(t *testing.T) {
	e := setup(t, Options{})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("WARC/1.1\r\n"), 1000))
	zw.Close()
	_, err := e.api(t).PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String("bkt"), Key: aws.String("a.warc.gz"), Body: bytes.NewReader(gz.Bytes()),
		ContentEncoding: aws.String("gzip"), ContentType: aws.String("application/warc")})
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, e.st, "s3://bkt/a.warc.gz"); !bytes.Equal(got, gz.Bytes()) {
		t.Fatalf("Open: %d bytes, stored %d", len(got), gz.Len())
	}
	f, err := e.st.OpenAt(context.Background(), "s3://bkt/a.warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 10)
	if _, err := f.ReadAt(p, 0); err != nil || !bytes.Equal(p, gz.Bytes()[:10]) || f.Size() != int64(gz.Len()) {
		t.Fatalf("ReadAt: %x %v", p, err)
	}
	// The same from an http server that labels the .gz file gzip-encoded.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(gz.Bytes()))
	}))
	defer ts.Close()
	if got := readAll(t, e.st, ts.URL+"/a.warc.gz"); !bytes.Equal(got, gz.Bytes()) {
		t.Fatalf("http Open: %d bytes, stored %d", len(got), gz.Len())
	}
}
