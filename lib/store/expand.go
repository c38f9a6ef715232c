package store

import (
	"context"
	"errors"
	"strings"
)

// Expand turns the input arguments of a tool into the list of inputs:
// each s3://bucket/prefix/ (ending in "/", or a bare s3://bucket) becomes
// the objects under it in key order (an error if there are none); local
// paths, "-", s3://bucket/key and http(s):// URLs are kept as they are.
func (s *Store) Expand(ctx context.Context, args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if KindOf(a) != S3 || !isPrefix(a) {
			out = append(out, a)
			continue
		}
		l, err := s.List(ctx, a)
		if err != nil {
			return nil, err
		}
		if len(l) == 0 {
			return nil, &Error{Op: "list", URL: Redact(a), Kind: ErrNotFound, Err: errors.New("no objects under this prefix")}
		}
		out = append(out, l...)
	}
	return out, nil
}

// isPrefix reports whether an s3:// URL names a prefix: it ends in "/" or
// has no key.
func isPrefix(name string) bool {
	_, key, _ := strings.Cut(name[len("s3://"):], "/")
	return key == "" || strings.HasSuffix(key, "/")
}
