package store

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
)

// s3Client is the S3 client of a Store.
type s3Client struct {
	api *s3.Client
}

// s3client makes, once, the S3 client from the environment and options.
func (s *Store) s3client(ctx context.Context) (*s3Client, error) {
	s.s3once.Do(func() {
		// A BuildableClient, the one type to which LoadDefaultConfig
		// can add AWS_CA_BUNDLE / ca_bundle.
		bc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.ResponseHeaderTimeout = s.opts.ReadTimeout
			if s.opts.RootCAs != nil {
				if tr.TLSClientConfig == nil {
					tr.TLSClientConfig = &tls.Config{}
				}
				// a copy: AWS_CA_BUNDLE is added to it
				tr.TLSClientConfig.RootCAs = s.opts.RootCAs.Clone()
			}
		})
		opts := []func(*config.LoadOptions) error{
			config.WithHTTPClient(bc),
			// The SDK's own log lines (e.g. "WARN falling back to
			// IMDSv1") would break the one-line error rule: errors
			// reach the user through this package's *Error only.
			config.WithLogger(logging.Nop{}),
			config.WithRetryer(func() aws.Retryer {
				// The SDK's standard retryer (exponential backoff with
				// jitter on 5xx, throttling and connection errors)
				// without its client-side retry quota, for requests
				// other than reads; reads retry in this package, where a
				// stream also resumes.
				return retry.NewStandard(func(o *retry.StandardOptions) {
					o.MaxAttempts = s.opts.Retries + 1
					o.RateLimiter = ratelimit.None
					o.MaxBackoff = 32 * s.opts.RetryBase
					// A part or object whose checksum the server
					// found wrong was damaged on the way: its bytes
					// are still in memory, sent again.
					o.Retryables = append(o.Retryables, retry.RetryableErrorCode{
						Codes: map[string]struct{}{"BadDigest": {}},
					})
				})
			}),
		}
		if s.opts.Region != "" {
			opts = append(opts, config.WithRegion(s.opts.Region))
		}
		if s.opts.NoSignRequest {
			opts = append(opts, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
		}
		cfg, err := config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			s.s3err = fmt.Errorf("S3 configuration: %w", err)
			return
		}
		if cfg.Region == "" {
			cfg.Region = "us-east-1"
		}
		if s.opts.HTTPClient != nil {
			// The caller's client, as for http(s).
			cfg.HTTPClient = s.client
		} else {
			cfg.HTTPClient = &countingDoer{base: cfg.HTTPClient, reqs: &s.reqs, bytes: &s.bytes}
		}
		api := s3.NewFromConfig(cfg, func(o *s3.Options) {
			if s.opts.Endpoint != "" {
				o.BaseEndpoint = aws.String(s.opts.Endpoint)
			}
			// NewFromConfig has already resolved AWS_ENDPOINT_URL_S3 and
			// AWS_ENDPOINT_URL (and the profile's endpoint_url) into
			// BaseEndpoint: a custom endpoint is addressed path-style,
			// as MinIO, versitygw, Ceph and most S3 servers want.
			if o.BaseEndpoint != nil && *o.BaseEndpoint != "" {
				o.UsePathStyle = true
			}
			if s.opts.NoSignRequest {
				o.Credentials = aws.AnonymousCredentials{}
			}
			// Checksums only where S3 requires them: loopback and
			// third-party servers need no CRC trailers.
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		})
		s.s3 = &s3Client{api: api}
	})
	return s.s3, s.s3err
}

// countingDoer counts the requests and response bytes of the S3 client.
type countingDoer struct {
	base        aws.HTTPClient
	reqs, bytes *atomic.Int64
}

func (c *countingDoer) Do(r *http.Request) (*http.Response, error) {
	c.reqs.Add(1)
	resp, err := c.base.Do(r)
	if err == nil && resp.Body != nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: c.bytes}
	}
	return resp, err
}

// noRetry makes one S3 call not retried by the SDK: reads retry in this
// package.
func noRetry(o *s3.Options) {
	o.Retryer = aws.NopRetryer{}
}

// s3Object is one S3 object to read.
type s3Object struct {
	c           *s3Client
	name        string
	bucket, key string
}

func (o *s3Object) url() string { return o.name }

