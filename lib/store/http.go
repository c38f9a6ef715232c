package store

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// httpObject is one http(s):// resource to read.
type httpObject struct {
	client *http.Client
	name   string
}

func (o *httpObject) url() string { return o.name }

func (o *httpObject) get(ctx context.Context, off, n int64, etag string) (io.ReadCloser, objInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.name, nil)
	if err != nil {
		return nil, objInfo{}, err
	}
	ranged := off > 0 || n >= 0
	if ranged {
		r := fmt.Sprintf("bytes=%d-", off)
		if n >= 0 {
			r += fmt.Sprint(off + n - 1)
		}
		req.Header.Set("Range", r)
	}
	// If-Match needs a strong ETag; a weak one is compared below instead.
	if etag != "" && !strings.HasPrefix(etag, "W/") {
		req.Header.Set("If-Match", etag)
	}
	// Ranges of the encoded bytes would not line up: ask for the identity.
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := o.client.Do(req)
	if err != nil {
		return nil, objInfo{}, err
	}
	info := objInfo{etag: resp.Header.Get("ETag"), size: -1}
	switch {
	case resp.StatusCode == http.StatusPartialContent:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok {
			resp.Body.Close()
			return nil, objInfo{}, fmt.Errorf("bad Content-Range %q", resp.Header.Get("Content-Range"))
		}
		info.start, info.size = start, size
	case resp.StatusCode == http.StatusOK:
		if ranged {
			// The server ignored the Range: resuming or random access
			// would mean starting over.
			resp.Body.Close()
			return nil, objInfo{}, ErrNoRange
		}
		info.size = resp.ContentLength
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		resp.Body.Close()
		if _, size, ok := parseContentRange(resp.Header.Get("Content-Range")); ok && size >= 0 && off >= size {
			// an empty object, or a range at its end
			info.start, info.size = off, size
			return io.NopCloser(strings.NewReader("")), info, nil
		}
		return nil, objInfo{}, &statusError{code: resp.StatusCode}
	default:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, objInfo{}, &statusError{code: resp.StatusCode}
	}
	return resp.Body, info, nil
}

// stat reads the size and ETag with a one-byte ranged GET, which works
// where HEAD is not allowed (presigned GET URLs) and checks that the
// server answers ranges.
func (o *httpObject) stat(ctx context.Context) (objInfo, error) {
	body, info, err := o.get(ctx, 0, 1, "")
	if err != nil {
		return objInfo{}, err
	}
	body.Close()
	if info.size < 0 {
		return objInfo{}, fmt.Errorf("no size in Content-Range")
	}
	return info, nil
}
