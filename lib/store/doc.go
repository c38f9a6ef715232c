// Package store turns a name given on a command line into streams: a local
// path, "-" (standard input or output), s3://bucket/key, s3://bucket/prefix/
// (every object under it) or an http:// or https:// URL (read-only). Every
// arcport tool opens its inputs and outputs here, so no tool has special
// cases for object storage.
//
// It follows the Amazon S3 REST API (through aws-sdk-go-v2: requests are
// signed by the SDK, never here), RFC 9110 range requests (Range,
// Content-Range, If-Match, 206 and 416), and the AWS CLI's rules for
// credentials and endpoints.
//
// # Reading
//
//	r, err := store.Open(ctx, name)     // io.ReadCloser, streamed
//	f, err := store.OpenAt(ctx, name)   // *File: io.ReaderAt + Size(), by ranges
//	names, err := store.Expand(ctx, args) // s3://bucket/prefix/ -> its objects
//
// Open reads a remote object with one GET. When the connection drops,
// stalls (Options.ReadTimeout) or the server fails mid-body, the stream
// resumes with a Range request from the first byte not yet received, with
// If-Match on the ETag of the first response: it never starts over, never
// yields a byte twice, and fails with ErrChanged if the object was
// replaced meanwhile. 5xx, 429/SlowDown, timeouts and refused or dropped
// connections are retried Options.Retries times (default 5) with
// exponential backoff and jitter; 401/403/404 and bad credentials fail at
// once. An http(s) server that ignores Range fails a resume with
// ErrNoRange.
//
// OpenAt is for formats read in place (WACZ, ZIM): it learns the size with
// one request (HEAD for S3, a one-byte ranged GET for http, which presigned
// URLs allow), then reads aligned blocks of Options.BlockSize (256 KiB)
// by ranged GETs, consecutive missing blocks of one ReadAt in one request,
// and keeps the Options.CacheBlocks (16) most recently used blocks. A read
// larger than the cache goes straight to the caller's buffer. File.Stats
// and Store.Stats count requests and body bytes, for tests and -v.
//
// List returns the objects under an s3:// prefix in key order, reading all
// pages of the listing.
//
// # Writing
//
//	w, err := store.Create(ctx, name)
//	defer w.Abort()            // does nothing after Commit
//	... write ...
//	err = w.Commit()
//
// Nothing appears under the name before Commit. A local output is written
// to a temporary file beside it and renamed at Commit. An s3:// output is a
// streaming multipart upload of Options.PartSize parts (16 MiB; at least 5
// MiB) made here on the SDK's S3 client (CreateMultipartUpload, UploadPart,
// CompleteMultipartUpload, AbortMultipartUpload): Write fills one of at
// most Concurrency+1 part buffers, made once and reused, and
// Options.Concurrency (2) goroutines send the full ones, so memory stays
// (Concurrency+1) × PartSize (Store.UploadMemory) whatever the output's
// size, and Write waits while every buffer is full or in flight. An output
// of at most one part is sent with one PutObject at Commit. Abort (also
// from another goroutine, also during Commit), or the context of Create
// ending, stops the parts in flight and aborts the multipart upload (with
// a fresh 30 s context if the write's context is done), leaving no object
// and no incomplete upload.
//
// Part and PutObject bodies are sent with UNSIGNED-PAYLOAD (the SDK's
// v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware: the request is
// still signed by the SDK, but the body is not hashed with SHA-256 for the
// signature) and carry instead their CRC32C (x-amz-checksum-crc32c, a
// signed header; hardware CRC over the buffer in memory): the upload is
// created with ChecksumAlgorithm CRC32C, the server checks each part's
// bytes against it (400 BadDigest on a mismatch, which is retried: the
// part is still in memory) and CompleteMultipartUpload lists every part's
// CRC32C and the total size (x-amz-mp-object-size). A server that ignores
// these headers stores the bytes unverified beyond TCP's own checksum.
// Failed requests are retried by the SDK's standard retryer (5xx,
// SlowDown, dropped connections), the part re-sent from its buffer.
//
// After SIGKILL (or a crash, or a lost network) no abort can be sent, and
// an incomplete multipart upload stays in the bucket, invisible to
// listings but billed for its parts, until a bucket lifecycle rule with
// AbortIncompleteMultipartUpload removes it, or until it is aborted by
// hand:
//
//	aws s3api list-multipart-uploads --bucket BUCKET
//	aws s3api abort-multipart-upload --bucket BUCKET --key KEY --upload-id ID
//
// # Credentials and endpoint
//
// The S3 client is made at the first s3:// name by aws-sdk-go-v2's
// config.LoadDefaultConfig, which reads them as the AWS CLI does:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION (or AWS_DEFAULT_REGION), AWS_PROFILE with ~/.aws/credentials
// and ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE), SSO,
// web identity and instance roles, AWS_CA_BUNDLE, and a custom endpoint
// from AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or the profile's endpoint_url.
// This package adds only what the SDK lacks: the region defaults to
// us-east-1 when none is set; a custom endpoint (http:// allowed) is
// addressed path-style (http://host/bucket/key), as MinIO, versitygw and
// Ceph expect; Options.NoSignRequest reads public buckets anonymously like
// the AWS CLI's --no-sign-request; Options.Endpoint and Options.Region
// override the environment. The SDK adds request checksums only where S3
// requires them (the upload sends its parts' CRC32C itself, see Writing).
//
// # Errors
//
// Every failure on a name is an *Error: one line with the name, the
// operation, the byte offset of a failed read and the cause (the HTTP
// status and S3 error code), testable with errors.Is against ErrNotFound,
// ErrAccessDenied, ErrChanged, ErrNoRange, ErrReadOnly. Names in errors go
// through Redact: no user:password@, and no signature, credential or
// token values of presigned URLs. Secrets are never part of a message.
package store
