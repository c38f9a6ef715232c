package store

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultRetries     = 5
	DefaultPartSize    = 16 << 20
	DefaultConcurrency = 2
	DefaultBlockSize   = 256 << 10
	DefaultCacheBlocks = 16
	DefaultReadTimeout = 60 * time.Second
	minPartSize        = 5 << 20
)

// Options configure a Store. The zero value is ready to use: credentials,
// region and endpoint come from the environment and ~/.aws as the AWS CLI
// reads them.
type Options struct {
	// NoSignRequest reads s3:// URLs anonymously (public buckets), as the
	// AWS CLI's --no-sign-request does: no credentials are looked up.
	NoSignRequest bool
	// Endpoint, when set, is the S3 endpoint (http:// allowed) in place of
	// AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL / the AWS default; path-style
	// addressing is used with any custom endpoint.
	Endpoint string
	// Region overrides AWS_REGION and the profile's region; when neither
	// gives one it is us-east-1.
	Region string
	// Retries is how many times a failed request (5xx, 429/SlowDown,
	// timeout, dropped connection) is retried, with exponential backoff
	// and jitter, before an operation fails; a stream that makes progress
	// between failures starts counting again. 0 means DefaultRetries;
	// negative means none.
	Retries int
	// RetryBase is the first backoff (doubling up to 32 times it);
	// 0 means 200ms.
	RetryBase time.Duration
	// ReadTimeout bounds how long a read of a remote body may stall before
	// the connection is dropped and the read resumes; 0 means
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// PartSize is the multipart upload part size for s3:// outputs (at
	// least 5 MiB); 0 means DefaultPartSize (16 MiB). Outputs smaller than
	// one part are sent with a single PutObject at Commit.
	PartSize int64
	// Concurrency is how many parts are uploaded at once; 0 means
	// DefaultConcurrency. The part buffers of an output take at most
	// (Concurrency+1) × PartSize (UploadMemory).
	Concurrency int
	// BlockSize and CacheBlocks size the block cache of OpenAt: reads are
	// made in aligned blocks of BlockSize bytes and the last CacheBlocks
	// blocks used are kept. 0 means DefaultBlockSize (256 KiB) and
	// DefaultCacheBlocks (16, that is 4 MiB).
	BlockSize   int
	CacheBlocks int
	// ListPageSize is the MaxKeys of each list request (0: the server's
	// default, 1000 on S3).
	ListPageSize int
	// HTTPClient, when set, is used for http(s):// and S3 requests (for
	// example an httptest TLS server's Client()); else a client like
	// http.DefaultClient's with RootCAs, if set, as its trusted CAs.
	HTTPClient *http.Client
	// RootCAs, when set and HTTPClient is not, are the CAs trusted for
	// https:// and S3 over TLS in place of the system's.
	RootCAs *x509.CertPool
	// Stdin and Stdout are what "-" reads and writes; nil means os.Stdin
	// and os.Stdout.
	Stdin  io.Reader
	Stdout io.Writer
	// Logf, when set, is told of every retry and resume (for -v): the
	// redacted URL, the offset and the cause, never a secret.
	Logf func(format string, args ...any)
}

// Stats are the request and byte counts of a Store or a File.
type Stats struct {
	// Requests is the number of HTTP requests sent (retries included).
	Requests int64
	// Bytes is the number of response body bytes received.
	Bytes int64
}

// String returns "N requests, M bytes".
func (s Stats) String() string {
	return fmt.Sprintf("%d requests, %d bytes", s.Requests, s.Bytes)
}

// Store opens URLs for reading and writing. It is safe for use by several
// goroutines. Its S3 client is made at the first s3:// URL, so a Store used
// only for local files reads no AWS configuration.
type Store struct {
	opts   Options
	client *http.Client
	reqs   atomic.Int64
	bytes  atomic.Int64

	s3once sync.Once
	s3     *s3Client
	s3err  error
}

