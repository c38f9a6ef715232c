package httpmsg

import (
	"bufio"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// Decoder returns a reader that removes one content coding from r: gzip,
// x-gzip, deflate (zlib-wrapped, or raw as some servers send it), br, zstd.
// Identity returns r.
func Decoder(r io.Reader, coding string) (io.ReadCloser, error) {
	switch coding {
	case "", "identity":
		return io.NopCloser(r), nil
	case "gzip", "x-gzip":
		return gzip.NewReader(r)
	case "deflate":
		br := bufio.NewReader(r)
		b, _ := br.Peek(2)
		if len(b) == 2 && b[0]&0x0f == 8 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0 {
			return zlib.NewReader(br)
		}
		return flate.NewReader(br), nil
	case "br":
		return io.NopCloser(brotli.NewReader(r)), nil
	case "zstd":
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	}
	return nil, fmt.Errorf("unsupported content coding %q", coding)
}
