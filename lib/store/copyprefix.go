package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// MinCopyPrefix is the smallest prefix CreateAfterCopy copies: S3's
// smallest part (every part but the last must be at least 5 MiB).
const MinCopyPrefix = minPartSize

// maxCopyPart is S3's largest part, the most one UploadPartCopy copies.
const maxCopyPart = 5 << 30

// ETag returns the ETag of a remote object as OpenAt found it ("" for a
// local file).
func (f *File) ETag() string { return f.etag }

// CreateAfterCopy is Create for an s3:// object name whose first n bytes
// are the first n bytes of the s3:// object src in the same store: the
// server copies them (multipart UploadPartCopy with a byte range; none of
// them pass through here), and what is written to the Writer follows
// them. With etag set, the copy fails if src is no longer that version
// (x-amz-copy-source-if-match). n must be at least MinCopyPrefix. As with
// Create, nothing appears under name before Commit, and Abort leaves no
// upload behind; name may be src itself, which keeps its old content until
// Commit.
func (s *Store) CreateAfterCopy(ctx context.Context, name, src string, n int64, etag string) (Writer, error) {
	if KindOf(name) != S3 || KindOf(src) != S3 {
		return nil, &Error{Op: "create", URL: Redact(name), Err: errors.New("a server-side copy needs two s3:// objects")}
	}
	if n < MinCopyPrefix {
		return nil, &Error{Op: "create", URL: Redact(name), Err: fmt.Errorf("a copied prefix of %d bytes is below S3's smallest part (%d)", n, MinCopyPrefix)}
	}
	bucket, key, err := parseS3(name)
	if err != nil {
		return nil, err
	}
	sb, sk, err := parseS3(src)
	if err != nil {
		return nil, err
	}
	c, err := s.s3client(ctx)
	if err != nil {
		return nil, wrap("create", name, -1, err)
	}
	w := s.createS3(ctx, c, name, bucket, key)
	w.copySrc = sb + "/" + url.PathEscape(sk)
	w.copyN, w.copyETag = n, etag
	if err := w.start("create"); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// copyPrefix sends the UploadPartCopy requests of a CreateAfterCopy, as
// parts 1.. of the upload just created: the prefix cut in equal parts of
// at most 5 GiB (each at least 5 MiB, as n is).
func (w *s3Writer) copyPrefix() error {
	parts := (w.copyN + maxCopyPart - 1) / maxCopyPart
	for i := int64(0); i < parts; i++ {
		from, to := w.copyN*i/parts, w.copyN*(i+1)/parts
		in := &s3.UploadPartCopyInput{
			Bucket:          &w.bucket,
			Key:             &w.key,
			UploadId:        &w.uploadID,
			PartNumber:      aws.Int32(int32(i + 1)),
			CopySource:      aws.String(w.copySrc),
			CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", from, to-1)),
		}
		if w.copyETag != "" {
			in.CopySourceIfMatch = aws.String(w.copyETag)
		}
		out, err := w.c.api.UploadPartCopy(w.wctx, in)
		if err != nil {
			return fmt.Errorf("copying bytes %d-%d of %s: %w", from, to-1, w.copySrc, err)
		}
		if out.CopyPartResult == nil {
			return fmt.Errorf("copying bytes %d-%d of %s: no CopyPartResult", from, to-1, w.copySrc)
		}
		w.parts = append(w.parts, types.CompletedPart{
			ETag:           out.CopyPartResult.ETag,
			PartNumber:     aws.Int32(int32(i + 1)),
			ChecksumCRC32C: out.CopyPartResult.ChecksumCRC32C,
		})
	}
	w.next = int32(parts)
	w.total = w.copyN
	return nil
}