// New returns a Store with opts.
func New(opts Options) *Store {
	if opts.Retries == 0 {
		opts.Retries = DefaultRetries
	} else if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = 200 * time.Millisecond
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.PartSize <= 0 {
		opts.PartSize = DefaultPartSize
	} else if opts.PartSize < minPartSize {
		opts.PartSize = minPartSize
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.BlockSize <= 0 {
		opts.BlockSize = DefaultBlockSize
	}
	if opts.CacheBlocks <= 0 {
		opts.CacheBlocks = DefaultCacheBlocks
	}
	if opts.Stdin == nil {
		opts.Stdin = os.Stdin
	}
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	s := &Store{opts: opts}
	var base http.RoundTripper
	if opts.HTTPClient != nil {
		c := *opts.HTTPClient
		s.client = &c
		base = c.Transport
		if base == nil {
			base = http.DefaultTransport
		}
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = opts.ReadTimeout
		if opts.RootCAs != nil {
			tr.TLSClientConfig = &tls.Config{RootCAs: opts.RootCAs}
		}
		s.client = &http.Client{}
		base = tr
	}
	s.client.Transport = &counting{base: base, reqs: &s.reqs, bytes: &s.bytes}
	return s
}

func (s *Store) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// UploadMemory returns the most memory the part buffers of one s3://
// Writer take: (Concurrency+1) × PartSize, 48 MiB by default.
func (s *Store) UploadMemory() int64 {
	return int64(s.opts.Concurrency+1) * s.opts.PartSize
}

// Stats returns the requests sent and bytes received by s so far, over
// all its URLs.
func (s *Store) Stats() Stats {
	return Stats{Requests: s.reqs.Load(), Bytes: s.bytes.Load()}
}

// Default is the Store the package-level functions use, with zero Options.
var Default = New(Options{})

// Open is Default.Open.
func Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return Default.Open(ctx, name)
}

// OpenAt is Default.OpenAt.
func OpenAt(ctx context.Context, name string) (*File, error) {
	return Default.OpenAt(ctx, name)
}

// Create is Default.Create.
func Create(ctx context.Context, name string) (Writer, error) {
	return Default.Create(ctx, name)
}

// List is Default.List.
func List(ctx context.Context, prefix string) ([]string, error) {
	return Default.List(ctx, prefix)
}

// Expand is Default.Expand.
func Expand(ctx context.Context, args []string) ([]string, error) {
	return Default.Expand(ctx, args)
}

// Kind is how a name is read and written.
type Kind int

// The kinds of names.
const (
	Local Kind = iota // a local path
	Std               // "-": stdin or stdout
	S3                // s3://bucket/key
	HTTP              // http:// or https:// (read-only)
)

// KindOf returns the kind of name: "-" is Std, s3:// S3, http:// and
// https:// HTTP (schemes in any case), anything else a local path (on
// every system: C:\x\y.warc, C:/x, C://x and \\server\share\x are paths).
func KindOf(name string) Kind {
	if name == "-" {
		return Std
	}
	switch scheme(name) {
	case "s3":
		return S3
	case "http", "https":
		return HTTP
	}
	return Local
}

// scheme returns the lower-case scheme of name when name starts with one
// followed by "://" (RFC 3986: a letter, then letters, digits, '+', '-'
// or '.'), else "". A one-letter scheme is a Windows drive letter, not a
// scheme: "C://x" is the path C:\x.
func scheme(name string) string {
	i := strings.Index(name, "://")
	if i < 2 {
		return ""
	}
	for j := 0; j < i; j++ {
		c := name[j]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return ""
		}
	}
	return strings.ToLower(name[:i])
}

// IsRemote reports whether name is an s3:// or http(s):// URL.
func IsRemote(name string) bool {
	k := KindOf(name)
	return k == S3 || k == HTTP
}

// parseS3 splits s3://bucket/key.
func parseS3(name string) (bucket, key string, err error) {
	rest := name[len("s3://"):]
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", &Error{Op: "open", URL: Redact(name), Err: errors.New("no bucket in s3:// URL")}
	}
	return bucket, key, nil
}

// sensitive query parameters: request signatures and tokens of presigned
// URLs (S3 SigV4 and V2, CloudFront, Azure SAS, GCS).
var sensitive = []string{"x-amz-signature", "x-amz-credential", "x-amz-security-token",
	"signature", "awsaccesskeyid", "sig", "token", "x-goog-signature", "x-goog-credential",
	"key-pair-id", "policy", "access_token"}

// Redact returns name fit for messages: without userinfo (user:password@)
// and without the values of signature, credential and token query
// parameters of presigned URLs.
func Redact(name string) string {
	if KindOf(name) != HTTP && KindOf(name) != S3 {
		return name
	}
	u, err := url.Parse(name)
	if err != nil {
		// Unparsable: keep the scheme and host part only.
		if i := strings.IndexAny(name, "?#"); i >= 0 {
			name = name[:i]
		}
		if at := strings.LastIndex(name, "@"); at >= 0 {
			name = name[:strings.Index(name, "://")+3] + name[at+1:]
		}
		return name
	}
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k := range q {
			for _, s := range sensitive {
				if strings.EqualFold(k, s) {
					q.Set(k, "REDACTED")
					changed = true
				}
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// counting is the RoundTripper of a Store: it counts requests and response
// body bytes.
type counting struct {
	base        http.RoundTripper
	reqs, bytes *atomic.Int64
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.reqs.Add(1)
	resp, err := c.base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: c.bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