func (o *s3Object) get(ctx context.Context, off, n int64, etag string) (io.ReadCloser, objInfo, error) {
	in := &s3.GetObjectInput{Bucket: &o.bucket, Key: &o.key}
	if off > 0 || n >= 0 {
		r := fmt.Sprintf("bytes=%d-", off)
		if n >= 0 {
			r += strconv.FormatInt(off+n-1, 10)
		}
		in.Range = &r
	}
	if etag != "" {
		in.IfMatch = &etag
	}
	out, err := o.c.api.GetObject(ctx, in, noRetry)
	if err != nil {
		return nil, objInfo{}, err
	}
	info := objInfo{etag: aws.ToString(out.ETag), start: 0, size: -1}
	if cr := aws.ToString(out.ContentRange); cr != "" {
		start, size, ok := parseContentRange(cr)
		if !ok {
			out.Body.Close()
			return nil, objInfo{}, fmt.Errorf("bad Content-Range %q", cr)
		}
		info.start, info.size = start, size
	} else if in.Range != nil && off > 0 {
		out.Body.Close()
		return nil, objInfo{}, ErrNoRange
	} else if out.ContentLength != nil {
		info.size = *out.ContentLength
	}
	return out.Body, info, nil
}

func (o *s3Object) stat(ctx context.Context) (objInfo, error) {
	out, err := o.c.api.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &o.bucket, Key: &o.key}, noRetry)
	if err != nil {
		return objInfo{}, err
	}
	return objInfo{size: aws.ToInt64(out.ContentLength), etag: aws.ToString(out.ETag)}, nil
}

// parseContentRange parses "bytes START-END/SIZE" (SIZE may be "*": -1)
// and "bytes */SIZE" (start 0).
func parseContentRange(s string) (start, size int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, total, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	size = -1
	if total != "*" {
		v, err := strconv.ParseInt(total, 10, 64)
		if err != nil || v < 0 {
			return 0, 0, false
		}
		size = v
	}
	if rng == "*" {
		return 0, size, true
	}
	a, _, found := strings.Cut(rng, "-")
	v, err := strconv.ParseInt(a, 10, 64)
	if !found || err != nil || v < 0 {
		return 0, 0, false
	}
	return v, size, true
}

// List returns the s3:// URLs of all objects under prefix
// (s3://bucket/prefix/, or s3://bucket for the whole bucket), in key
// order, reading every page of the listing. Keys ending in "/" (folder
// markers) are left out.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	objs, err := s.ListObjects(ctx, prefix)
	if err != nil {
		return nil, err
	}
	urls := make([]string, len(objs))
	for i, o := range objs {
		urls[i] = o.URL
	}
	return urls, nil
}

// Object is one object of a listing.
type Object struct {
	URL     string // s3://bucket/key
	Key     string
	Size    int64
	ModTime time.Time
}

// ListObjects is List with each object's size and modification time.
func (s *Store) ListObjects(ctx context.Context, prefix string) ([]Object, error) {
	if KindOf(prefix) != S3 {
		return nil, &Error{Op: "list", URL: Redact(prefix), Err: fmt.Errorf("not an s3:// URL")}
	}
	bucket, key, err := parseS3(prefix)
	if err != nil {
		return nil, err
	}
	c, err := s.s3client(ctx)
	if err != nil {
		return nil, wrap("list", prefix, -1, err)
	}
	in := &s3.ListObjectsV2Input{Bucket: &bucket}
	if key != "" {
		in.Prefix = &key
	}
	if s.opts.ListPageSize > 0 {
		in.MaxKeys = aws.Int32(int32(s.opts.ListPageSize))
	}
	var objs []Object
	p := s3.NewListObjectsV2Paginator(c.api, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, wrap("list", prefix, -1, err)
		}
		for _, o := range page.Contents {
			if k := aws.ToString(o.Key); !strings.HasSuffix(k, "/") {
				objs = append(objs, Object{URL: "s3://" + bucket + "/" + k, Key: k, Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)})
			}
		}
	}
	// S3 lists in UTF-8 binary order already; sort for servers that do not.
	sort.Slice(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key })
	return objs, nil
}

// failTimeout bounds the abort of a failed multipart upload, made with a
// fresh context when the write's context is canceled.
const failTimeout = 30 * time.Second
